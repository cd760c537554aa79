import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exportTemplate, templateExportProblem } from "../../../src/karenina/template-export";
import { importTemplate } from "../../../src/karenina/template-import";
import { AnswerTemplate } from "../../../src/templates/template-schema";

/** Text with what breaks naive code generation: quotes, backslashes, newlines, braces, unicode. */
const text = fc
  .string({ unit: fc.constantFrom("a", "Z", " ", "'", '"', "\\", "\n", "\t", "{", "}", "é", "😀", "#", "$1"), minLength: 1, maxLength: 12 })
  .filter((s) => s.trim().length > 0);
/** Python keywords cannot name a field in Python at all (export refuses them; tested separately). */
const KEYWORDS = new Set([
  "and",
  "as",
  "assert",
  "async",
  "await",
  "break",
  "class",
  "continue",
  "def",
  "del",
  "elif",
  "else",
  "except",
  "finally",
  "for",
  "from",
  "global",
  "if",
  "import",
  "in",
  "is",
  "lambda",
  "nonlocal",
  "not",
  "or",
  "pass",
  "raise",
  "return",
  "try",
  "while",
  "with",
  "yield",
]);
const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/).filter((n) => n !== "id" && n !== "correct" && !KEYWORDS.has(n));
const normalize = fc.array(
  fc.oneof(
    fc.constantFrom("lowercase", "strip", "remove_punctuation", "collapse_whitespace"),
    fc.record({ mapping: fc.dictionary(text, text, { maxKeys: 2 }) }),
  ),
  { maxLength: 3 },
);

/** A field of each family, with parameters drawn at random. */
const field = (n: string) =>
  fc
    .oneof(
      fc.record({
        type: fc.constant("bool"),
        ground_truth: fc.oneof(fc.boolean(), fc.constant(null)),
        verify_with: fc.constant({ type: "BooleanMatch" }),
      }),
      fc.record({
        type: fc.constant("str"),
        ground_truth: text,
        verify_with: normalize.map((nz) => ({ type: "ExactMatch", params: { normalize: nz } })),
      }),
      fc.record({
        type: fc.constant("str"),
        ground_truth: text,
        verify_with: fc.array(text, { minLength: 1, maxLength: 3 }).map((subs) => ({ type: "ContainsAny", params: { substrings: subs } })),
      }),
      fc.record({
        type: fc.constantFrom("float", "int"),
        ground_truth: fc.integer({ min: -1000, max: 1000 }),
        verify_with: fc
          .record({ tolerance: fc.double({ min: 0.001, max: 100, noNaN: true }), mode: fc.constantFrom("absolute", "relative") })
          .map((p) => ({ type: "NumericTolerance", params: p })),
      }),
      fc.record({
        type: fc.constant("list_str"),
        ground_truth: fc.array(text, { maxLength: 3 }),
        verify_with: fc.constantFrom("exact", "subset", "superset").map((mode) => ({ type: "SetContainment", params: { mode } })),
      }),
      fc.uniqueArray(text, { minLength: 1, maxLength: 3 }).chain((values) =>
        fc.record({
          type: fc.constant("literal"),
          literal_values: fc.constant(values),
          ground_truth: fc.constantFrom(...values),
          verify_with: fc.constant({ type: "LiteralMatch" }),
        }),
      ),
    )
    .chain((f) =>
      fc
        .record({
          description: text,
          weight: fc.oneof(fc.constant(1), fc.double({ min: 0.1, max: 10, noNaN: true })),
          extraction_hint: fc.option(text, { nil: undefined }),
        })
        .map((extra) => ({ name: n, ...f, ...extra })),
    );

const template = fc.uniqueArray(name, { minLength: 1, maxLength: 4 }).chain((names) =>
  fc.record({
    fields: fc.tuple(...names.map(field)),
    verify_strategy: fc.option(
      fc.constantFrom("all_of", "any_of", "at_least_n").map((type) => ({
        type,
        ...(type === "at_least_n" ? { n: 1 } : {}),
        conditions: names.map((field_name) => ({ type: "field_check", field_name })),
      })),
      { nil: undefined },
    ),
    regex: fc.option(
      fc
        .array(
          fc.record({
            name,
            pattern: fc.constantFrom("\\d+", "(?i)yes", "NCT\\d{8}", "a'b\"c"),
            expected: fc.constant("x"),
            match_type: fc.constant("contains"),
          }),
          { minLength: 1, maxLength: 2 },
        )
        .map((rs) => rs.map((r, i) => ({ ...r, name: `${r.name}${i}` }))),
      { nil: undefined },
    ),
  }),
);

describe("VerifiedField export", () => {
  it("imports back to the same template, for any declarative template (fast-check)", () => {
    fc.assert(
      fc.property(template, (input) => {
        const t = AnswerTemplate.parse({ class_name: "Answer", ...input });
        const source = exportTemplate(t)!;
        const back = importTemplate(source);
        if (!back.ok) throw new Error(`${back.error}\n${source}`);
        expect(AnswerTemplate.parse(back.template)).toEqual(t);
      }),
      { numRuns: 150 },
    );
  });

  it("refuses a field named with a Python keyword instead of writing Python that cannot parse", () => {
    const t = AnswerTemplate.parse({
      fields: [{ name: "as", type: "bool", description: "d", ground_truth: true, verify_with: { type: "BooleanMatch" } }],
    });
    expect(exportTemplate(t)).toBeNull();
    expect(templateExportProblem(t)).toMatch(/"as" is a Python keyword/);
  });
});
