/**
 * Issue 16 (c): one nesting limit (64) for every JSON body, checked before validation and storage.
 * Before: custom_metadata 7,000 deep was stored (201) and GET /v1/benchmarks/:id answered 500 for
 * ever; verify_strategy 1,000 deep and the same depth in POST /v1/runs or /v1/judge were 500s.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../src/http/body";
import { api, fakeModel } from "./helpers";

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const post = (path: string, body: string) => api(path, { method: "POST", body, headers: { "content-type": "application/json" } });
const stored = async () => (await env.DB.prepare("SELECT COUNT(*) AS n FROM benchmarks").first<{ n: number }>())!.n;
const question = (meta: string) =>
  `{"id":"q1","question":"?","template":{"fields":[{"name":"x","type":"bool","description":"d","ground_truth":true,"verify_with":{"type":"BooleanMatch"}}]},"custom_metadata":${meta}}`;
const firstIssue = async (res: Response) =>
  ((await res.json()) as { error: { issues: { path: string; message: string }[] } }).error.issues[0]!;

describe("JSON nesting limit", () => {
  it("refuses custom_metadata 7,000 deep with a 400 at its path and stores nothing", async () => {
    const before = await stored();
    const res = await post("/v1/benchmarks", `{"name":"deep","questions":[${question(nested(7000))}]}`);
    expect(res.status).toBe(400);
    const issue = await firstIssue(res);
    expect(issue.path).toMatch(/^questions\[0\]\.custom_metadata(\.a)+$/);
    expect(issue.message).toMatch(/nested more than 64 levels deep/);
    expect(await stored()).toBe(before);
  });

  it("accepts exactly the limit and reads it back", async () => {
    // The body's own containers (root, questions, the question) take 3 levels.
    const res = await post("/v1/benchmarks", `{"name":"edge","questions":[${question(nested(MAX_JSON_DEPTH - 3))}]}`);
    expect(res.status).toBe(201);
    const { benchmark_id } = (await res.json()) as { benchmark_id: string };
    expect((await api(`/v1/benchmarks/${benchmark_id}`)).status).toBe(200);
  });

  it("answers 400, not 500, for a verify_strategy 1,000 deep in POST /v1/runs and a deep /v1/judge body", async () => {
    let strategy = '{"type":"field_check","field_name":"x"}';
    for (let i = 0; i < 1000; i++) strategy = `{"type":"all_of","conditions":[${strategy}]}`;
    const run = await post(
      "/v1/runs",
      `{"benchmark":{"name":"b","questions":[{"id":"q","question":"?","template":{"fields":[{"name":"x","type":"bool","description":"d","ground_truth":true,"verify_with":{"type":"BooleanMatch"}}],"verify_strategy":${strategy}}}]},"config":${JSON.stringify({ answering_models: [fakeModel("a", "fake-a")], parsing_models: [fakeModel("j", "fake-j")] })}}`,
    );
    expect(run.status).toBe(400);
    expect((await firstIssue(run)).path).toMatch(/^benchmark\.questions\[0\]\.template\.verify_strategy\.conditions\[0\]/);
    const judge = await post("/v1/judge", `{"output":"x","vars":${nested(500)},"config":{"type":"likert"}}`);
    expect(judge.status).toBe(400);
    expect((await firstIssue(judge)).path).toMatch(/^vars(\.a)+$/);
  });
});
