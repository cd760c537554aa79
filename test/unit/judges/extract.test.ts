import { describe, expect, it } from "vitest";
import { runCompoundJudge } from "../../../src/judges";
import { JudgeConfig } from "../../../src/schemas/judge";
import { judgePorts, testModel, type Script } from "../../support/judge-port";

const provider = testModel("main");
const sample = { input: "", output: "x", vars: {} };
async function judge(config: object, script: Script, opts: { logprobs?: boolean; rng?: () => number } = {}) {
  const h = judgePorts(script, opts);
  const r = await runCompoundJudge(JudgeConfig.parse({ provider, ...config }), sample, h.ports);
  return { r, calls: h.calls };
}
const lp = (pairs: [string, number][]) => pairs.map(([token, p]) => ({ token, logprob: Math.log(p) }));

describe("extractors", () => {
  it("structured is the default: one structured call with the scale in the JSON schema", async () => {
    const { r, calls } = await judge({ type: "likert" }, () => ({ answer: "5" }));
    expect(calls.map((c) => c.op)).toEqual(["structured"]);
    expect(calls[0]!.jsonSchema).toMatchObject({ properties: { answer: { enum: [1, 2, 3, 4, 5] } }, required: ["answer"] });
    expect(r.units[0]!.answer).toBe(5);
  });

  it("regex reads the first int (or float) from free text and checks it against the scale", async () => {
    const int = await judge({ type: "likert", extractor: { type: "regex", pattern: "first_int" } }, () => "I'd give it 4 out of 5.");
    expect([int.r.score, int.calls[0]!.op]).toEqual([4, "chat"]);
    const float = await judge(
      { type: "judge", scale: { type: "continuous", min: 0, max: 1 }, extractor: { type: "regex", pattern: "first_float" } },
      () => "score: 0.75",
    );
    expect(float.r.score).toBe(0.75);
  });

  it("a validation failure is retried (retries: 3 → three attempts, as Verdict's ModelSelectionPolicy.from_name, verdict/model.py:351), then the judge fails as a judge failure", async () => {
    let n = 0;
    const ok = await judge({ type: "likert", retries: 3 }, () => (n++ < 2 ? { answer: 9 } : { answer: 3 }));
    expect(ok.r).toMatchObject({ score: 3, units: [{ attempts: 3 }] });
    const bad = await judge({ type: "likert", retries: 3, extractor: { type: "regex", pattern: "first_int" } }, () => "great!");
    expect(bad.calls.map((c) => c.call_site)).toEqual(["config#0", "config#0/retry1", "config#0/retry2"]);
    expect(bad.r).toMatchObject({ pass: null, error: { kind: "invalid_output" } });
  });

  it("retries: 1 is a single attempt (Verdict: ModelSelectionPolicy.from_name loops range(retries)); retries: 0 is refused", async () => {
    const once = await judge({ type: "likert", retries: 1 }, () => ({ answer: 9 }));
    expect(once.calls).toHaveLength(1);
    expect(once.r).toMatchObject({ pass: null, units: [{ attempts: 1 }] });
    const unset = await judge({ type: "likert" }, () => ({ answer: 9 }));
    expect(unset.calls).toHaveLength(2);
    const zero = JudgeConfig.safeParse({ provider, type: "likert", retries: 0 });
    expect(zero.success).toBe(false);
    expect(zero.error!.issues[0]).toMatchObject({ path: ["retries"], message: expect.stringContaining("at least 1") });
  });

  it("post-hoc: the judge writes free text, a second model structures it", async () => {
    const { r, calls } = await judge(
      { type: "categorical", categories: ["yes", "no"], explanation: true, extractor: { type: "post-hoc", provider: testModel("cheap") } },
      (c) => (c.op === "chat" ? "It is helpful, so: yes" : { explanation: "helpful", answer: "yes" }),
    );
    expect(calls.map((c) => [c.op, c.model, c.call_site])).toEqual([
      ["chat", "main", "config#0"],
      ["structured", "cheap", "config#0/post-hoc"],
    ]);
    expect(calls[1]!.user).toContain("It is helpful, so: yes");
    expect(r).toMatchObject({ pass: true, units: [{ explanation: "helpful", usage: { calls: 2, models: ["main", "cheap"] } }] });
  });

  const tp = (mode: string) => ({ type: "likert", extractor: { type: "token-probability", mode } });
  const dist = lp([
    ["4", 0.5],
    [" 5", 0.3],
    ["2", 0.1],
    ["maybe", 0.1],
  ]);

  it("token-probability argmax picks the most probable scale token and asks for no explanation", async () => {
    const { r, calls } = await judge(tp("argmax"), () => dist, { logprobs: true });
    expect(r.score).toBe(4);
    expect(calls[0]!.user).toContain("Do not explain your answer");
    expect((r.units[0] as any).distribution["4"]).toBeCloseTo(0.5 / 0.9);
  });

  it("token-probability weighted sums the scale values by probability (non-scale tokens ignored)", async () => {
    const { r } = await judge(tp("weighted"), () => dist, { logprobs: true });
    expect(r.score).toBeCloseTo((4 * 0.5 + 5 * 0.3 + 2 * 0.1) / 0.9);
  });

  // Verdict's WeightedSummedScoreExtractor (verdict/extractor.py:490-517) returns sum(token * probability) and
  // accepts boolean scales (BooleanScale.T is bool, scale.py:127), so a yes/no judge gives P(yes).
  it("token-probability weighted on a boolean scale gives P(yes) as the answer and the score", async () => {
    const yesNo = lp([
      ["yes", 0.6],
      ["Yes", 0.1],
      [" no", 0.2],
      ["maybe", 0.1],
    ]);
    const { r } = await judge(
      { type: "judge", scale: { type: "boolean" }, extractor: { type: "token-probability", mode: "weighted" } },
      () => yesNo,
      { logprobs: true },
    );
    expect(r.units[0]!.answer).toBeCloseTo(0.7 / 0.9);
    expect(r.score).toBeCloseTo(0.7 / 0.9);
    expect(r.pass).toBe(true);
    // With pass_value false the unit pools P(no): the same distribution then fails.
    const no = await judge(
      { type: "judge", scale: { type: "boolean" }, pass_value: false, extractor: { type: "token-probability", mode: "weighted" } },
      () => yesNo,
      { logprobs: true },
    );
    expect(no.r.units[0]!.answer).toBeCloseTo(0.7 / 0.9);
    expect(no.r.score).toBeCloseTo(0.2 / 0.9);
    expect(no.r.pass).toBe(false);
    // A categorical label scale is still refused: there is no number to weigh.
    const bad = JudgeConfig.parse({
      provider,
      type: "categorical",
      categories: ["good", "bad"],
      extractor: { type: "token-probability", mode: "weighted" },
    });
    await expect(runCompoundJudge(bad, sample, judgePorts(() => yesNo, { logprobs: true }).ports)).rejects.toThrow(
      /weighted sums numeric values/,
    );
  });

  it("token-probability sample draws with the injected RNG over the scale order", async () => {
    // Mass in scale order: 2 → 0.1/0.9, 4 → 0.5/0.9, 5 → 0.3/0.9.
    expect((await judge(tp("sample"), () => dist, { logprobs: true, rng: () => 0.05 })).r.score).toBe(2);
    expect((await judge(tp("sample"), () => dist, { logprobs: true, rng: () => 0.5 })).r.score).toBe(4);
    expect((await judge(tp("sample"), () => dist, { logprobs: true, rng: () => 0.95 })).r.score).toBe(5);
  });

  it("token-probability on an adapter without logprobs is a clear unsupported error, not a score", async () => {
    const { r } = await judge(tp("argmax"), () => dist, { logprobs: false });
    expect(r).toMatchObject({
      pass: null,
      score: null,
      error: { kind: "unsupported", message: expect.stringContaining("needs logprobs") },
    });
  });

  it("the fallback list moves to the next model when one keeps failing; unsupported/auth skip retries", async () => {
    const chain = [testModel("a"), testModel("b"), testModel("c")];
    const { r, calls } = await judge({ type: "likert", provider: chain, retries: 2 }, (c) =>
      c.model === "a" ? { kind: "server_error", message: "down" } : c.model === "b" ? { kind: "auth", message: "no key" } : { answer: 2 },
    );
    expect(calls.map((c) => c.model)).toEqual(["a", "a", "b", "c"]);
    expect(r).toMatchObject({ score: 2, units: [{ attempts: 4, usage: { models: ["c"] } }] });
  });
});
