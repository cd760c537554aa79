import { describe, expect, it } from "vitest";
import { AnswerTemplate } from "../../../src/templates/template-schema";
import { expectIssue, parseOk } from "./issues";

const field = (over: Record<string, unknown> = {}) => ({
  name: "gene_symbol",
  type: "str",
  description: "The official gene symbol",
  ground_truth: "BCL2",
  verify_with: { type: "ExactMatch" },
  ...over,
});
const withField = (over: Record<string, unknown>) => ({ fields: [field(over)] });

describe("AnswerTemplate accepts", () => {
  it("a field with defaults filled in (weight 1, ExactMatch normalize)", () => {
    const t = parseOk(AnswerTemplate, { fields: [field()] });
    expect(t.fields[0]).toMatchObject({ weight: 1, verify_with: { type: "ExactMatch", params: { normalize: ["lowercase", "strip"] } } });
  });
  it("a regex-only template with fields: []", () => {
    const t = parseOk(AnswerTemplate, { fields: [], regex: [{ name: "nct", pattern: "NCT\\d{8}", expected: 1, match_type: "count" }] });
    expect(t.fields).toEqual([]);
  });
  it("a trace field: bool, is_trace true or left out", () => {
    const t = parseOk(AnswerTemplate, {
      fields: [field({ type: "bool", ground_truth: false, is_trace: true, verify_with: { type: "TraceContains", substring: "I cannot" } })],
    });
    expect(t.fields[0]!.verify_with).toEqual({ type: "TraceContains", params: { substring: "I cannot" } });
    parseOk(AnswerTemplate, {
      fields: [field({ type: "bool", ground_truth: true, verify_with: { type: "TraceLength", params: { max: 200, unit: "words" } } })],
    });
  });
  it("a null ground truth for any type, and Karenina TemplateSpec's class_name / is_trace: false", () => {
    parseOk(AnswerTemplate, { class_name: "Answer", fields: [field({ ground_truth: null, is_trace: false, extraction_hint: null })] });
  });
  it("a nested strategy naming existing fields", () => {
    parseOk(AnswerTemplate, {
      fields: [field(), field({ name: "chromosome", ground_truth: "18" })],
      verify_strategy: {
        type: "at_least_n",
        n: 1,
        conditions: [
          { type: "field_check", field_name: "gene_symbol" },
          { type: "all_of", conditions: [{ type: "field_check", field_name: "chromosome" }] },
        ],
      },
    });
  });
});

describe("AnswerTemplate rejects, at the exact path", () => {
  it.each<[string, unknown, string, RegExp]>([
    ["a template with no fields and no regex", { fields: [] }, "fields", /at least one field or one regex check/],
    ["an unknown top-level key", { fields: [field()], strategy: {} }, "", /Unrecognized key: "strategy"/],
    ["an unknown key on a field", withField({ hint: "x" }), "fields[0]", /Unrecognized key: "hint"/],
    [
      "an unknown key inside a strategy node",
      {
        fields: [field()],
        verify_strategy: { type: "all_of", conditions: [{ type: "field_check", field_name: "gene_symbol", weight: 2 }] },
      },
      "verify_strategy.conditions[0]",
      /Unrecognized key: "weight"/,
    ],
    ["a field name that is not an identifier", withField({ name: "gene symbol" }), "fields[0].name", /must be an identifier/],
    ["the reserved name id", withField({ name: "id" }), "fields[0].name", /reserved/],
    ["the reserved name correct", withField({ name: "correct" }), "fields[0].name", /reserved/],
    [
      "a duplicate field name",
      { fields: [field(), field()] },
      "fields[1].name",
      /duplicate field name "gene_symbol" \(first used at fields\[0\]\)/,
    ],
    ["an unknown field type", withField({ type: "string" }), "fields[0].type", /bool, int, float, str, list_str, literal, date/],
    ["an empty description", withField({ description: "  " }), "fields[0].description", /must not be empty/],
    ["a missing ground_truth", withField({ ground_truth: undefined }), "fields[0].ground_truth", /ground_truth is required/],
    [
      "a ground truth of the wrong type",
      withField({ type: "int", ground_truth: "3" }),
      "fields[0].ground_truth",
      /must be an integer \(or null\) for a int field/,
    ],
    ["a literal without values", withField({ type: "literal", ground_truth: "III" }), "fields[0].literal_values", /needs literal_values/],
    [
      "literal_values on a non-literal field",
      withField({ literal_values: ["a"] }),
      "fields[0].literal_values",
      /only applies to type "literal"/,
    ],
    [
      "a literal ground truth outside its values",
      withField({ type: "literal", literal_values: ["I", "II"], ground_truth: "III" }),
      "fields[0].ground_truth",
      /one of literal_values \("I", "II"\)/,
    ],
    ["a weight of 0", withField({ weight: 0 }), "fields[0].weight", /weight must be > 0/],
    [
      "an unknown primitive",
      withField({ verify_with: { type: "Levenshtein" } }),
      "fields[0].verify_with.type",
      /unknown primitive "Levenshtein"; known primitives: BooleanMatch, ExactMatch, ContainsAny, ContainsAll, RegexMatch, SemanticMatch, NumericExact, NumericTolerance, NumericGraded, NumericRange, NumericRangeGraded, NumericMinimum, NumericMaximum, NumericThresholdGraded, SetContainment, OrderedMatch, LiteralMatch, DateMatch, DateTolerance, DateRange, TraceRegex, TraceContains, TraceLength$/,
    ],
    [
      "an unknown param",
      withField({ verify_with: { type: "ExactMatch", params: { case_sensitive: true } } }),
      "fields[0].verify_with.params",
      /ExactMatch has no parameter "case_sensitive"; its parameters are normalize/,
    ],
    [
      "a param of the wrong type",
      withField({ type: "float", ground_truth: 1, verify_with: { type: "NumericTolerance", params: { tolerance: "5%" } } }),
      "fields[0].verify_with.params.tolerance",
      /^NumericTolerance: expected a number, got "5%"$/,
    ],
    [
      "is_trace on a parsed primitive",
      withField({ is_trace: true }),
      "fields[0].is_trace",
      /is_trace is true but ExactMatch is not a trace primitive/,
    ],
    [
      "is_trace: false on a trace primitive",
      withField({ type: "bool", ground_truth: true, is_trace: false, verify_with: { type: "TraceContains", substring: "NCT" } }),
      "fields[0].is_trace",
      /is_trace must be true \(or left out\) for the trace primitive TraceContains/,
    ],
    [
      "a trace primitive on a non-bool field",
      withField({ verify_with: { type: "TraceRegex", pattern: "NCT\\d{8}" } }),
      "fields[0].type",
      /a TraceRegex field must have type "bool".*not "str"/,
    ],
    [
      "a null ground truth for a primitive that compares with it",
      withField({ type: "float", ground_truth: null, verify_with: { type: "NumericTolerance", tolerance: 0.1 } }),
      "fields[0].ground_truth",
      /NumericTolerance compares the answer with the ground truth, so ground_truth cannot be null/,
    ],
    [
      "a non-numeric ground truth for a numeric primitive",
      withField({ ground_truth: "about 5", verify_with: { type: "NumericGraded", cutoff: 0.1 } }),
      "fields[0].ground_truth",
      /NumericGraded needs a numeric ground truth \(could not convert string to float: 'about 5'\)/,
    ],
    [
      "a ground truth DateMatch cannot read",
      withField({ type: "date", ground_truth: "spring 2021", verify_with: { type: "DateMatch" } }),
      "fields[0].ground_truth",
      /DateMatch needs a date as ground truth/,
    ],
    [
      "a ground truth that does not fit DateMatch's format",
      withField({ type: "date", ground_truth: "2021-03-05", verify_with: { type: "DateMatch", format: "%d/%m/%Y" } }),
      "fields[0].ground_truth",
      /DateMatch needs a date in the format "%d\/%m\/%Y" as ground truth/,
    ],
    [
      "a null ground truth for SetContainment",
      withField({ type: "list_str", ground_truth: null, verify_with: { type: "SetContainment" } }),
      "fields[0].ground_truth",
      /SetContainment needs a list as ground truth \('NoneType' object is not iterable\)/,
    ],
    [
      "a trace primitive with a pattern edgeval cannot honour",
      withField({ type: "bool", ground_truth: true, verify_with: { type: "TraceRegex", pattern: "a++" } }),
      "fields[0].verify_with.pattern",
      /possessive quantifier/,
    ],
    [
      "field_check naming a missing field",
      {
        fields: [field()],
        verify_strategy: {
          type: "any_of",
          conditions: [{ type: "all_of", conditions: [{ type: "field_check", field_name: "chromosome" }] }],
        },
      },
      "verify_strategy.conditions[0].conditions[0].field_name",
      /"chromosome", which is not a field of this template \(fields: gene_symbol\)/,
    ],
    [
      "at_least_n without n",
      { fields: [field()], verify_strategy: { type: "at_least_n", conditions: [] } },
      "verify_strategy.n",
      /at_least_n needs n/,
    ],
    [
      "field_check without field_name",
      { fields: [field()], verify_strategy: { type: "field_check" } },
      "verify_strategy.field_name",
      /needs field_name/,
    ],
    [
      "n on an all_of node",
      { fields: [field()], verify_strategy: { type: "all_of", n: 2 } },
      "verify_strategy.n",
      /only applies to at_least_n/,
    ],
    [
      "an unknown strategy type",
      { fields: [field()], verify_strategy: { type: "none_of" } },
      "verify_strategy.type",
      /all_of, any_of, at_least_n, field_check/,
    ],
    [
      "a regex pattern edgeval cannot honour",
      { fields: [], regex: [{ name: "r", pattern: "(?>x)", expected: "x" }] },
      "regex[0].pattern",
      /atomic group/,
    ],
    [
      "a count check with a string expected",
      { fields: [], regex: [{ name: "r", pattern: "x", expected: "2", match_type: "count" }] },
      "regex[0].expected",
      /an integer ≥ 0 for match_type "count"/,
    ],
    [
      "an all check with a string expected",
      { fields: [], regex: [{ name: "r", pattern: "x", expected: "x", match_type: "all" }] },
      "regex[0].expected",
      /non-empty list of strings/,
    ],
    [
      "an unknown match type",
      { fields: [], regex: [{ name: "r", pattern: "x", expected: "x", match_type: "regex" }] },
      "regex[0].match_type",
      /exact, contains, count, all/,
    ],
    [
      "duplicate regex names",
      {
        fields: [],
        regex: [
          { name: "r", pattern: "x", expected: "x" },
          { name: "r", pattern: "y", expected: "y" },
        ],
      },
      "regex[1].name",
      /duplicate regex check name "r"/,
    ],
  ])("%s", (_what, input, path, message) => {
    expectIssue(AnswerTemplate, input, path, message);
  });
});
