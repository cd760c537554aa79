import { afterEach, describe, expect, it, vi } from "vitest";
import { AnswerTemplate, type AnswerTemplateInput } from "../../../src/templates/template-schema";
import { PRIMITIVES, groundTruthOf, verifyFields } from "../../../src/templates";
import { defaultStrategy, evaluateStrategy, granularScore } from "../../../src/templates/composition";
import { parseOk } from "../schemas/issues";

const bool = (name: string, weight = 1, ground_truth: boolean | null = true) => ({
  name,
  type: "bool" as const,
  description: `whether ${name}`,
  ground_truth,
  verify_with: { type: "BooleanMatch" },
  weight,
});
const fc = (field_name: string) => ({ type: "field_check" as const, field_name });
const template = (input: AnswerTemplateInput) => parseOk(AnswerTemplate, input);

describe("Karenina's mRNA example (weights 2, 2, 1)", () => {
  const t = template({
    fields: [
      {
        name: "delivery_mechanism",
        type: "str",
        description: "how it is delivered",
        ground_truth: "mRNA",
        weight: 2,
        verify_with: { type: "ContainsAny", params: { substrings: ["mrna", "messenger rna"], normalize: ["lowercase"] } },
      },
      {
        name: "target_protein",
        type: "str",
        description: "the antigen",
        ground_truth: "spike",
        weight: 2,
        verify_with: { type: "ContainsAny", params: { substrings: ["spike"] } },
      },
      bool("mentions_immune_response"),
    ],
  });
  it("fails verify and scores (2 + 0 + 1) / 5 = 0.6 when the target field fails", () => {
    const v = verifyFields(t, {
      delivery_mechanism: "Messenger RNA in lipid nanoparticles",
      target_protein: "nucleocapsid",
      mentions_immune_response: true,
    });
    expect(v).toEqual({
      field_results: { delivery_mechanism: true, target_protein: false, mentions_immune_response: true },
      field_scores: { delivery_mechanism: 1, target_protein: 0, mentions_immune_response: 1 },
      verify_result: false,
      verify_granular_result: 0.6,
      composition_strategy: null, // Karenina labels only an explicit VerificationStrategy
      field_verification_error: null,
    });
  });
  it("passes with granular 1 when every field passes", () => {
    const v = verifyFields(t, { delivery_mechanism: "mRNA", target_protein: "the spike protein", mentions_immune_response: true });
    expect([v.verify_result, v.verify_granular_result]).toEqual([true, 1]);
  });
});

describe("null handling", () => {
  const t = template({ fields: [bool("a"), bool("b", 1, false)] });
  it("gives a null result and score for a null field, which never satisfies all_of", () => {
    const v = verifyFields(t, { a: true, b: null });
    expect(v.field_results).toEqual({ a: true, b: null });
    expect(v.field_scores).toEqual({ a: 1, b: null });
    expect(v.verify_result).toBe(false);
  });
  it("keeps a null field's weight in the granular denominator", () => {
    expect(verifyFields(t, { a: true, b: null }).verify_granular_result).toBe(0.5);
  });
  it("does not let a null extraction match a false ground truth", () => {
    expect(verifyFields(t, { a: true }).field_results.b).toBeNull();
    expect(verifyFields(t, { a: true, b: false }).field_results.b).toBe(true);
  });
});

describe("composition trees", () => {
  // any_of( a, all_of( b, at_least_n(2)( c, d, e ) ) ), weights a1 b2 c1 d1 e1 (Σ 6)
  const t = template({
    fields: [bool("a"), bool("b", 2), bool("c"), bool("d"), bool("e")],
    verify_strategy: {
      type: "any_of",
      conditions: [
        fc("a"),
        { type: "all_of", conditions: [fc("b"), { type: "at_least_n", n: 2, conditions: [fc("c"), fc("d"), fc("e")] }] },
      ],
    },
  });
  it("passes through the nested branch when two of c, d, e pass", () => {
    const v = verifyFields(t, { a: false, b: true, c: true, d: true, e: false });
    expect(v.verify_result).toBe(true);
    expect(v.composition_strategy).toBe("any_of");
  });
  it("fails when a null leaves at_least_n one short, scoring the best single contribution (any_of root)", () => {
    const v = verifyFields(t, { a: false, b: true, c: true, d: null, e: false });
    expect(v.verify_result).toBe(false);
    expect(v.verify_granular_result).toBeCloseTo(2 / 6, 12);
  });
  it("passes on the first branch alone", () => {
    expect(verifyFields(t, { a: true, b: null, c: null, d: null, e: null }).verify_result).toBe(true);
  });

  it("at_least_n root counts passing children and scores the top n contributions", () => {
    const t2 = template({
      fields: [bool("a", 3), bool("b", 2), bool("c", 1)],
      verify_strategy: { type: "at_least_n", n: 2, conditions: [fc("a"), fc("b"), fc("c")] },
    });
    const v = verifyFields(t2, { a: false, b: true, c: true });
    expect(v.verify_result).toBe(true);
    expect(v.composition_strategy).toBe("at_least_n(2)");
    expect(v.verify_granular_result).toBe(0.5); // (2 + 1) / 6
    expect(verifyFields(t2, { a: true, b: false, c: false }).verify_result).toBe(false);
  });
  it("never reports a granular score above 1, whatever the weights' rounding", () => {
    // Summed largest-first these weights exceed their field-order total by one ulp.
    const weights = [79.64, 35.559999999999995, 74.38000000000001, 27.470000000000002, 86.4];
    const fields = ["a", "b", "c", "d", "e"].map((n, i) => bool(n, weights[i]));
    const all = { a: true, b: true, c: true, d: true, e: true };
    expect(verifyFields(template({ fields }), all).verify_granular_result).toBe(1);
    const atLeast5 = template({ fields, verify_strategy: { type: "at_least_n", n: 5, conditions: ["a", "b", "c", "d", "e"].map(fc) } });
    expect(verifyFields(atLeast5, all).verify_granular_result).toBe(1);
  });
  it("AllOf([]) is true and AnyOf([]) is false", () => {
    const allEmpty = template({ fields: [bool("a")], verify_strategy: { type: "all_of", conditions: [] } });
    const anyEmpty = template({ fields: [bool("a")], verify_strategy: { type: "any_of" } });
    expect(verifyFields(allEmpty, { a: false }).verify_result).toBe(true);
    expect(verifyFields(anyEmpty, { a: true }).verify_result).toBe(false);
  });
  it('a field_check root looks at one field, scores like all_of and is labelled as Karenina does ("fieldcheck")', () => {
    const t3 = template({ fields: [bool("a"), bool("b")], verify_strategy: fc("a") });
    const v = verifyFields(t3, { a: true, b: false });
    expect([v.verify_result, v.verify_granular_result, v.composition_strategy]).toEqual([true, 0.5, "fieldcheck"]);
  });
});

describe("errors and edge cases", () => {
  it("turns a throwing primitive into field_verification_error, a null field and a failed verdict", () => {
    const t = template({
      fields: [
        {
          name: "dose_mg",
          type: "float",
          description: "dose",
          ground_truth: 5,
          verify_with: { type: "NumericTolerance", params: { tolerance: 0.1 } },
        },
        bool("ok"),
      ],
      verify_strategy: { type: "any_of", conditions: [fc("dose_mg"), fc("ok")] },
    });
    // The judge schema would refuse a non-number; a primitive fed bad data directly must still not pass.
    const v = verifyFields(t, { dose_mg: "five", ok: true });
    expect(v.field_results).toEqual({ dose_mg: null, ok: true });
    expect(v.verify_result).toBe(false);
    expect(v.verify_granular_result).toBeNull();
    expect(v.field_verification_error).toMatch(/dose_mg \(NumericTolerance\): could not convert string to float: 'five'/);
  });
  it("gives a regex-only template a true field part and records nothing else", () => {
    const t = template({ fields: [], regex: [{ name: "nct", pattern: "NCT\\d{8}", expected: 1, match_type: "count" }] });
    expect(verifyFields(t, {})).toEqual({
      field_results: {},
      field_scores: {},
      verify_result: true,
      verify_granular_result: null,
      composition_strategy: null,
      field_verification_error: null,
    });
  });
  it("groundTruthOf maps every field to its ground truth", () => {
    const t = template({ fields: [bool("a"), bool("b", 1, null)] });
    expect(groundTruthOf(t)).toEqual({ a: true, b: null });
  });
});

describe("composition and verification edge cases", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("at_least_n passes with more than n passing children and scores only the top n contributions", () => {
    const t = template({
      fields: [bool("a", 1), bool("b", 2), bool("c", 3), bool("d", 4)],
      verify_strategy: { type: "at_least_n", n: 2, conditions: ["a", "b", "c", "d"].map(fc) },
    });
    const v = verifyFields(t, { a: true, b: true, c: true, d: false });
    expect(v.verify_result).toBe(true);
    expect(v.verify_granular_result).toBe(0.5); // (3 + 2) / 10: a's 1 is the third contribution
  });

  it("scores zero when there are no fields to weigh, never NaN", () => {
    expect(granularScore({ type: "all_of", conditions: [] }, [], {})).toBe(0);
  });

  it("the implicit strategy is all_of over one field_check per field, in field order", () => {
    const fields = template({ fields: [bool("a"), bool("b")] }).fields;
    expect(defaultStrategy(fields)).toEqual({
      type: "all_of",
      conditions: [
        { type: "field_check", field_name: "a", conditions: [] },
        { type: "field_check", field_name: "b", conditions: [] },
      ],
    });
    expect(evaluateStrategy(defaultStrategy(fields), { a: true, b: true })).toBe(true);
  });

  it("names every field that failed at once, in field order, in field_verification_error", () => {
    const num = (name: string) => ({
      name,
      type: "float" as const,
      description: name,
      ground_truth: 5,
      verify_with: { type: "NumericTolerance", params: { tolerance: 0.1 } },
    });
    const v = verifyFields(template({ fields: [num("x"), bool("ok"), num("y")] }), { x: "five", ok: true, y: "six" });
    expect(v.field_results).toEqual({ x: null, ok: true, y: null });
    expect(v.field_scores).toEqual({ x: null, ok: 1, y: null });
    expect(v.field_verification_error).toBe(
      "Field verification failed: x (NumericTolerance): could not convert string to float: 'five'; y (NumericTolerance): could not convert string to float: 'six'",
    );
  });

  it("says a field without verify_with has none, instead of throwing while reporting it", () => {
    const t = template({ fields: [bool("a"), bool("b")] });
    const broken = { ...t, fields: [t.fields[0]!, { ...t.fields[1]!, verify_with: undefined }] } as AnswerTemplate;
    const v = verifyFields(broken, { a: true, b: true });
    expect(v.field_results).toEqual({ a: true, b: null });
    expect(v.field_verification_error).toBe(
      "Field verification failed: b (no verify_with): no verify_with (a custom_verify field verified as a primitive one)",
    );
  });

  it("falls back to the binary outcome when a primitive's score() throws, as Karenina does", () => {
    vi.spyOn(PRIMITIVES.NumericGraded, "score").mockImplementation(() => {
      throw new Error("score blew up");
    });
    // Unmocked, both doses below would score partial credit (0.5 and 2/3), not 1 and 0.
    const graded = (params: Record<string, unknown>) =>
      template({
        fields: [
          { name: "dose", type: "float" as const, description: "dose", ground_truth: 100, verify_with: { type: "NumericGraded", params } },
          bool("ok"),
        ],
      });
    const pass = verifyFields(graded({ cutoff: 0.1 }), { dose: 105, ok: true });
    expect(pass.field_results).toEqual({ dose: true, ok: true });
    expect(pass.field_scores).toEqual({ dose: 1, ok: 1 });
    expect(pass.field_verification_error).toBeNull();
    const fail = verifyFields(graded({ cutoff: 0.2, full_credit: 0.05 }), { dose: 110, ok: true });
    expect(fail.field_results).toEqual({ dose: false, ok: true });
    expect(fail.field_scores).toEqual({ dose: 0, ok: 1 });
    expect(fail.verify_granular_result).toBe(0.5);
  });
});
