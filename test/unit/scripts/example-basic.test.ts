// examples/basic: the benchmark, the config, the bundled fake script and expected.json must agree.
// The fake's own rule engine is replayed over the requests the service sends (system prompt, then
// the question; the judge prompt quotes question and answer), so a question edited in one file
// but not in the others fails here instead of in `npm start`.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { RuleBook } from "../../fake-llm/rules.mjs";
// @ts-expect-error plain-Node module without types
import { resultKey, verdictOf } from "../../../scripts/lib/runs.mjs";

const DIR = path.resolve(import.meta.dirname, "../../../examples/basic");
const read = (f: string) => JSON.parse(fs.readFileSync(path.join(DIR, f), "utf8"));

interface Field {
  name: string;
  type: string;
  verify_with: { type: string };
  weight?: number;
}
interface Question {
  id: string;
  question: string;
  template: { fields: Field[]; regex?: unknown[] };
}
interface Model {
  id: string;
  interface: string;
  system_prompt?: string;
}

const benchmark: { questions: Question[] } = read("benchmark.json");
const config: { answering_models: Model[]; parsing_models: Model[]; replicate_count: number } = read("config.json");
const script: { rules: unknown[] } = read("fake-script.json");
const expected: Record<string, string> = read("expected.json");

type Reply = { text?: string; json?: Record<string, unknown>; fault?: string } | null;
const book = new RuleBook(script.rules);
const replyFor = (text: string, kind: string): Reply => book.match({ model: "any-model-name", kind, text });
const judgeText = (q: Question, answer: string) =>
  `You are an evaluator that extracts structured information.\nParse the following response.\n\n**ORIGINAL QUESTION:**\n${q.question}\n\n**RESPONSE TO PARSE:**\n${answer}\n\n**JSON SCHEMA:** {}`;

describe("examples/basic", () => {
  it("has at least ten questions, uses all five primitives, a weighted multi-field and a regex-only template", () => {
    expect(benchmark.questions.length).toBeGreaterThanOrEqual(10);
    const prims = new Set(benchmark.questions.flatMap((q) => q.template.fields.map((f) => f.verify_with.type)));
    expect([...prims].sort()).toEqual(["BooleanMatch", "ContainsAny", "ExactMatch", "NumericTolerance", "SetContainment"]);
    expect(benchmark.questions.some((q) => q.template.fields.length > 1 && q.template.fields.some((f) => (f.weight ?? 1) !== 1))).toBe(
      true,
    );
    expect(benchmark.questions.some((q) => q.template.fields.length === 0 && (q.template.regex?.length ?? 0) > 0)).toBe(true);
  });

  it("has two answering models told apart only by their system prompts, one judge, two replicates", () => {
    expect(config.answering_models).toHaveLength(2);
    expect(config.parsing_models).toHaveLength(1);
    expect(config.replicate_count).toBe(2);
    const [a, b] = config.answering_models;
    expect(a!.system_prompt).not.toEqual(b!.system_prompt);
  });

  it("scripts an answer for every (question, answering model) and a parse for every judged answer", () => {
    for (const q of benchmark.questions) {
      for (const m of config.answering_models) {
        const answer = replyFor(`${m.system_prompt}\n${q.question}`, "chat");
        expect(answer?.text, `${q.id}|${m.id} answer`).toBeTypeOf("string");
        if (q.template.fields.length === 0) continue; // regex-only: no judge call
        const parse = replyFor(judgeText(q, answer!.text!), "structured");
        expect(parse, `${q.id}|${m.id} parse`).not.toBeNull();
        if (parse!.fault) continue;
        expect(Object.keys(parse!.json ?? {}).sort(), `${q.id}|${m.id} parse fields`).toEqual(q.template.fields.map((f) => f.name).sort());
      }
    }
  });

  it("lists exactly one verdict per question × answering model × replicate, with passes, fails and errors", () => {
    const keys = benchmark.questions.flatMap((q) =>
      config.answering_models.flatMap((m) => Array.from({ length: config.replicate_count }, (_, i) => `${q.id}|${m.id}|${i + 1}`)),
    );
    expect(Object.keys(expected).sort()).toEqual(keys.sort());
    const counts = Object.values(expected).reduce<Record<string, number>>((c, v) => ({ ...c, [v]: (c[v] ?? 0) + 1 }), {});
    expect(Object.keys(counts).sort()).toEqual(["error", "fail", "pass"]);
  });

  it("expects error exactly where the bundled judge fails", () => {
    for (const [key, verdict] of Object.entries(expected)) {
      const [qid, mid] = key.split("|");
      const q = benchmark.questions.find((x) => x.id === qid)!;
      const m = config.answering_models.find((x) => x.id === mid)!;
      const answer = replyFor(`${m.system_prompt}\n${q.question}`, "chat")!.text!;
      const judgeFails = q.template.fields.length > 0 && Boolean(replyFor(judgeText(q, answer), "structured")?.fault);
      expect(verdict === "error", key).toBe(judgeFails);
    }
  });
});

describe("verdict rules used by the scripts", () => {
  const result = (failure: unknown, verify_result: unknown, replicate: number | null = 2) => ({
    metadata: {
      question_id: "q1",
      replicate,
      answering: { interface: "manual", model_name: "m", config_id: "alpha" },
      parsing: {},
      failure,
    },
    template: { verify_result },
  });
  it("passes only a verified result without failure", () => {
    expect(verdictOf(result(null, true))).toBe("pass");
    expect(verdictOf(result(null, false))).toBe("fail");
    expect(verdictOf(result(null, null))).toBe("fail");
  });
  it("reports judge and transport failures as errors, never as wrong answers", () => {
    expect(verdictOf(result({ category: "parsing", group: "system", stage: "parse_template", reason: "" }, null))).toBe("error");
    expect(verdictOf(result({ category: "rate_limit", group: "retry", stage: "generate_answer", reason: "" }, null))).toBe("error");
    expect(verdictOf(result({ category: "abstention", group: "abstained", stage: "x", reason: "" }, null))).toBe("fail");
  });
  it("keys results by question, answering config id and replicate", () => {
    expect(resultKey(result(null, true))).toBe("q1|alpha|2");
    expect(resultKey(result(null, true, null))).toBe("q1|alpha|1");
  });
});
