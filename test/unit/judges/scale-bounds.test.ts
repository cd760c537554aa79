/** Issue 16 (c): scales and weights a caller sends are bounded and refused, never cut short or overflowed. */
import { describe, expect, it } from "vitest";
import { buildScale, MAX_SCALE_VALUES } from "../../../src/judges/scales";
import { AnswerTemplate } from "../../../src/templates/template-schema";

describe("scale bounds", () => {
  it("refuses a range with more than MAX_SCALE_VALUES values instead of truncating it", () => {
    expect(buildScale([0, 1e9])).toEqual({ error: expect.stringMatching(/^this range has 1000000001 values; a scale has at most 1001/) });
    expect(buildScale({ type: "discrete", range: [0, 1, 1e-9] })).toEqual({ error: expect.stringMatching(/at most 1001/) });
    expect(buildScale({ type: "likert", min: 1, max: 5000 })).toEqual({ error: expect.stringMatching(/at most 1001/) });
    expect(buildScale(Array.from({ length: MAX_SCALE_VALUES + 1 }, (_, i) => `v${i}`))).toEqual({
      error: expect.stringMatching(/at most 1001 values; this one has 1002/),
    });
    expect("error" in buildScale([0, 1000])).toBe(false);
  });
  it("refuses a likert scale whose min is not below its max", () => {
    expect(buildScale({ type: "likert", min: 5, max: 1 })).toEqual({ error: "likert min (5) must be < max (1)" });
    expect(buildScale({ type: "likert", min: 3, max: 3 })).toEqual({ error: "likert min (3) must be < max (3)" });
  });
});

describe("template weights", () => {
  const field = (name: string, weight: number) => ({
    name,
    type: "bool",
    description: "d",
    ground_truth: true,
    verify_with: { type: "BooleanMatch" },
    weight,
  });
  it("refuses weights whose sum is not finite (each 1e308 is, their sum is not)", () => {
    const r = AnswerTemplate.safeParse({ fields: [field("a", 1e308), field("b", 1e308)] });
    expect(r.success).toBe(false);
    expect(r.error!.issues).toEqual([
      expect.objectContaining({ path: ["fields"], message: "the fields' weights must sum to a finite number" }),
    ]);
    expect(AnswerTemplate.safeParse({ fields: [field("a", 1e307), field("b", 1e307)] }).success).toBe(true);
  });
});
