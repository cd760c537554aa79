/**
 * Issue 16 (a): a pattern from a user cannot stall grading. Every ReDoS corpus pattern goes
 * through the four places a user pattern runs — template regex checks, TraceRegex, regex rubric
 * traits and the Python subset's `re` — and each check either decides (as Python would) or stops
 * at its counted step budget as an error, never a wrong verdict; patterns Python refuses are
 * refused at submit. Before the engine in src/templates/regex/, this file did not finish (the
 * host RegExp took hours on the first row).
 */
import { describe, expect, it } from "vitest";
import { evaluateRegexTrait } from "../../../src/rubric/regex";
import { RegexRubricTrait } from "../../../src/schemas/rubric";
import { AnswerTemplate } from "../../../src/templates/template-schema";
import { runRegexChecks, validateRegexPattern, verifyFields } from "../../../src/templates";
import { verifyPython } from "../../../src/templates/python-subset";
import { compilePattern } from "../../../src/templates/regex";
import { REDOS_CORPUS } from "./redos-corpus";

const runnable = REDOS_CORPUS.filter((c) => c.engine !== "refused");
const pyLiteral = (s: string) => JSON.stringify(s); // a JSON string is a valid Python str literal here

describe("the ReDoS corpus", () => {
  it("has at least 15 patterns, at most 5 refused, with backreference and lookaround patterns that run", () => {
    expect(REDOS_CORPUS.length).toBeGreaterThanOrEqual(15);
    expect(REDOS_CORPUS.filter((c) => validateRegexPattern(c.pattern) !== null).length).toBeLessThanOrEqual(5);
    for (const c of REDOS_CORPUS) {
      const compiled = compilePattern(c.pattern);
      expect(compiled.ok ? compiled.regex.engine : "refused", c.pattern).toBe(c.engine);
      expect(c.answer.length, c.pattern).toBeGreaterThan(99_000);
    }
  });

  it("refuses at submit what Python refuses, with Python's message", () => {
    expect(validateRegexPattern("(?<=a+)b")).toBe("look-behind requires fixed-width pattern");
    expect(AnswerTemplate.safeParse({ fields: [], regex: [{ name: "r", pattern: "(?<=a+)b", expected: "b" }] }).success).toBe(false);
  });
});

describe.each(runnable)("$pattern", ({ pattern, answer, matches, engine }) => {
  it("template regex check: decides, or reports an undecided check (never a failed one)", () => {
    const r = runRegexChecks([{ name: "r", pattern, expected: 0, match_type: "count" }], answer);
    if (r.errors.length) {
      expect(engine).toBe("backtracking");
      expect(r.errors[0]).toMatch(/^r: regex stopped/);
    } else expect(r.details.r!.match_count > 0).toBe(matches);
  });

  it("TraceRegex field: verify_result is the match, or null (an error result)", () => {
    const template = AnswerTemplate.parse({
      fields: [{ name: "t", type: "bool", description: "d", ground_truth: true, verify_with: { type: "TraceRegex", pattern } }],
    });
    const v = verifyFields(template, {}, { rawTrace: answer });
    if (v.verify_result === null) {
      expect(engine).toBe("backtracking");
      expect(v.field_verification_error).toMatch(/regex stopped/);
    } else expect(v.verify_result).toBe(matches);
  });

  it("regex rubric trait: a boolean, or an error (the trait is left out, never false)", () => {
    const r = evaluateRegexTrait(RegexRubricTrait.parse({ name: "r", description: "d", pattern }), answer);
    if (typeof r === "object") {
      expect(engine).toBe("backtracking");
      expect(r.error).toMatch(/regex stopped/);
    } else expect(r).toBe(matches);
  });

  it("Python subset re.search: the match, or the uncatchable step limit", () => {
    const source = [
      "import re",
      "class Answer(BaseAnswer):",
      "    text: str",
      "    def verify(self):",
      "        try:",
      `            return re.search(${pyLiteral(pattern)}, self.text) is not None`,
      "        except Exception:",
      "            return False",
    ].join("\n");
    const r = verifyPython({ language: "python", source, parsed: { text: answer }, ground_truth: {}, raw_trace: answer });
    if (!r.ok) {
      expect(engine).toBe("backtracking");
      expect(r.error).toMatch(/^StepLimitExceeded: re: regex stopped/);
    } else expect(r.verify_result).toBe(matches);
  });
});
