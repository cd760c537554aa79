import { describe, expect, it } from "vitest";
import { runCompoundJudge } from "../../../src/judges";
import { majority, mapValue, pool } from "../../../src/judges/pools";
import type { JudgeNode, UnitOutput } from "../../../src/judges/types";
import { JudgeConfig } from "../../../src/schemas/judge";
import { judgePorts, testModel } from "../../support/judge-port";

const provider = testModel();
const sample = { input: "", output: "x", vars: {} };
/** Answers scripted per repeat index (the call-site id ends in #r). */
const byRepeat = (answers: unknown[]) => (c: { call_site?: string }) => answers[Number(c.call_site!.split("#")[1])];

async function pooled(unit: object, pool: object, answers: unknown[]) {
  const h = judgePorts(byRepeat(answers));
  const cfg = JudgeConfig.parse({ provider, pipeline: [{ layer: { unit, repeat: answers.length } }, pool] });
  return runCompoundJudge(cfg, sample, h.ports);
}
const likert = { type: "likert", prompt: "Rate" };
const errors = { type: "categorical-judge", prompt: "Errors?", categories: ["yes", "no"], pass_value: "no" };
const out = (answer: string | number, value: number, pass_value?: string): UnitOutput =>
  ({
    name: "u",
    id: "u",
    type: "judge",
    status: "ok",
    value,
    answer,
    ...(pass_value ? { pass_value } : {}),
    inputs: [],
    attempts: 1,
    usage: { calls: 1, input_tokens: 0, output_tokens: 0, total_tokens: 0, models: [], cost_usd: null, unpriced_models: [] },
  }) as UnitOutput;

describe("pools", () => {
  it("max-pool is a majority vote over scores", async () => {
    const r = await pooled(likert, { type: "max-pool" }, [{ answer: 4 }, { answer: 2 }, { answer: 4 }]);
    expect(r.score).toBe(4);
    expect(r.units.at(-1)).toMatchObject({ answer: 4, votes: { "4": 2, "2": 1 } });
  });

  // Verdict's MaxPoolUnit is statistics.mode (verdict/transform.py:134); CPython's mode counts with a
  // Counter and most_common(1) keeps first-seen order among equal counts, so ties go to the answer
  // that came first in layer order.
  it("tie rule (Verdict's): equally frequent scores go to the score seen first in layer order, with tie: true", () => {
    expect(majority([out(5, 5), out(2, 2), out(2, 2), out(5, 5)])).toMatchObject({ value: 5, tie: true });
    expect(majority([out(2, 2), out(5, 5), out(5, 5), out(2, 2)])).toMatchObject({ value: 2, tie: true });
    expect(majority([out(2, 2), out(5, 5), out(5, 5)]).tie).toBeUndefined();
  });

  it("tie rule (Verdict's): equally frequent labels go to the label seen first in layer order", () => {
    expect(majority([out("no", 1, "no"), out("yes", 0, "no")])).toMatchObject({ answer: "no", tie: true, pass_value: "no" });
    expect(majority([out("yes", 0, "no"), out("no", 1, "no")])).toMatchObject({ answer: "yes", tie: true, pass_value: "no" });
  });

  it("issue 23: categorical yes, no with no threshold → answer yes, score 0.5 (share of yes), pass by the answer, tie", async () => {
    const cat = { type: "categorical", prompt: "OK?", categories: ["yes", "no"] };
    const r = await pooled(cat, { type: "max-pool" }, [{ answer: "yes" }, { answer: "no" }]);
    expect(r).toMatchObject({ answer: "yes", score: 0.5, pass: true, tie: true });
    expect(r.units.at(-1)).toMatchObject({ answer: "yes", tie: true, votes: { yes: 1, no: 1 } });
    // The same split the other way round: the pooled answer is no, so the vote does not pass.
    const flipped = await pooled(cat, { type: "max-pool" }, [{ answer: "no" }, { answer: "yes" }]);
    expect(flipped).toMatchObject({ answer: "no", score: 0.5, pass: false, tie: true });
    expect(flipped.reason).toContain("pooled answer no is not the passing answer yes");
  });

  it("issue 23: likert repeat 2 with [5, 3], threshold 4 → mode 5 (Verdict), score 5, pass, tie", async () => {
    const cfg = JudgeConfig.parse({ provider, pipeline: [{ layer: { unit: likert, repeat: 2 } }, { type: "max-pool" }], threshold: 4 });
    const r = await runCompoundJudge(cfg, sample, judgePorts(byRepeat([{ answer: 5 }, { answer: 3 }])).ports);
    expect(r).toMatchObject({ answer: 5, score: 5, pass: true, tie: true });
  });

  it("labels pool as the vote share of pass_value; pass ⇔ share ≥ threshold (spec: max-pool threshold 0.7)", async () => {
    const two = await pooled(errors, { type: "max-pool", threshold: 0.7 }, [{ answer: "no" }, { answer: "yes" }, { answer: "no" }]);
    expect(two).toMatchObject({ pass: false, threshold: 0.7 });
    expect(two.score).toBeCloseTo(2 / 3);
    expect(two.units.at(-1)).toMatchObject({ answer: "no", votes: { no: 2, yes: 1 } });
    const three = await pooled(errors, { type: "max-pool", threshold: 0.7 }, [{ answer: "no" }, { answer: "no" }, { answer: "no" }]);
    expect(three).toMatchObject({ pass: true, score: 1 });
  });

  it("mean, min and mean-variance over scores", async () => {
    const answers = [{ answer: 1 }, { answer: 3 }, { answer: 5 }];
    expect((await pooled(likert, { type: "mean-pool" }, answers)).score).toBe(3);
    expect((await pooled(likert, { type: "min-pool" }, answers)).score).toBe(1);
    const mv = await pooled(likert, { type: "mean-variance" }, answers);
    expect(mv.score).toBe(3);
    // Sample variance, as Verdict's MeanVariancePool: statistics.variance (n − 1), verdict/transform.py:142.
    expect(mv.units.at(-1)!.variance).toBe(4);
    const one = await pooled(likert, { type: "mean-variance" }, [{ answer: 4 }]);
    expect(one.units.at(-1)!.variance).toBe(0);
  });

  it("weighted mean weighs each criterion by its unit name (spec's multi-criteria example)", async () => {
    const scores: Record<string, number> = { accuracy: 5, clarity: 3, completeness: 1 };
    const h = judgePorts((c) => ({ answer: scores[/Rate (\w+)/.exec(c.user)![1]!] }));
    const cfg = JudgeConfig.parse({
      provider,
      pipeline: [
        { layer: { units: Object.keys(scores).map((name) => ({ type: "likert", name, prompt: `Rate ${name} (1-5)`, scale: [1, 5] })) } },
        { type: "weighted-mean", weights: { accuracy: 0.5, clarity: 0.3, completeness: 0.2 } },
      ],
      threshold: 4.0,
    });
    const r = await runCompoundJudge(cfg, sample, h.ports);
    expect(r.score).toBeCloseTo(5 * 0.5 + 3 * 0.3 + 1 * 0.2);
    expect(r).toMatchObject({ pass: false, threshold: 4 });
  });

  it("a failed input makes the pool skip and the judge report failure, never a fail verdict", async () => {
    const r = await pooled({ ...likert, retries: 1 }, { type: "mean" }, [{ answer: 4 }, { kind: "server_error", message: "boom" }]);
    expect(r).toMatchObject({ pass: null, score: null, error: { unit: "likert[1]", kind: "server_error" } });
    expect(r.units.at(-1)).toMatchObject({ status: "skipped" });
  });

  it("weighted mean divides by the weights' sum when they do not add up to 1", () => {
    const n = { pool: "weighted-mean", unit: { weights: { a: 2, b: 1, c: 1 } } } as unknown as JudgeNode;
    expect(pool(n, [out(5, 5), out(3, 3), out(1, 1)], ["a", "b", "c"])).toEqual({ value: (5 * 2 + 3 + 1) / 4 });
  });

  it("max-pool picks the most frequent answer wherever it stands in layer order", () => {
    expect(majority([out(2, 2), out(5, 5), out(5, 5)])).toEqual({ value: 5, answer: 5, votes: { "2": 1, "5": 2 } });
    expect(majority([out("yes", 0, "no"), out("no", 1, "no"), out("no", 1, "no")])).toMatchObject({ answer: "no", value: 2 / 3 });
  });

  it("max-pool over choice units votes on the choice and reports the share of A, which passes", () => {
    const choice = (chosen: "A" | "B"): UnitOutput => {
      const { answer: _, ...rest } = out("", chosen === "A" ? 1 : 0);
      return { ...rest, type: "pairwise", chosen };
    };
    expect(majority([choice("B"), choice("A"), choice("A")])).toEqual({
      value: 2 / 3,
      answer: "A",
      votes: { B: 1, A: 2 },
      pass_value: "A",
    });
  });

  it("normalize maps a one-point range to 0 instead of dividing by zero", () => {
    const n = { unit: { op: "normalize" } } as unknown as JudgeNode;
    expect(mapValue(n, out(3, 3), [3, 3])).toBe(0);
    expect(mapValue(n, out(3, 3), [1, 5])).toBe(0.5);
  });
});
