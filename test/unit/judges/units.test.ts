import { describe, expect, it } from "vitest";
import { runCompoundJudge } from "../../../src/judges";
import { sumUsage } from "../../../src/judges/units";
import { JudgeConfig } from "../../../src/schemas/judge";
import { judgePorts, testModel, type Script } from "../../support/judge-port";

const provider = testModel();
const sample = { input: "What is 2+2?", output: "4", reference: "four", vars: { tone: "formal" } };
const run = (config: unknown, script: Script, s = sample) => {
  const h = judgePorts(script);
  return runCompoundJudge(JudgeConfig.parse({ provider, ...(config as object) }), s, h.ports).then((r) => ({ r, calls: h.calls }));
};

describe("units", () => {
  it("judge: the score is the value; with explanation the schema asks for the explanation before the answer", async () => {
    const { r, calls } = await run({ type: "likert", prompt: "Rate accuracy", scale: [1, 5], explanation: true, threshold: 4 }, () => ({
      explanation: "correct",
      answer: 4,
    }));
    expect(r).toMatchObject({ pass: true, score: 4, threshold: 4 });
    expect(Object.keys(calls[0]!.jsonSchema!.properties as object)).toEqual(["explanation", "answer"]);
    expect(calls[0]!.user).toContain("Rate accuracy");
    expect(calls[0]!.user).toContain("Response:\n4");
    expect(calls[0]!.user).toContain("First explain your reasoning");
    expect(r.units[0]).toMatchObject({ answer: 4, explanation: "correct", value: 4, status: "ok" });
    expect(r.reason).toContain("correct");
  });

  it("categorical: the passing label scores 1, any other label 0 (pass_value no for 'contains errors?')", async () => {
    const cfg = { type: "categorical-judge", prompt: "Does it contain factual errors?", categories: ["yes", "no"], pass_value: "no" };
    expect((await run(cfg, () => ({ answer: "no" }))).r).toMatchObject({ pass: true, score: 1 });
    expect((await run(cfg, () => ({ answer: "yes" }))).r).toMatchObject({ pass: false, score: 0 });
  });

  it("placeholders render output, input, reference and vars", async () => {
    const { calls } = await run({ type: "judge", prompt: "Q={{input}} A={{output}} R={{reference}} T={{vars.tone}}" }, () => ({
      answer: 3,
    }));
    expect(calls[0]!.user.startsWith("Q=What is 2+2? A=4 R=four T=formal")).toBe(true);
    expect(calls[0]!.user).not.toContain("Response:\n");
  });

  it("a missing var is refused before any call, naming the prompt's path", async () => {
    const h = judgePorts(() => ({ answer: 3 }));
    const cfg = JudgeConfig.parse({ provider, type: "judge", prompt: "{{vars.requirements}}" });
    await expect(runCompoundJudge(cfg, { ...sample, vars: {} }, h.ports)).rejects.toMatchObject({
      issues: [{ path: "config.prompt", message: "uses {{vars.requirements}}, which this request does not give" }],
    });
    expect(h.calls).toHaveLength(0);
  });

  it("pairwise: A (the output, by default against the reference) preferred scores 1; options render in order", async () => {
    const { r, calls } = await run(
      { type: "pairwise", prompt: "Which is more accurate?", options: ["{{output}}", "{{vars.tone}}"] },
      () => ({ choice: "A" }),
    );
    expect(r).toMatchObject({ pass: true, score: 1 });
    expect(calls[0]!.user).toContain("Option A:\n4\n\nOption B:\nformal");
  });

  it("pairwise with swap runs both orders and reports a disagreement when the judge just picks the first position", async () => {
    const { r, calls } = await run({ type: "pairwise", swap: true }, () => ({ choice: "A" }));
    expect(calls.map((c) => c.call_site)).toEqual(["config#0", "config#0/swap"]);
    expect(calls[1]!.user).toContain("Option A:\nfour\n\nOption B:\n4");
    expect(r.units[0]).toMatchObject({ chosen: "A", chosen_swapped: "B", disagreement: true, value: 0.5 });
    const consistent = await run({ type: "pairwise", swap: true }, (c) => ({ choice: c.call_site!.endsWith("/swap") ? "B" : "A" }));
    expect(consistent.r.units[0]).toMatchObject({ chosen_swapped: "A", disagreement: false, value: 1 });
  });

  it("best-of-k scores 1 when the first option wins; ranker scores the first option's position", async () => {
    const opts = ["{{output}}", "five", "three"];
    expect((await run({ type: "best-of-k", options: opts, k: 3 }, () => ({ choice: "C" }))).r).toMatchObject({ score: 0, pass: false });
    const ranked = await run({ type: "ranker", options: opts }, () => ({ ranking: ["B", "A", "C"] }));
    expect(ranked.r.units[0]).toMatchObject({ ranking: ["B", "A", "C"], value: 0.5 });
    const badRanking = await run({ type: "ranker", options: opts, retries: 1 }, () => ({ ranking: ["A", "A", "C"] }));
    expect(badRanking.r).toMatchObject({ pass: null, error: { kind: "invalid_output" } });
  });

  it("verify sees the previous unit's answer and explanation and re-answers on its scale", async () => {
    const { r, calls } = await run(
      {
        pipeline: [
          { type: "categorical", categories: ["yes", "no"], pass_value: "no", explanation: true, prompt: "Errors?" },
          { type: "verify", prompt: "Check: {{previous.explanation}}" },
        ],
      },
      (c) => (c.call_site!.startsWith("pipeline[0]") ? { explanation: "the sum is right", answer: "no" } : { answer: "no" }),
    );
    expect(calls[1]!.user).toContain("Check: the sum is right");
    expect(calls[1]!.system).toContain("verify");
    expect(r).toMatchObject({ pass: true, score: 1 });
  });

  it("debate roles take turns and see the transcript; the final judge sees the whole debate", async () => {
    const { r, calls } = await run(
      {
        pipeline: [
          { layer: { units: [{ type: "debate-for" }, { type: "debate-against" }], repeat: 2 } },
          { type: "judge", prompt: "Based on the debate, is this good?", categories: ["yes", "no"] },
        ],
      },
      (c) => (c.op === "chat" ? `argument ${c.seq}` : { answer: "yes" }),
    );
    expect(calls.map((c) => c.op)).toEqual(["chat", "chat", "chat", "chat", "structured"]);
    expect(calls[1]!.user).toContain("[debate-for[0]] argument 0");
    expect(calls[1]!.user).toContain("Your role: argue that the response is bad");
    expect(calls[4]!.user).toContain(
      "Debate so far:\n[debate-for[0]] argument 0\n\n[debate-against[0]] argument 1\n\n[debate-for[1]] argument 2\n\n[debate-against[1]] argument 3",
    );
    expect(r).toMatchObject({ pass: true, score: 1 });
  });

  it("chain-of-thought writes reasoning that the next judge reads", async () => {
    const { r, calls } = await run({ pipeline: [{ type: "cot" }, { type: "judge", prompt: "Score it" }] }, (c) =>
      c.op === "chat" ? "step by step: fine" : { answer: 5 },
    );
    expect(r.units[0]).toMatchObject({ text: "step by step: fine", value: null });
    expect(calls[1]!.user).toContain("step by step: fine");
    expect(r.score).toBe(5);
  });

  it("map is a pure transform without a call: invert turns an end-is-worst score round, normalize maps to [0, 1]", async () => {
    const worst = { type: "judge", name: "harm", scale: { type: "discrete", range: [1, 5], end_is_worst: true } };
    const inv = await run({ pipeline: [worst, { type: "map", op: "invert" }] }, () => ({ answer: 2 }));
    expect([inv.r.score, inv.calls.length]).toEqual([4, 1]);
    const norm = await run({ pipeline: [worst, { type: "map", op: "normalize" }] }, () => ({ answer: 2 }));
    expect(norm.r.score).toBe(0.25);
  });

  it("a unit makes one call (no swap run), names its inputs, and carries no keys its answer did not give", async () => {
    const { r, calls } = await run({ pipeline: [{ type: "likert", name: "first" }, { type: "verify" }] }, () => ({ answer: 4 }));
    expect(calls).toHaveLength(2);
    expect(r.units.map((u) => u.inputs)).toEqual([[], ["first"]]);
    for (const key of ["explanation", "pass_value", "distribution"]) expect(key in r.units[0]!, key).toBe(false);
  });

  it("sums usage over calls: each model once, and the cost unknown once any call's cost is", () => {
    const u = (model: string, cost_usd: number | null) => ({ input_tokens: 10, output_tokens: 5, total_tokens: 15, model, cost_usd });
    expect(sumUsage([u("m", 0.5), u("m", 0.25), u("n", 1)])).toEqual({
      calls: 3,
      input_tokens: 30,
      output_tokens: 15,
      total_tokens: 45,
      models: ["m", "n"],
      cost_usd: 1.75,
      unpriced_models: [],
    });
    expect(sumUsage([u("m", null), u("m", 0.25)]).cost_usd).toBeNull();
    expect(sumUsage([u("m", null), u("n", 0.25), u("m", null)]).unpriced_models).toEqual(["m"]);
    expect(sumUsage([u("m", 0.25), u("m", null), u("m", 0.5)]).cost_usd).toBeNull();
  });
});
