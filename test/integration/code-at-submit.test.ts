/**
 * Issue 16 (b): custom verify and callable-trait JavaScript is compiled when the benchmark is
 * submitted. Before, a syntax error or a missing verify was accepted (202), the judge was called,
 * and every answer was graded wrong.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, fakeModel } from "./helpers";

const field = { name: "gene", type: "str", description: "the gene", ground_truth: "BCL2" };
const withVerify = (source: string) => ({
  name: "code",
  questions: [
    {
      id: "ok",
      question: "Which gene?",
      template: {
        fields: [field],
        custom_verify: { language: "javascript", source: "function verify(a, gt) { return a.gene === gt.gene; }" },
      },
    },
    { id: "q", question: "Which gene?", template: { fields: [field], custom_verify: { language: "javascript", source } } },
  ],
});
const issuesOf = async (res: Response) => ((await res.json()) as { error: { issues: { path: string; message: string }[] } }).error.issues;
const storedCount = async () => (await env.DB.prepare("SELECT COUNT(*) AS n FROM benchmarks").first<{ n: number }>())!.n;

describe("JavaScript checked at submit", () => {
  it.each([
    [
      "a syntax error, with its line",
      "function verify(a) {\n  return a.gene ===;\n}",
      /evaluating the source threw: SyntaxError: .*\(line 2\)/,
    ],
    ["a source without verify", "function check() { return true; }", /must define function verify\(\.\.\.\); verify is undefined/],
    [
      "a top level that throws, with its line",
      "\nthrow new Error('boom');\nfunction verify() { return true; }",
      /evaluating the source threw: Error: boom \(line 2\)/,
    ],
    ["a top level that runs away", "for (;;) {}\nfunction verify() { return true; }", /stopped: it ran past 2000 interrupt checks/],
  ])("POST /v1/benchmarks refuses %s at the source's path and stores nothing", async (_what, source, message) => {
    const before = await storedCount();
    const res = await api("/v1/benchmarks", { method: "POST", json: withVerify(source) });
    expect(res.status).toBe(400);
    expect(await issuesOf(res)).toEqual([{ path: "questions[1].template.custom_verify.source", message: expect.stringMatching(message) }]);
    expect(await storedCount()).toBe(before);
  });

  it("POST /v1/runs refuses an inline benchmark's broken verify and a callable trait without evaluate, each at its path", async () => {
    const benchmark = {
      ...withVerify("function verify( {"),
      rubric: {
        callable_traits: [{ name: "t", description: "d", kind: "boolean", javascript_code: "function score(text) { return true; }" }],
      },
    };
    const res = await api("/v1/runs", {
      method: "POST",
      json: { benchmark, config: { answering_models: [fakeModel("a", "fake-a")], parsing_models: [fakeModel("j", "fake-j")] } },
    });
    expect(res.status).toBe(400);
    expect(await issuesOf(res)).toEqual([
      { path: "benchmark.rubric.callable_traits[0].javascript_code", message: expect.stringMatching(/must define function evaluate/) },
      { path: "benchmark.questions[1].template.custom_verify.source", message: expect.stringMatching(/SyntaxError/) },
    ]);
  });

  it("accepts code that defines its entry", async () => {
    const res = await api("/v1/benchmarks", { method: "POST", json: withVerify("const verify = (a, gt) => a.gene === gt.gene;") });
    expect(res.status).toBe(201);
  });
});
