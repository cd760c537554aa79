import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/app";
import { STALE_HOLDER_MS } from "../../src/http/submit-run";
import { fakeModel, TOKEN } from "./helpers";

const app = buildApp();
const sent: unknown[] = [];
const spyQueue = { send: async (m: unknown) => void sent.push(m), sendBatch: async (ms: unknown[]) => void sent.push(...ms) };
const spyEnv = () => ({ ...env, JOBS: spyQueue as unknown as Queue<unknown> });

function post(body: BodyInit, headers: Record<string, string> = {}) {
  return app.fetch(
    new Request("http://edgeval.test/v1/runs", {
      method: "POST",
      body,
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers },
    }),
    spyEnv(),
  );
}

const template = {
  fields: [{ name: "answer", type: "str", description: "the answer", ground_truth: "Paris", verify_with: { type: "ExactMatch" } }],
};
function validBody(): any {
  return {
    benchmark: { name: "b", questions: [{ id: "q1", question: "Capital of France?", template: structuredClone(template) }] },
    config: { answering_models: [fakeModel("a", "fake-a")], parsing_models: [fakeModel("j", "fake-j")] },
  };
}

async function footprint() {
  const runs = await env.DB.prepare("SELECT COUNT(*) AS n FROM runs").first<{ n: number }>();
  const keys = await env.DB.prepare("SELECT COUNT(*) AS n FROM idempotency_keys").first<{ n: number }>();
  const objects = await env.BLOBS.list({ prefix: "runs/" });
  return { runs: runs!.n, keys: keys!.n, objects: objects.objects.length, sent: sent.length };
}

type Case = [name: string, mutate: (b: any) => void, path: string];
const CASES: Case[] = [
  ["missing benchmark", (b) => delete b.benchmark, "benchmark"],
  ["unknown top-level key", (b) => (b.benchmarks = {}), "benchmarks"],
  ["benchmark name of the wrong type", (b) => (b.benchmark.name = 7), "benchmark.name"],
  ["empty question list", (b) => (b.benchmark.questions = []), "benchmark.questions"],
  ["duplicate question ids", (b) => b.benchmark.questions.push({ ...b.benchmark.questions[0] }), "benchmark.questions[1].id"],
  ["question id of the wrong type", (b) => (b.benchmark.questions[0].id = 1), "benchmark.questions[0].id"],
  ["unknown key in a question", (b) => (b.benchmark.questions[0].answer = "x"), "benchmark.questions[0].answer"],
  [
    "unknown field type",
    (b) => (b.benchmark.questions[0].template.fields[0].type = "string"),
    "benchmark.questions[0].template.fields[0].type",
  ],
  [
    "unknown key in a field",
    (b) => (b.benchmark.questions[0].template.fields[0].colour = "red"),
    "benchmark.questions[0].template.fields[0].colour",
  ],
  [
    "unknown primitive",
    (b) => (b.benchmark.questions[0].template.fields[0].verify_with = { type: "FuzzyMatch" }),
    "benchmark.questions[0].template.fields[0].verify_with",
  ],
  [
    "NumericTolerance without tolerance",
    (b) =>
      Object.assign(b.benchmark.questions[0].template.fields[0], {
        type: "float",
        ground_truth: 1,
        verify_with: { type: "NumericTolerance", params: {} },
      }),
    "benchmark.questions[0].template.fields[0].verify_with",
  ],
  [
    "literal field without literal_values",
    (b) => Object.assign(b.benchmark.questions[0].template.fields[0], { type: "literal" }),
    "benchmark.questions[0].template.fields[0]",
  ],
  [
    "template with neither fields nor regex",
    (b) => (b.benchmark.questions[0].template = { fields: [] }),
    "benchmark.questions[0].template",
  ],
  [
    "field_check naming a missing field",
    (b) => (b.benchmark.questions[0].template.verify_strategy = { type: "field_check", field_name: "nope" }),
    "benchmark.questions[0].template.verify_strategy",
  ],
  [
    "a Python custom_verify written to the JavaScript contract (issue 15 item 8)",
    (b) =>
      (b.benchmark.questions[0].template = {
        fields: [{ name: "answer", type: "str", description: "the answer", ground_truth: "Paris" }],
        custom_verify: {
          language: "python",
          source: "def verify(answer, ground_truth, context):\n    return answer['answer'] == ground_truth['answer']\n",
        },
      }),
    "benchmark.questions[0].template.custom_verify.source",
  ],
  ["replicate_count 0", (b) => (b.config.replicate_count = 0), "config.replicate_count"],
  ["no parsing model", (b) => (b.config.parsing_models = []), "config.parsing_models"],
  [
    "a manual parsing model",
    (b) => (b.config.parsing_models = [{ id: "m", interface: "manual", manual_answers: {} }]),
    "config.parsing_models[0]",
  ],
  ["openai_compatible without base_url", (b) => delete b.config.answering_models[0].base_url, "config.answering_models[0]"],
  [
    "a non-null Karenina field edgeval does not implement",
    (b) => (b.config.answering_models[0].agent_runtime = { backend: "docker" }),
    "config.answering_models[0].agent_runtime",
  ],
  [
    "an API key in the body",
    (b) => (b.config.answering_models[0].endpoint_api_key = "sk-live"),
    "config.answering_models[0].endpoint_api_key",
  ],
  [
    "api_key_secret naming the service token",
    (b) => (b.config.answering_models[0].api_key_secret = "EDGEVAL_API_TOKEN"),
    "config.answering_models[0].api_key_secret",
  ],
  [
    "a compound trait's judge model whose secret is not set",
    (b) =>
      (b.benchmark.questions[0].rubric = {
        compound_traits: [
          { name: "panel", config: { provider: { ...fakeModel("p", "fake-p"), api_key_secret: "UNSET_PANEL_KEY" }, type: "likert" } },
        ],
      }),
    "benchmark.questions[0].rubric.compound_traits[0].config.provider",
  ],
  [
    "an agentic trait's model_override that would send the OpenAI key elsewhere",
    (b) =>
      (b.benchmark.rubric = {
        agentic_traits: [
          {
            name: "agent",
            description: "checks",
            kind: "boolean",
            model_override: { id: "o", interface: "openai", model_name: "gpt-4.1", base_url: "https://collector.example/v1" },
          },
        ],
      }),
    "benchmark.rubric.agentic_traits[0].model_override.base_url",
  ],
  [
    "the OpenAI key sent to a base_url outside EDGEVAL_KEY_ORIGINS",
    (b) =>
      (b.config.answering_models[0] = {
        id: "a",
        interface: "openai",
        model_name: "gpt-4.1-mini",
        base_url: "https://collector.example/v1",
      }),
    "config.answering_models[0].base_url",
  ],
  [
    "a named secret sent to a base_url outside EDGEVAL_KEY_ORIGINS",
    (b) => Object.assign(b.config.parsing_models[0], { base_url: "http://10.0.0.9:8000/v1", api_key_secret: "FAKE_PROVIDER_KEY" }),
    "config.parsing_models[0].base_url",
  ],
  ["an unknown evaluation mode", (b) => (b.config.evaluation_mode = "fast"), "config.evaluation_mode"],
  [
    "deep-judgment search without the TAVILY_API_KEY secret",
    (b) => Object.assign(b.config, { deep_judgment_mode: "full", deep_judgment_search_enabled: true }),
    "config.deep_judgment_search_enabled",
  ],
  ["unknown config key", (b) => (b.config.judge_everything = true), "config.judge_everything"],
  ["question_ids naming a missing question", (b) => (b.config.question_ids = ["q1", "q9"]), "config.question_ids[1]"],
  [
    "manual answers missing a question",
    (b) => (b.config.answering_models = [{ id: "m", interface: "manual", manual_answers: { other: "x" } }]),
    "config.answering_models[0].manual_answers",
  ],
  [
    "an OpenAI model without the OPENAI_API_KEY secret",
    (b) => (b.config.answering_models = [{ id: "o", interface: "openai", model_name: "gpt-4.1-mini" }]),
    "config.answering_models[0]",
  ],
  ["empty run_name", (b) => (b.run_name = ""), "run_name"],
  [
    "an Anthropic temperature above 1 (every call would be refused)",
    (b) => (b.config.answering_models = [{ id: "c", interface: "anthropic", model_name: "claude-sonnet-4-5", temperature: 1.5 }]),
    "config.answering_models[0].temperature",
  ],
  [
    "an OpenAI temperature above 2",
    (b) => (b.config.parsing_models = [{ id: "o", interface: "openai", model_name: "gpt-4.1-mini", temperature: 2.5 }]),
    "config.parsing_models[0].temperature",
  ],
];

describe("POST /v1/runs rejects malformed bodies, naming the field, and writes nothing", () => {
  it.each(CASES)("%s → 400 at %s", async (_name, mutate, path) => {
    const before = await footprint();
    const body = validBody();
    mutate(body);
    const res = await post(JSON.stringify(body));
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; issues: { path: string; message: string }[] } };
    expect(error.code).toBe("invalid_body");
    expect(error.issues.map((i) => i.path)).toContainEqual(expect.stringContaining(path));
    expect(error.issues.every((i) => i.message.length > 0)).toBe(true);
    expect(await footprint()).toEqual(before);
  });

  it("refuses a body that is not JSON with 415, and broken JSON with 400", async () => {
    const before = await footprint();
    expect((await post("{}", { "content-type": "text/plain" })).status).toBe(415);
    const broken = await post("{ not json");
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as any).error.code).toBe("invalid_json");
    expect(await footprint()).toEqual(before);
  });

  it("refuses an oversized body with 413", async () => {
    const before = await footprint();
    const huge = JSON.stringify({ ...validBody(), run_name: "x".repeat(33_000_000) });
    const res = await post(huge);
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.message).toMatch(
      /^POST \/v1\/runs takes a body of at most 32 MB; split the benchmark into several runs/,
    );
    expect(await footprint()).toEqual(before);
  });

  it("requires the bearer token", async () => {
    const res = await app.fetch(new Request("http://edgeval.test/v1/runs"), spyEnv());
    expect(res.status).toBe(401);
    const wrong = await app.fetch(new Request("http://edgeval.test/v1/runs", { headers: { authorization: "Bearer nope" } }), spyEnv());
    expect(wrong.status).toBe(401);
  });

  it("accepts a regex-only template", async () => {
    const body = validBody();
    body.benchmark.questions[0].template = {
      fields: [],
      regex: [{ name: "mentions_paris", pattern: "(?i)paris", expected: "Paris", match_type: "contains" }],
    };
    const res = await post(JSON.stringify(body));
    expect(res.status).toBe(202);
  });
});

describe("Idempotency-Key", () => {
  it("returns the same run for the same key and body, and 409 for another body", async () => {
    const key = `k-${crypto.randomUUID()}`;
    const body = JSON.stringify(validBody());
    const a = await post(body, { "idempotency-key": key });
    const b = await post(body, { "idempotency-key": key });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    const runA = ((await a.json()) as any).run_id;
    expect(((await b.json()) as any).run_id).toBe(runA);
    const other = validBody();
    other.run_name = "another";
    const c = await post(JSON.stringify(other), { "idempotency-key": key });
    expect(c.status).toBe(409);
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM runs WHERE run_id = ?").bind(runA).first<{ n: number }>();
    expect(rows!.n).toBe(1);
  });

  it("takes over a key whose holder died before writing its run (older than STALE_HOLDER_MS), instead of a 409 for ever", async () => {
    const key = `k-${crypto.randomUUID()}`;
    const body = JSON.stringify(validBody());
    expect((await post(body, { "idempotency-key": key })).status).toBe(202);
    // What an isolate evicted between taking the key and writing its run leaves: the key, no run.
    const takenAt = new Date(Date.now() - STALE_HOLDER_MS - 60_000).toISOString();
    await env.DB.prepare("UPDATE idempotency_keys SET run_id = 'died-mid-submit', created_at = ? WHERE tenant_id = 'default' AND key = ?")
      .bind(takenAt, key)
      .run();
    const retried = await post(body, { "idempotency-key": key });
    expect(retried.status).toBe(202);
    const runId = ((await retried.json()) as any).run_id;
    expect(runId).not.toBe("died-mid-submit");
    expect(await env.DB.prepare("SELECT run_id FROM runs WHERE run_id = ?").bind(runId).first()).not.toBeNull();
    // The key is the new run's now: a repeat answers it.
    expect(((await (await post(body, { "idempotency-key": key })).json()) as any).run_id).toBe(runId);
  });

  it("compares bodies canonicalised per RFC 8785: pretty-printed, reordered or re-escaped is the same body", async () => {
    const key = `k-${crypto.randomUUID()}`;
    const value = validBody();
    const a = await post(JSON.stringify(value), { "idempotency-key": key });
    expect(a.status).toBe(202);
    const runA = ((await a.json()) as any).run_id;
    const { config, benchmark } = value;
    const variants = [
      JSON.stringify(value, null, 2),
      JSON.stringify({ config, benchmark }),
      JSON.stringify(value).replace('"Capital of France?"', '"Capital of Fr\\u0061nce?"'),
    ];
    for (const text of variants) {
      const again = await post(text, { "idempotency-key": key });
      expect(again.status, text.slice(0, 80)).toBe(202);
      expect(((await again.json()) as any).run_id).toBe(runA);
    }
    // A list in another order is another body.
    const reordered = validBody();
    reordered.config.answering_models.push(fakeModel("b", "fake-b"));
    const first = await post(JSON.stringify(reordered), { "idempotency-key": `${key}-2` });
    expect(first.status).toBe(202);
    reordered.config.answering_models.reverse();
    expect((await post(JSON.stringify(reordered), { "idempotency-key": `${key}-2` })).status).toBe(409);
  });
});
