/** Invariants of the grading core, checked on generated inputs (fast-check). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AnswerTemplate, type VerifyStrategyInput } from "../../../src/templates/template-schema";
import { applyNormalizers, verifyFields } from "../../../src/templates";
import { NORMALIZER_NAMES } from "../../../src/templates/normalizers";
import { parseOk } from "../schemas/issues";
import { check, score } from "./run-primitive";

const text = fc.string({ unit: "binary", maxLength: 40 });
/** Text rich in what normalizers touch: case, punctuation, every kind of whitespace. */
const messy = fc.string({
  unit: fc.constantFrom("a", "B", "é", "İ", "Σ", " ", "\t", "\n", "\u00a0", "\u2003", "\x1c", "\x85", "\ufeff", ".", "-", "!", "«"),
  maxLength: 30,
});

describe("normalizers", () => {
  it.each(NORMALIZER_NAMES)("%s is idempotent", (name) => {
    fc.assert(
      fc.property(fc.oneof(text, messy), (s) => {
        const once = applyNormalizers([name], s);
        expect(applyNormalizers([name], once)).toBe(once);
      }),
    );
  });
  it("ExactMatch's default chain (lowercase, strip) is idempotent", () => {
    fc.assert(
      fc.property(fc.oneof(text, messy), (s) => {
        const once = applyNormalizers(["lowercase", "strip"], s);
        expect(applyNormalizers(["lowercase", "strip"], once)).toBe(once);
      }),
    );
  });
  it("a SynonymMap onto canonical forms (values that are not keys) is idempotent", () => {
    const words = fc.constantFrom("bcl2", "bcl-2", "b-cell lymphoma 2", "tp53", "p53", "x");
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom("bcl-2", "b-cell lymphoma 2", "p53"), fc.constantFrom("bcl2", "tp53")),
        words,
        (mapping, s) => {
          const once = applyNormalizers([{ mapping }], s);
          expect(applyNormalizers([{ mapping }], once)).toBe(once);
        },
      ),
    );
  });
});

const num = fc.double({ noNaN: true, min: -1e12, max: 1e12 });

describe("numeric primitives", () => {
  it("NumericTolerance in absolute mode is symmetric: swapping extracted and ground truth keeps the verdict", () => {
    fc.assert(
      fc.property(num, num, fc.double({ noNaN: true, min: 0, max: 1e6 }), (x, gt, tolerance) => {
        const p = { tolerance, mode: "absolute" };
        expect(check("NumericTolerance", p, x, gt)).toBe(check("NumericTolerance", p, gt, x));
      }),
    );
  });
  it("NumericGraded's score stays in [0, 1] and never rises as the answer moves away from the ground truth", () => {
    const params = fc.record({
      cutoff: fc.double({ noNaN: true, min: 0.001, max: 100 }),
      mode: fc.constantFrom("relative", "absolute"),
      decay: fc.constantFrom("linear", "quadratic"),
    });
    fc.assert(
      fc.property(
        params,
        num,
        fc.double({ noNaN: true, min: 0, max: 1e6 }),
        fc.double({ noNaN: true, min: 0, max: 1e6 }),
        (p, gt, a, b) => {
          const [near, far] = a <= b ? [a, b] : [b, a];
          const s1 = score("NumericGraded", p, gt + near, gt);
          const s2 = score("NumericGraded", p, gt + far, gt);
          expect(s1).toBeGreaterThanOrEqual(0);
          expect(s1).toBeLessThanOrEqual(1);
          if (gt + near - gt <= gt + far - gt) expect(s2).toBeLessThanOrEqual(s1);
        },
      ),
    );
  });
  it("a passing NumericGraded single-band answer always scores ≥ 0, a failing one exactly 0", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, min: 0.001, max: 10 }), num, num, (cutoff, x, gt) => {
        if (!check("NumericGraded", { cutoff }, x, gt)) expect(score("NumericGraded", { cutoff }, x, gt)).toBe(0);
      }),
    );
  });
});

// Templates of boolean fields with random weights and a random strategy tree over them.
const FIELD_NAMES = ["a", "b", "c", "d", "e"];
const leaf = fc.constantFrom(...FIELD_NAMES).map((f): VerifyStrategyInput => ({ type: "field_check", field_name: f }));
const tree: fc.Arbitrary<VerifyStrategyInput> = fc.letrec<{ node: VerifyStrategyInput }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.record({ type: fc.constantFrom("all_of" as const, "any_of" as const), conditions: fc.array(tie("node"), { maxLength: 4 }) }),
    fc.record({
      type: fc.constant("at_least_n" as const),
      n: fc.integer({ min: 0, max: 5 }),
      conditions: fc.array(tie("node"), { maxLength: 4 }),
    }),
  ),
})).node;
const templateArb = fc
  .record({
    weights: fc.array(fc.double({ noNaN: true, min: 0.01, max: 100 }), { minLength: 5, maxLength: 5 }),
    strategy: fc.option(tree, { nil: undefined }),
  })
  .map(({ weights, strategy }) =>
    parseOk(AnswerTemplate, {
      fields: FIELD_NAMES.map((name, i) => ({
        name,
        type: "bool",
        description: name,
        ground_truth: true,
        verify_with: { type: "BooleanMatch" },
        weight: weights[i],
      })),
      verify_strategy: strategy,
    }),
  );
/** Per field: true (passes), false (fails), null (not answered). */
const answers = fc
  .array(fc.constantFrom(true, false, null), { minLength: 5, maxLength: 5 })
  .map((vs) => Object.fromEntries(FIELD_NAMES.map((n, i) => [n, vs[i]])));

describe("composition and granular score", () => {
  it("the granular score is always within [0, 1]", () => {
    fc.assert(
      fc.property(templateArb, answers, (t, parsed) => {
        const g = verifyFields(t, parsed).verify_granular_result!;
        expect(g).toBeGreaterThanOrEqual(0);
        expect(g).toBeLessThanOrEqual(1);
      }),
      { numRuns: 500 },
    );
  });
  it("turning a failing or unanswered field into a passing one never lowers the score nor flips a pass to a fail", () => {
    fc.assert(
      fc.property(templateArb, answers, fc.constantFrom(...FIELD_NAMES), (t, parsed, flip) => {
        fc.pre(parsed[flip] !== true);
        const before = verifyFields(t, parsed);
        const after = verifyFields(t, { ...parsed, [flip]: true });
        expect(after.verify_granular_result!).toBeGreaterThanOrEqual(before.verify_granular_result!);
        if (before.verify_result) expect(after.verify_result).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
  it("an unanswered (null) field counts exactly as a failing one for the verdict and the score", () => {
    fc.assert(
      fc.property(templateArb, answers, (t, parsed) => {
        const asFalse = Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, v ?? false]));
        const withNulls = verifyFields(t, parsed);
        const withFalses = verifyFields(t, asFalse);
        expect(withNulls.verify_result).toBe(withFalses.verify_result);
        expect(withNulls.verify_granular_result).toBe(withFalses.verify_granular_result);
      }),
      { numRuns: 300 },
    );
  });
  it("every field passing scores exactly 1 under an all_of-like root, and passes whenever any answer would", () => {
    const allTrue = Object.fromEntries(FIELD_NAMES.map((n) => [n, true]));
    fc.assert(
      fc.property(templateArb, answers, (t, parsed) => {
        const best = verifyFields(t, allTrue);
        if (t.verify_strategy?.type !== "any_of" && t.verify_strategy?.type !== "at_least_n") expect(best.verify_granular_result).toBe(1);
        if (verifyFields(t, parsed).verify_result) expect(best.verify_result).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe("dates", () => {
  const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
  const pad = (n: number) => String(n).padStart(2, "0");
  it("the same day written in any common style is the same DateMatch date", () => {
    const date = fc.record({
      y: fc.integer({ min: 1000, max: 9999 }),
      m: fc.integer({ min: 1, max: 12 }),
      d: fc.integer({ min: 1, max: 28 }),
    });
    fc.assert(
      fc.property(date, ({ y, m, d }) => {
        const iso = `${y}-${pad(m)}-${pad(d)}`;
        for (const other of [
          `${MONTHS[m - 1]} ${d}, ${y}`,
          `${d} ${MONTHS[m - 1]!.slice(0, 3)} ${y}`,
          `${y}/${pad(m)}/${pad(d)}`,
          `${pad(m)}/${pad(d)}/${y}`,
          `${iso}T12:00:00Z`,
        ]) {
          expect(check("DateMatch", {}, other, iso), other).toBe(true);
        }
      }),
    );
  });
});
