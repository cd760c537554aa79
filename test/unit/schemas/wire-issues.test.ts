/**
 * Issue 15 item 7: every zod issue on the wire says what was expected and what came. One table of
 * bad bodies, each checked through the same `validate` the HTTP handlers use: the issue at its
 * path, and the words that tell the caller what to fix.
 */
import { describe, expect, it } from "vitest";
import { validate, validateQuery } from "../../../src/http/body";
import { ApiFailure } from "../../../src/http/errors";
import { CreateRunRequest, ListQuery } from "../../../src/schemas/api";
import { Benchmark } from "../../../src/schemas/benchmark";
import { CalibrateRequest, JudgeRequest } from "../../../src/schemas/judge";
import { describeValue } from "../../../src/lib/wire-issues";

const provider = { id: "j", interface: "openai_compatible", model_name: "m", base_url: "http://127.0.0.1:1/v1" };
const judge = { output: "x", config: { type: "categorical", categories: ["a", "b"], provider } };
const field = { name: "f", type: "bool", description: "d", ground_truth: true, verify_with: { type: "BooleanMatch" } };
const question = { id: "q", question: "?", template: { fields: [field] } };
const bench = { name: "b", questions: [question] };
const run = { benchmark: bench, config: { answering_models: [provider], parsing_models: [provider] } };
const withField = (f: object) => ({ ...bench, questions: [{ ...question, template: { fields: [{ ...field, ...f }] } }] });

type Row = [what: string, schema: unknown, body: unknown, path: string, message: RegExp];
const ROWS: Row[] = [
  // The five of the issue, worst first.
  [
    "/v1/judge with a bad base_url",
    JudgeRequest,
    { ...judge, config: { ...judge.config, provider: { ...provider, base_url: "ftp:/x" } } },
    "config.provider.base_url",
    /http\(s\) URL \(got "ftp:\/x"\)/,
  ],
  [
    'calibrate label "yes"',
    CalibrateRequest,
    {
      config: judge.config,
      items: [
        { output: "a", label: "yes" },
        { output: "b", label: true },
      ],
    },
    "items[0].label",
    /^expected true\/false or a number, got "yes"$/,
  ],
  [
    "calibrate labels mixing pass/fail and scores",
    CalibrateRequest,
    {
      config: judge.config,
      items: [
        { output: "a", label: true },
        { output: "b", label: 4 },
      ],
    },
    "items[1].label",
    /^every label must be of one kind: items\[0\]\.label is true\/false, got a number \(4\)/,
  ],
  [
    "calibrate label_threshold beside pass/fail labels",
    CalibrateRequest,
    {
      config: judge.config,
      label_threshold: 3,
      items: [
        { output: "a", label: true },
        { output: "b", label: false },
      ],
    },
    "label_threshold",
    /^label_threshold says where a numeric label passes, and these labels are true\/false: it would change nothing; got 3/,
  ],
  [
    "vars {a: {b: 1}}",
    JudgeRequest,
    { ...judge, vars: { a: { b: 1 } } },
    "vars.a",
    /^expected a string, a number or true\/false, got an object$/,
  ],
  ['"name": 5', Benchmark, { ...bench, name: 5 }, "name", /^expected a string, got 5$/],
  [
    "input_per_mtok: -1",
    CreateRunRequest,
    { ...run, prices: { m: { input_per_mtok: -1, output_per_mtok: 1 } } },
    "prices.m.input_per_mtok",
    /^expected a number ≥ 0, got -1$/,
  ],
  // More of the same kinds.
  [
    "a field name of the wrong type",
    Benchmark,
    withField({ name: 5 }),
    "questions[0].template.fields[0].name",
    /^expected a string, got 5$/,
  ],
  ["a missing field keeps its own advice", JudgeRequest, { config: judge.config }, "output", /is required \(got nothing\)$/],
  [
    "an enum with its own message",
    Benchmark,
    withField({ type: "boolean" }),
    "questions[0].template.fields[0].type",
    /type is one of bool, .* \(got "boolean"\)$/,
  ],
  [
    "a primitive's parameter",
    Benchmark,
    withField({ type: "float", ground_truth: 1, verify_with: { type: "NumericTolerance", params: { tolerance: "x" } } }),
    "questions[0].template.fields[0].verify_with.params.tolerance",
    /^NumericTolerance: expected a number, got "x"$/,
  ],
  [
    "a union's closest alternative",
    JudgeRequest,
    { ...judge, config: { ...judge.config, extractor: { type: "regex", pattern: "bad" } } },
    "config.extractor.pattern",
    /^expected one of "first_int", "first_float", got "bad"$/,
  ],
  [
    "a number below its minimum",
    CreateRunRequest,
    { ...run, config: { ...run.config, replicate_count: 0 } },
    "config.replicate_count",
    /≥ 1 \(got 0\)$|expected .*≥ 1, got 0$/,
  ],
  [
    "a string for a number",
    CreateRunRequest,
    { ...run, config: { ...run.config, parsing_models: [{ ...provider, temperature: "hot" }] } },
    "config.parsing_models[0].temperature",
    /number \(got "hot"\)$/,
  ],
  ["a negative budget", CreateRunRequest, { ...run, budget_usd: -3 }, "budget_usd", /> 0 \(got -3\)$/],
  ["an empty list", Benchmark, { ...bench, questions: [] }, "questions", /at least one question \(got an empty list\)$/],
  ["an empty string", Benchmark, { ...bench, name: "" }, "name", /must not be empty \(got ""\)$/],
  [
    "a long string is cut short",
    Benchmark,
    withField({ type: "x".repeat(200) }),
    "questions[0].template.fields[0].type",
    /\(got "x{57}"… \(200 characters\)\)$/,
  ],
  ["a list for an object", CreateRunRequest, { ...run, config: [] }, "config", /^expected an object, got an empty list$/],
  [
    "a manual trace message",
    CreateRunRequest,
    {
      ...run,
      config: { ...run.config, answering_models: [{ interface: "manual", manual_answers: { q: [{ role: "user", content: 7 }] } }] },
    },
    "config.answering_models[0].manual_answers.q[0].content",
    /got 7/,
  ],
];

function issuesOf(schema: unknown, body: unknown) {
  try {
    validate(schema as never, body);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiFailure);
    const e = (err as ApiFailure).error;
    expect(e.code).toBe("invalid_body");
    return "issues" in e ? e.issues : [];
  }
  throw new Error("the body was accepted");
}

describe("zod issues on the wire (one shared error map)", () => {
  it.each(ROWS)("%s", (_what, schema, body, path, message) => {
    const issues = issuesOf(schema, body);
    const at = issues.filter((i) => i.path === path);
    expect(at, JSON.stringify(issues)).toHaveLength(1);
    expect(at[0]!.message).toMatch(message);
    // What came, always; never zod's bare "Invalid input" or a "required" for a value that is there.
    for (const i of issues) {
      expect(i.message, `${i.path}: ${i.message}`).not.toMatch(/^Invalid input$|Invalid input:/);
    }
    expect(at[0]!.message).toMatch(/\bgot\b/);
  });

  it("lists an unknown key at its own path", () => {
    expect(issuesOf(Benchmark, { ...bench, nme: 1 })).toEqual([{ path: "nme", message: "unknown field; remove it (check the spelling)" }]);
  });

  it("reports a bad query parameter as invalid_query, at its path in the query", () => {
    for (const [query, path, message] of [
      [{ limt: ["5"] }, "query limt", /unknown field/],
      [{ limit: ["0"] }, "query limit", /^expected a number ≥ 1, got 0$/],
      // what was sent, not what coercing made of it (NaN, 0)
      [{ limit: ["abc"] }, "query limit", /^expected a number, got "abc"$/],
      [{ limit: [""] }, "query limit", /^expected a number ≥ 1, got ""$/],
      // a second value is refused, not dropped: the first alone is not what was asked
      [{ limit: ["5", "10"] }, "query limit", /^given 2 times: give it once/],
    ] as const) {
      try {
        validateQuery(ListQuery, query);
        throw new Error("accepted");
      } catch (err) {
        const e = (err as ApiFailure).error;
        expect(e.code).toBe("invalid_query");
        expect("issues" in e && e.issues).toContainEqual({ path, message: expect.stringMatching(message) });
      }
    }
  });

  it("describes values briefly", () => {
    expect([undefined, null, "a", 1.5, false, [], [1], [1, 2], {}, { a: 1 }].map(describeValue)).toEqual([
      "nothing",
      "null",
      '"a"',
      "1.5",
      "false",
      "an empty list",
      "a list of 1 item",
      "a list of 2 items",
      "an empty object",
      "an object",
    ]);
  });
});
