#!/usr/bin/env node
// node bench/templates.mjs — cost of deterministic template grading, per template shape.
//
// Bundles the grading core with esbuild (the same TS the Worker runs) into a temp file, imports
// it, and times, per shape:
//   verify  — one result's deterministic verification: the judge's reply through the judge
//             schema (the parsed answer), verifyFields (primitives, composition, granular score)
//             and the regex checks on the raw answer. The judge schema is built once per template.
//   schema  — building the judge schema for a new template object (memoised per object after
//             that: the guard, parsing and deep-judgment stages of one job share it).
//   import  — AnswerTemplate.parse of the template JSON (submit / import validation).
// Each figure is the median and p95 over batches of 200 calls, in µs per call, after a warm-up.
// Target: verify ≤ 30 µs median per result. Prints a table; asserts nothing.
//
//   node bench/templates.mjs [--batches N (default 200)]
import { importTs, timePerCall } from "./lib/ts-bundle.mjs";

const BATCH = 200;
const batches = Number(process.argv[process.argv.indexOf("--batches") + 1]) || 200;

const bool = (name, gt = true, weight = 1) => ({
  name,
  type: "bool",
  description: `whether ${name}`,
  ground_truth: gt,
  verify_with: { type: "BooleanMatch" },
  weight,
});
const fc = (field_name) => ({ type: "field_check", field_name });
const TRACE =
  "Venetoclax (approved April 11, 2016) inhibits BCL2 in CLL; trials NCT01328626 and NCT02203773. It is an mRNA-free small molecule.";

/** Each shape: a template, and judge replies to rotate through (so no single input is cached). */
const SHAPES = {
  "single bool": {
    template: { fields: [bool("identifies_bcl2")] },
    replies: [{ identifies_bcl2: true }, { identifies_bcl2: false }, { identifies_bcl2: null }],
  },
  "multi-field weighted": {
    template: {
      fields: [
        {
          name: "delivery_mechanism",
          type: "str",
          description: "delivery",
          ground_truth: "mRNA",
          weight: 2,
          verify_with: { type: "ContainsAny", substrings: ["mrna", "messenger rna"], normalize: ["lowercase"] },
        },
        {
          name: "target_protein",
          type: "str",
          description: "antigen",
          ground_truth: "spike",
          weight: 2,
          verify_with: { type: "ExactMatch" },
        },
        {
          name: "indications",
          type: "list_str",
          description: "indications",
          ground_truth: ["CLL", "AML"],
          verify_with: { type: "SetContainment", mode: "superset" },
        },
        bool("mentions_immune_response"),
      ],
    },
    replies: [
      {
        delivery_mechanism: "Messenger RNA in lipid nanoparticles",
        target_protein: " Spike ",
        indications: ["CLL", "AML", "SLL"],
        mentions_immune_response: true,
      },
      { delivery_mechanism: "viral vector", target_protein: "nucleocapsid", indications: ["CLL"], mentions_immune_response: "true" },
    ],
  },
  "numeric graded": {
    template: {
      fields: [
        {
          name: "dose_mg",
          type: "float",
          description: "dose",
          ground_truth: 400,
          verify_with: { type: "NumericGraded", cutoff: 0.2, full_credit: 0.05 },
        },
        {
          name: "half_life_h",
          type: "float",
          description: "half-life",
          ground_truth: 26,
          verify_with: { type: "NumericTolerance", tolerance: 0.1 },
        },
        {
          name: "response_rate",
          type: "float",
          description: "ORR",
          ground_truth: null,
          verify_with: { type: "NumericRangeGraded", min: 70, max: 80, margin: 5 },
        },
        {
          name: "max_age",
          type: "int",
          description: "max age",
          ground_truth: 75,
          verify_with: { type: "NumericThresholdGraded", direction: "max", margin: 0.1 },
        },
      ],
    },
    replies: [
      { dose_mg: 420, half_life_h: "25", response_rate: 79.5, max_age: 78 },
      { dose_mg: 500, half_life_h: 30, response_rate: 60, max_age: 70 },
    ],
  },
  dates: {
    template: {
      fields: [
        { name: "approval", type: "date", description: "approval date", ground_truth: "2016-04-11", verify_with: { type: "DateMatch" } },
        {
          name: "first_trial",
          type: "date",
          description: "first trial",
          ground_truth: "2011-06-01",
          verify_with: { type: "DateTolerance", tolerance: 30 },
        },
        {
          name: "label_update",
          type: "date",
          description: "label update",
          ground_truth: null,
          verify_with: { type: "DateRange", min: "2015-01-01", max: "2016-12-31" },
        },
      ],
    },
    replies: [
      { approval: "April 11, 2016", first_trial: "2011-06-20", label_update: "March 5, 2016" },
      { approval: "11/04/2016", first_trial: "June 2012", label_update: "2017-01-01T10:00" },
    ],
  },
  "regex checks": {
    template: {
      fields: [bool("identifies_bcl2")],
      regex: [
        { name: "trials", pattern: "NCT\\d{8}", expected: 2, match_type: "count" },
        { name: "target", pattern: "(?i)inhibits (?P<t>\\w+)", expected: "BCL2", match_type: "exact" },
        { name: "ids", pattern: "(NCT)(\\d{8})", expected: ["NCT"], match_type: "all" },
      ],
    },
    replies: [{ identifies_bcl2: true }, { identifies_bcl2: false }],
  },
  "nested strategy + trace": {
    template: {
      fields: [
        bool("a", true, 3),
        bool("b", true, 2),
        bool("c"),
        bool("d"),
        bool("e"),
        {
          name: "cites_trial",
          type: "bool",
          description: "cites",
          ground_truth: true,
          verify_with: { type: "TraceRegex", pattern: "NCT\\d{8}" },
        },
      ],
      verify_strategy: {
        type: "any_of",
        conditions: [
          fc("a"),
          {
            type: "all_of",
            conditions: [fc("b"), fc("cites_trial"), { type: "at_least_n", n: 2, conditions: [fc("c"), fc("d"), fc("e")] }],
          },
        ],
      },
    },
    replies: [
      { a: false, b: true, c: true, d: null, e: true },
      { a: true, b: false, c: false, d: false, e: null },
    ],
  },
};

const core = await importTs([
  'export { AnswerTemplate } from "./src/templates/template-schema";',
  'export { buildJudgeSchema, verifyFields, runRegexChecks } from "./src/templates";',
]);
const time = (fn) => timePerCall(fn, { batch: BATCH, batches, warmupBatches: 20 });
const rows = [];
for (const [name, shape] of Object.entries(SHAPES)) {
  const template = core.AnswerTemplate.parse(shape.template);
  const { schema } = core.buildJudgeSchema(template);
  const checks = template.regex ?? [];
  let sink = 0;
  const verify = time((i) => {
    const parsed = schema.parse(shape.replies[i % shape.replies.length]);
    const v = core.verifyFields(template, parsed, { rawTrace: TRACE });
    const r = checks.length ? core.runRegexChecks(checks, TRACE) : null;
    sink += (v.verify_granular_result ?? 0) + (v.verify_result && (r?.success ?? true) ? 1 : 0);
  });
  const judgeSchema = time(() => core.buildJudgeSchema({ ...template })); // a new object: not memoised
  const imp = time(() => core.AnswerTemplate.parse(shape.template));
  if (Number.isNaN(sink)) throw new Error("unreachable: keeps the work observable");
  rows.push({ name, verify, judgeSchema, imp });
}

const fmt = (x) => x.toFixed(1).padStart(7);
const line = (cells) => `| ${cells.join(" | ")} |`;
console.log(`template grading, µs per call (median / p95 over ${batches} batches of ${BATCH}); node ${process.version}\n`);
console.log(line(["shape".padEnd(24), "verify med", "verify p95", "schema med", "import med", "import p95"]));
console.log(line(["-".repeat(24), "-".repeat(10), "-".repeat(10), "-".repeat(10), "-".repeat(10), "-".repeat(10)]));
for (const r of rows) {
  console.log(
    line([
      r.name.padEnd(24),
      fmt(r.verify.median).padStart(10),
      fmt(r.verify.p95).padStart(10),
      fmt(r.judgeSchema.median).padStart(10),
      fmt(r.imp.median).padStart(10),
      fmt(r.imp.p95).padStart(10),
    ]),
  );
}
const worst = Math.max(...rows.map((r) => r.verify.median));
console.log(`\nworst verify median: ${worst.toFixed(1)} µs per result (target ≤ 30 µs) — ${worst <= 30 ? "within target" : "OVER TARGET"}`);
