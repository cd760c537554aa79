import { describe, expect, it } from "vitest";
import { evaluateCallableTrait } from "../../../src/rubric/callable";
import { evaluateRegexTrait } from "../../../src/rubric/regex";
import { clampScore, literalIndex, traitValue } from "../../../src/rubric/values";
import { CallableRubricTrait, LLMRubricTrait, RegexRubricTrait } from "../../../src/schemas/rubric";

describe("trait values", () => {
  it("clamps a score into [min, max] and a minimum of 0 stays 0 (unlike Karenina's `or 1`)", () => {
    const t = LLMRubricTrait.parse({ name: "s", kind: "score", min_score: 0, max_score: 3 });
    expect(traitValue(t, -2)).toBe(0);
    expect(traitValue(t, 0)).toBe(0);
    expect(traitValue(t, 9)).toBe(3);
    expect(clampScore("2", 1, 5)).toBe(2);
  });

  it("defaults a score trait to 1..5", () => {
    expect(traitValue(LLMRubricTrait.parse({ name: "s", kind: "score" }), 0)).toBe(1);
  });

  it("reads a boolean trait's value laxly and anything else as null (a failed judgment, not false)", () => {
    const t = LLMRubricTrait.parse({ name: "b", kind: "boolean" });
    expect(traitValue(t, "True")).toBe(true);
    expect(traitValue(t, false)).toBe(false);
    expect(traitValue(t, 3)).toBeNull();
  });

  it("maps a literal class to its index exactly, then case-insensitively, else -1 with the raw label", () => {
    const classes = { Formal: "f", Casual: "c", Mixed: "m" };
    expect(literalIndex(classes, "Casual")).toEqual({ score: 1, label: "Casual" });
    expect(literalIndex(classes, "mixed")).toEqual({ score: 2, label: "Mixed" });
    expect(literalIndex(classes, "Sarcastic")).toEqual({ score: -1, label: "Sarcastic" });
  });
});

describe("regex traits", () => {
  const trait = (o: Record<string, unknown>) => RegexRubricTrait.parse({ name: "r", pattern: "\\[\\d+\\]", ...o });
  it("searches the text with Python semantics", () => {
    expect(evaluateRegexTrait(trait({}), "as shown [12].")).toBe(true);
    expect(evaluateRegexTrait(trait({}), "no citations")).toBe(false);
  });
  it("honours case_sensitive and invert_result", () => {
    const t = RegexRubricTrait.parse({ name: "r", pattern: "ATP", case_sensitive: false });
    expect(evaluateRegexTrait(t, "atp synthase")).toBe(true);
    expect(evaluateRegexTrait(RegexRubricTrait.parse({ name: "r", pattern: "ATP" }), "atp")).toBe(false);
    expect(evaluateRegexTrait(trait({ invert_result: true }), "no citations")).toBe(true);
  });
});

describe("callable traits", () => {
  const port = (value: unknown) => ({ run: async () => ({ ok: true as const, value }) });
  it("reads booleans (inverted on request), clamps scores and maps literal classes", async () => {
    const b = CallableRubricTrait.parse({
      name: "c",
      kind: "boolean",
      javascript_code: "function evaluate(t){return true}",
      invert_result: true,
    });
    expect(await evaluateCallableTrait(b, "x", port(true))).toEqual({ ok: true, value: false });
    const s = CallableRubricTrait.parse({ name: "c", kind: "score", min_score: 0, max_score: 10, javascript_code: "x" });
    expect(await evaluateCallableTrait(s, "x", port(42))).toEqual({ ok: true, value: 10 });
    const l = CallableRubricTrait.parse({ name: "c", kind: "literal", classes: { a: "", b: "" }, javascript_code: "x" });
    expect(await evaluateCallableTrait(l, "x", port("B"))).toEqual({ ok: true, value: 1 });
    expect(await evaluateCallableTrait(l, "x", port("zzz"))).toEqual({ ok: true, value: -1 });
  });
  it("cannot run Karenina's pickled Python and says so instead of scoring", async () => {
    const t = CallableRubricTrait.parse({ name: "c", kind: "boolean", callable_code: "aW1wb3J0" });
    const r = await evaluateCallableTrait(t, "x", port(true));
    expect(r.ok).toBe(false);
  });
  it("reports a sandbox failure as an error, not a score", async () => {
    const t = CallableRubricTrait.parse({ name: "c", kind: "boolean", javascript_code: "x" });
    const r = await evaluateCallableTrait(t, "x", { run: async () => ({ ok: false, error: "threw: nope" }) });
    expect(r).toEqual({ ok: false, error: "callable trait c: threw: nope" });
  });
});
