import { describe, expect, it } from "vitest";
import { AnswerTemplate } from "../../../src/templates/template-schema";
import { expectIssue, parseOk } from "./issues";

const field = (over: Record<string, unknown> = {}) => ({
  name: "gene_symbol",
  type: "str",
  description: "The official gene symbol",
  ground_truth: "BCL2",
  ...over,
});
const js = { language: "javascript", source: "function verify(a, gt) { return a.gene_symbol === gt.gene_symbol; }" };

describe("AnswerTemplate with custom_verify accepts", () => {
  it("fields without verify_with, the code deciding the verdict", () => {
    const t = parseOk(AnswerTemplate, { fields: [field()], custom_verify: js });
    expect(t.custom_verify).toEqual(js);
    expect(t.fields[0]!.verify_with).toBeUndefined();
  });
  it("python source, and regex checks beside the code", () => {
    parseOk(AnswerTemplate, {
      fields: [field()],
      regex: [{ name: "sym", pattern: "BCL\\d", expected: "BCL2" }],
      custom_verify: { language: "python", source: "class Answer(BaseAnswer):\n    def verify(self):\n        return True\n" },
    });
  });
  it("no fields at all: the code reads only the raw trace", () => {
    parseOk(AnswerTemplate, { fields: [], custom_verify: js });
  });
  it("a source of exactly 200 KB", () => {
    parseOk(AnswerTemplate, { fields: [field()], custom_verify: { language: "javascript", source: "x".repeat(200 * 1024) } });
  });
});

describe("AnswerTemplate rejects, at the exact path", () => {
  it.each<[string, unknown, string, RegExp]>([
    ["a field without verify_with and no custom_verify", { fields: [field()] }, "fields[0].verify_with", /verify_with is required/],
    [
      "verify_with beside custom_verify",
      { fields: [field(), field({ name: "b", verify_with: { type: "ExactMatch" } })], custom_verify: js },
      "fields[1].verify_with",
      /not allowed with custom_verify/,
    ],
    [
      "a verify_strategy beside custom_verify",
      { fields: [field()], custom_verify: js, verify_strategy: { type: "all_of", conditions: [] } },
      "verify_strategy",
      /not allowed with custom_verify/,
    ],
    [
      "an unknown language",
      { fields: [field()], custom_verify: { language: "ruby", source: "x" } },
      "custom_verify.language",
      /javascript, python/,
    ],
    // Issue 15 item 8: the JavaScript contract written in Python failed every job at run time.
    [
      "Python written to the JavaScript contract",
      {
        fields: [field()],
        custom_verify: {
          language: "python",
          source: "def verify(answer, ground_truth, context):\n    return answer['a'] == ground_truth['a']\n",
        },
      },
      "custom_verify.source",
      /module-level def verify\(\.\.\.\) \(line 1\) is the JavaScript contract; Python custom_verify is a Karenina answer class: class Answer\(BaseAnswer\)/,
    ],
    [
      "Python with no answer class at all",
      { fields: [field()], custom_verify: { language: "python", source: "x = 1\n" } },
      "custom_verify.source",
      /^no answer class; Python custom_verify is a Karenina answer class/,
    ],
    [
      "an empty source",
      { fields: [field()], custom_verify: { language: "javascript", source: "  " } },
      "custom_verify.source",
      /must not be empty/,
    ],
    ["a missing source", { fields: [field()], custom_verify: { language: "javascript" } }, "custom_verify.source", /source is required/],
    [
      "a source over 200 KB (counted in UTF-8 bytes)",
      { fields: [field()], custom_verify: { language: "javascript", source: "é".repeat(100 * 1024 + 1) } },
      "custom_verify.source",
      /at most 200 KB/,
    ],
    [
      "an unknown key in custom_verify",
      { fields: [field()], custom_verify: { ...js, timeout: 5 } },
      "custom_verify",
      /Unrecognized key: "timeout"/,
    ],
  ])("%s", (_, input, path, message) => {
    expectIssue(AnswerTemplate, input, path, message);
  });
});
