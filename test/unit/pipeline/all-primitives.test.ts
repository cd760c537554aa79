/**
 * Every primitive and every strategy through the real pipeline (scripted models): what the judge
 * extracts goes through ParseTemplate's schema, VerifyTemplate grades it, FinalizeResult records
 * verify_result, verify_granular_result, field_results, field_scores and composition_strategy.
 */
import { describe, expect, it } from "vitest";
import { runPipeline } from "../../../src/pipeline/orchestrator";
import type { PipelineInput } from "../../../src/pipeline/types";
import { Question } from "../../../src/schemas/benchmark";
import { ModelConfig } from "../../../src/schemas/model-config";
import { VerificationResult } from "../../../src/schemas/result";
import { PRIMITIVE_NAMES } from "../../../src/templates";
import { scriptedPort } from "../../support/scripted-port";

const answering = ModelConfig.parse({ id: "ans", interface: "openai_compatible", model_name: "m-ans", base_url: "http://x/v1" });
const parsing = ModelConfig.parse({ id: "judge", interface: "openai_compatible", model_name: "m-judge", base_url: "http://x/v1" });

const fc = (field_name: string) => ({ type: "field_check", field_name });
const f = (
  name: string,
  type: string,
  ground_truth: unknown,
  verify_with: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => ({
  name,
  type,
  description: `the ${name.replace(/_/g, " ")}`,
  ground_truth,
  verify_with,
  ...extra,
});

const TEMPLATES = {
  text: {
    fields: [
      f("gene", "str", "BCL2", { type: "ExactMatch" }, { weight: 2 }),
      f("mechanism", "str", "inhibitor", { type: "ContainsAny", substrings: ["inhibit", "antagon"], normalize: ["lowercase"] }),
      f("pathway", "str", "mitochondrial apoptosis", {
        type: "ContainsAll",
        substrings: ["apoptosis", "mitochondrial"],
        normalize: ["lowercase"],
      }),
      f("symbol", "str", "BCL2", { type: "RegexMatch", pattern: "^BCL-?2$", flags: ["IGNORECASE"] }),
      f("indications", "list_str", ["CLL", "AML"], { type: "SetContainment", mode: "superset" }, { weight: 2 }),
      f("steps", "list_str", ["bind", "release", "apoptose"], { type: "OrderedMatch" }),
      f("phase", "literal", "III", { type: "LiteralMatch" }, { literal_values: ["I", "II", "III", "IV"] }),
      f("approved", "bool", true, { type: "BooleanMatch" }),
    ],
    verify_strategy: {
      type: "all_of",
      conditions: [
        fc("gene"),
        fc("symbol"),
        { type: "any_of", conditions: [fc("mechanism"), fc("pathway")] },
        { type: "at_least_n", n: 2, conditions: [fc("indications"), fc("steps"), fc("phase")] },
        fc("approved"),
      ],
    },
  },
  numeric: {
    fields: [
      f("exact", "float", 7, { type: "NumericExact" }),
      f("tolerance", "float", 37, { type: "NumericTolerance", tolerance: 0.5, mode: "absolute" }),
      f("graded", "float", 100, { type: "NumericGraded", cutoff: 0.2, full_credit: 0.05 }),
      f("range", "float", null, { type: "NumericRange", min: 0, max: 14, exclusive_max: true }),
      f("range_graded", "float", null, { type: "NumericRangeGraded", min: 10, max: 20, margin: 5 }),
      f("minimum", "int", 18, { type: "NumericMinimum" }),
      f("maximum", "float", 5, { type: "NumericMaximum", exclusive: true }),
      f("threshold", "float", 100, { type: "NumericThresholdGraded", direction: "max", margin: 0.1 }),
    ],
    verify_strategy: {
      type: "at_least_n",
      n: 5,
      conditions: ["exact", "tolerance", "graded", "range", "range_graded", "minimum", "maximum", "threshold"].map(fc),
    },
  },
  dates_and_trace: {
    fields: [
      f("approval", "date", "2016-04-11", { type: "DateMatch" }, { weight: 3 }),
      f("first_trial", "date", "2011-06-01", { type: "DateTolerance", tolerance: 30 }),
      f("label_update", "date", null, { type: "DateRange", min: "2015-01-01", max: "2016-12-31" }),
      f("cites_trial", "bool", true, { type: "TraceRegex", pattern: "NCT\\d{8}" }),
      f("no_refusal", "bool", false, { type: "TraceContains", substring: "I cannot" }),
      f("concise", "bool", true, { type: "TraceLength", max: 50, unit: "words" }),
    ],
    verify_strategy: {
      type: "any_of",
      conditions: [{ type: "all_of", conditions: [fc("first_trial"), fc("label_update")] }, fc("approval")],
    },
  },
  trace_only: {
    fields: [
      f("cites_trial", "bool", true, { type: "TraceRegex", pattern: "NCT(\\d{8})", count_min: 1 }),
      f("names_target", "bool", true, { type: "TraceContains", substring: "BCL2" }),
    ],
    verify_strategy: fc("cites_trial"),
  },
  semantic: {
    fields: [
      f("summary", "str", "blocks BCL2 to restore apoptosis", { type: "SemanticMatch" }),
      f("approved", "bool", true, { type: "BooleanMatch" }),
    ],
  },
};

const ANSWER = "Venetoclax (approved April 11, 2016) inhibits BCL2; see NCT01328626.";

async function grade(template: unknown, extracted: Record<string, unknown>, answer = ANSWER) {
  const judge = scriptedPort({ structured: () => extracted });
  const input: PipelineInput = {
    run_id: "run-1",
    run_name: null,
    question: Question.parse({ id: "q1", question: "Describe venetoclax.", template }),
    answering,
    parsing,
    replicate: 1,
    settings: { evaluation_mode: "template_only", include_extraction_hints: true },
  };
  const clock = {
    now: (() => {
      let t = 0;
      return () => (t += 10);
    })(),
  };
  const { result } = await runPipeline(input, { answerer: scriptedPort({ chat: () => answer }), judge, clock });
  expect(VerificationResult.parse(result)).toEqual(result);
  return { t: result.template!, judge, result };
}

describe("a run using every primitive and every strategy", () => {
  it("covers all 23 primitives", () => {
    const used = new Set(Object.values(TEMPLATES).flatMap((t) => t.fields.map((x) => x.verify_with.type as string)));
    expect([...used].sort()).toEqual([...PRIMITIVE_NAMES].sort());
  });

  it("text primitives under all_of( …, any_of, at_least_n(2) ): a failing ContainsAll is rescued by any_of", async () => {
    const { t } = await grade(TEMPLATES.text, {
      gene: "bcl2 ",
      mechanism: "Selective INHIBITOR",
      pathway: "intrinsic apoptosis",
      symbol: "Bcl-2",
      indications: ["CLL", "AML", "SLL"],
      steps: ["Bind", "Release", "Apoptose"],
      phase: "III",
      approved: true,
    });
    expect(t.field_results).toEqual({
      gene: true,
      mechanism: true,
      pathway: false,
      symbol: true,
      indications: true,
      steps: true,
      phase: true,
      approved: true,
    });
    expect(t.verify_result).toBe(true);
    expect(t.verify_granular_result).toBeCloseTo(9 / 10, 12); // weights 2,1,1,1,2,1,1,1; pathway's 1 missing
    expect(t.composition_strategy).toBe("all_of");
  });

  it("an unanswered field is null, fails its node and keeps its weight in the denominator", async () => {
    const { t } = await grade(TEMPLATES.text, {
      gene: null,
      mechanism: "inhibitor",
      pathway: "apoptosis",
      symbol: "BCL2",
      indications: ["CLL", "AML"],
      steps: ["bind", "release", "apoptose"],
      phase: "III",
      approved: true,
    });
    expect(t.field_results).toMatchObject({ gene: null, pathway: false });
    expect(t.verify_result).toBe(false);
    expect(t.verify_granular_result).toBeCloseTo(7 / 10, 12);
  });

  it("numeric primitives under at_least_n(5): four pass, and the top five contributions include partial credit", async () => {
    const { t } = await grade(TEMPLATES.numeric, {
      exact: 7,
      tolerance: 37.2,
      graded: 110, // d = 0.1: past full_credit 0.05, so check false, score 1 − 0.05/0.15
      range: 7.4,
      range_graded: 22, // 2 past max with a margin of 5: score 0.6
      minimum: 21,
      maximum: 5, // exclusive: 5 is not < 5
      threshold: 105, // 5% over a 10% margin: score 0.5
    });
    expect(t.field_results).toEqual({
      exact: true,
      tolerance: true,
      graded: false,
      range: true,
      range_graded: false,
      minimum: true,
      maximum: false,
      threshold: false,
    });
    expect(t.field_scores).toMatchObject({
      exact: 1,
      maximum: 0,
      range_graded: expect.closeTo(0.6, 12),
      threshold: expect.closeTo(0.5, 12),
    });
    expect(t.field_scores!.graded).toBeCloseTo(2 / 3, 12);
    expect(t.verify_result).toBe(false);
    expect(t.verify_granular_result).toBeCloseTo((4 + 2 / 3) / 8, 12);
    expect(t.composition_strategy).toBe("at_least_n(5)");
  });

  it("dates and trace fields under any_of: the judge never sees the trace fields, DateMatch carries the verdict", async () => {
    const { t, judge } = await grade(TEMPLATES.dates_and_trace, {
      approval: "April 11, 2016",
      first_trial: "2011-08-15",
      label_update: "2017-02-01",
    });
    expect(t.field_results).toEqual({
      approval: true,
      first_trial: false,
      label_update: false,
      cites_trial: true,
      no_refusal: true,
      concise: true,
    });
    expect(t.verify_result).toBe(true);
    expect(t.verify_granular_result).toBeCloseTo(3 / 8, 12); // any_of: the best single contribution (approval, weight 3)
    expect(t.composition_strategy).toBe("any_of");
    const prompt = judge.calls[0]!.messages.map((m) => m.content).join("\n");
    expect(prompt).toContain("first_trial");
    expect(prompt).not.toMatch(/cites_trial|no_refusal|concise/);
  });

  it("a trace field with a false ground truth fails when the text is there", async () => {
    const { t } = await grade(
      TEMPLATES.dates_and_trace,
      { approval: "2016-04-11", first_trial: "2011-06-20", label_update: "2016-01-01" },
      "I cannot answer that. NCT01328626",
    );
    expect(t.field_results).toMatchObject({ no_refusal: false, cites_trial: true, first_trial: true, label_update: true });
    expect(t.verify_result).toBe(true);
  });

  it("a template of trace fields only makes no judge call; a field_check root is labelled as Karenina labels it", async () => {
    const { t, judge } = await grade(TEMPLATES.trace_only, {}, "See NCT01328626 for details.");
    expect(judge.calls).toHaveLength(0);
    expect(t.field_results).toEqual({ cites_trial: true, names_target: false });
    expect(t.verify_result).toBe(true);
    expect(t.verify_granular_result).toBe(0.5);
    expect(t.composition_strategy).toBe("fieldcheck");
  });

  it("SemanticMatch without the embedding check is a field_verification_error and a failed verdict, never a pass", async () => {
    const { t } = await grade(TEMPLATES.semantic, { summary: "blocks BCL2 to restore apoptosis", approved: true });
    expect(t.verify_result).toBe(false);
    expect(t.field_verification_error).toContain("SemanticMatch is decided by the embedding check");
    expect(t.verify_granular_result).toBeNull();
    expect(t.field_results).toEqual({ summary: null, approved: true });
  });
});
