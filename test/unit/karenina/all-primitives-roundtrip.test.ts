import { describe, expect, it } from "vitest";
import { exportTemplate } from "../../../src/karenina/template-export";
import { importTemplate } from "../../../src/karenina/template-import";
import { AnswerTemplate } from "../../../src/templates/template-schema";
import { PRIMITIVE_NAMES } from "../../../src/templates";

const f = (
  name: string,
  type: string,
  ground_truth: unknown,
  verify_with: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => ({
  name,
  type,
  description: `the ${name}`,
  ground_truth,
  verify_with,
  ...extra,
});

/** Every primitive with non-default parameters, so each one's parameters must survive. */
const FIELDS = [
  f("gene", "str", "BCL2", { type: "ExactMatch", normalize: ["strip", { mapping: { "bcl-2": "bcl2" } }] }, { weight: 2 }),
  f("mechanism", "str", "x", { type: "ContainsAny", substrings: ["inhibit", "antagon"], normalize: ["lowercase"] }),
  f("pathway", "str", "x", { type: "ContainsAll", substrings: ["apoptosis", "mitochondrial"] }),
  f("symbol", "str", "BCL2", { type: "RegexMatch", pattern: "^BCL-?2$", flags: ["IGNORECASE"] }),
  f("summary", "str", "blocks BCL2", { type: "SemanticMatch", threshold: 0.7 }),
  f("indications", "list_str", ["CLL", "AML"], { type: "SetContainment", mode: "overlap", min_overlap: 2 }),
  f("steps", "list_str", ["bind", "release"], { type: "OrderedMatch", normalize: [] }),
  f("phase", "literal", "III", { type: "LiteralMatch" }, { literal_values: ["I", "II", "III"] }),
  f("approved", "bool", true, { type: "BooleanMatch" }),
  f("exact", "float", 7.5, { type: "NumericExact" }),
  f("tolerance", "float", 37, { type: "NumericTolerance", tolerance: 0.5, mode: "absolute" }),
  f("graded", "float", 100, { type: "NumericGraded", cutoff: 0.2, full_credit: 0.05, decay: "quadratic" }),
  f("range", "float", null, { type: "NumericRange", min: 0, max: 14, exclusive_max: true }),
  f("range_graded", "float", null, { type: "NumericRangeGraded", min: 10, max: 20, margin: 5, mode: "relative" }),
  f("minimum", "int", 18, { type: "NumericMinimum" }),
  f("maximum", "float", 5, { type: "NumericMaximum", exclusive: true }),
  f("threshold", "float", 100, { type: "NumericThresholdGraded", direction: "max", margin: 0.1 }),
  f("approval", "date", "2016-04-11", { type: "DateMatch", format: "%Y-%m-%d" }),
  f("first_trial", "date", "2011-06-01", { type: "DateTolerance", tolerance: 30, unit: "hours" }),
  f("label_update", "date", null, { type: "DateRange", min: "2015-01-01", max: "2016-12-31" }),
  f("cites_trial", "bool", true, { type: "TraceRegex", pattern: "NCT(\\d{8})", count_min: 2 }),
  f("no_refusal", "bool", false, { type: "TraceContains", substring: "I cannot" }),
  f("concise", "bool", true, { type: "TraceLength", max: 50, unit: "words" }),
];

describe("VerifiedField export of every primitive", () => {
  it("covers all primitives", () => {
    expect(new Set(FIELDS.map((x) => x.verify_with.type))).toEqual(new Set(PRIMITIVE_NAMES));
  });

  it("imports back to the same template, parameters included", () => {
    const t = AnswerTemplate.parse({
      class_name: "Answer",
      fields: FIELDS,
      verify_strategy: {
        type: "at_least_n",
        n: 3,
        conditions: [
          { type: "field_check", field_name: "gene" },
          { type: "any_of", conditions: FIELDS.slice(1).map((x) => ({ type: "field_check", field_name: x.name })) },
        ],
      },
    });
    const source = exportTemplate(t)!;
    const back = importTemplate(source);
    if (!back.ok) throw new Error(back.error);
    expect(AnswerTemplate.parse(back.template)).toEqual(t);
  });
});
