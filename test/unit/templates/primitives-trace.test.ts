import { describe, expect, it } from "vitest";
import { AnswerTemplate } from "../../../src/templates/template-schema";
import { buildJudgeSchema, judgeVisibleFields, verifyFields } from "../../../src/templates";
import { VerifyWithSchema } from "../../../src/templates/primitives/verify-with";
import { expectIssue, parseOk } from "../schemas/issues";
import { checkTrace } from "./run-primitive";

const TRACE = "Venetoclax targets BCL2 (NCT01328626, NCT02203773).";

describe("TraceRegex", () => {
  it("passes on at least one findall match, or at least count_min", () => {
    expect(checkTrace("TraceRegex", { pattern: "NCT\\d{8}" }, TRACE)).toBe(true);
    expect(checkTrace("TraceRegex", { pattern: "NCT\\d{9}" }, TRACE)).toBe(false);
    expect(checkTrace("TraceRegex", { pattern: "NCT(\\d{8})", count_min: 2 }, TRACE)).toBe(true);
    expect(checkTrace("TraceRegex", { pattern: "NCT\\d{8}", count_min: 3 }, TRACE)).toBe(false);
    expect(checkTrace("TraceRegex", { pattern: "absent", count_min: 0 }, TRACE)).toBe(true);
  });
  it("uses Python regex syntax and refuses what edgeval cannot honour", () => {
    expect(checkTrace("TraceRegex", { pattern: "(?i)venetoclax targets (?P<t>\\w+)" }, TRACE.toUpperCase())).toBe(true);
    expectIssue(VerifyWithSchema, { type: "TraceRegex", pattern: "(?<t>x)" }, "pattern", /write \(\?P<name>\.\.\.\)/);
    expectIssue(VerifyWithSchema, { type: "TraceRegex", pattern: "x", count_min: -1 }, "count_min", /≥ 0/);
  });
});

describe("TraceContains", () => {
  it("is a case-sensitive substring test", () => {
    expect(checkTrace("TraceContains", { substring: "BCL2" }, TRACE)).toBe(true);
    expect(checkTrace("TraceContains", { substring: "bcl2" }, TRACE)).toBe(false);
    expectIssue(VerifyWithSchema, { type: "TraceContains" }, "substring", /substring is required/);
  });
});

describe("TraceLength", () => {
  it("counts characters as Python does (code points, not UTF-16 units)", () => {
    expect(checkTrace("TraceLength", { max: 3 }, "日本😀")).toBe(true);
    expect(checkTrace("TraceLength", { min: 4 }, "日本😀")).toBe(false);
  });
  it("counts words as str.split() does, with inclusive, optional bounds", () => {
    expect(checkTrace("TraceLength", { min: 3, max: 3, unit: "words" }, "  a  b\tc\n")).toBe(true);
    expect(checkTrace("TraceLength", { max: 2, unit: "words" }, "a b c")).toBe(false);
    expect(checkTrace("TraceLength", {}, "")).toBe(true);
  });
  it("refuses an unknown unit and min > max", () => {
    expectIssue(VerifyWithSchema, { type: "TraceLength", unit: "tokens" }, "unit", /chars.*words/);
    expectIssue(VerifyWithSchema, { type: "TraceLength", min: 5, max: 1 }, "max", /min must be ≤ max/);
  });
});

describe("trace fields in a template", () => {
  const t = parseOk(AnswerTemplate, {
    fields: [
      { name: "target", type: "str", description: "the drug's target", ground_truth: "BCL2", verify_with: { type: "ExactMatch" } },
      {
        name: "cites_trial",
        type: "bool",
        description: "cites an NCT id",
        ground_truth: true,
        verify_with: { type: "TraceRegex", pattern: "NCT\\d{8}" },
      },
      {
        name: "no_refusal",
        type: "bool",
        description: "does not refuse",
        ground_truth: false,
        verify_with: { type: "TraceContains", substring: "I cannot" },
      },
    ],
  });
  it("are hidden from the judge", () => {
    expect(judgeVisibleFields(t).map((f) => f.name)).toEqual(["target"]);
    expect(Object.keys(buildJudgeSchema(t).jsonSchema.properties as object)).toEqual(["target"]);
  });
  it("pass when the condition on the raw answer equals bool(ground_truth); false means must be absent", () => {
    const v = verifyFields(t, { target: "bcl2" }, { rawTrace: TRACE });
    expect(v.field_results).toEqual({ target: true, cites_trial: true, no_refusal: true });
    expect(v.verify_result).toBe(true);
    const refused = verifyFields(t, { target: "bcl2" }, { rawTrace: "I cannot say." });
    expect(refused.field_results).toEqual({ target: true, cites_trial: false, no_refusal: false });
    expect(refused.verify_granular_result).toBeCloseTo(1 / 3, 12);
  });
  it("ignore whatever the parsed answer holds under their name", () => {
    expect(verifyFields(t, { target: "bcl2", cites_trial: false }, { rawTrace: TRACE }).field_results.cites_trial).toBe(true);
  });
  it("are a field_verification_error, not a guess, when no raw answer is given", () => {
    const v = verifyFields(t, { target: "bcl2" });
    expect(v.verify_result).toBe(false);
    expect(v.field_verification_error).toMatch(/cites_trial \(TraceRegex\): a trace primitive needs the raw answer/);
  });
});
