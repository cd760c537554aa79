import { describe, expect, it } from "vitest";
import { runCompoundJudge } from "../../../src/judges";
import { JudgeConfig } from "../../../src/schemas/judge";
import { judgePorts, testModel } from "../../support/judge-port";

const provider = testModel();
const sample = { input: "", output: "x", vars: {} };

/** A gate per call site: the test decides when each call answers. */
function gates() {
  const open = new Map<string, () => void>();
  const waits = new Map<string, Promise<void>>();
  const wait = (id: string) => {
    if (!waits.has(id)) waits.set(id, new Promise<void>((res) => open.set(id, res)));
    return waits.get(id)!;
  };
  return { wait, release: (id: string) => (wait(id), open.get(id)!()) };
}
const tick = () => new Promise((r) => setTimeout(r, 0));

describe("DAG executor", () => {
  it("starts a unit as soon as its own inputs are done, not when its whole layer is", async () => {
    const g = gates();
    const h = judgePorts(async (c) => (await g.wait(c.call_site!), { answer: 3 }));
    const cfg = JudgeConfig.parse({
      provider,
      pipeline: [
        { layer: { unit: { type: "judge", name: "j" }, repeat: 2, outer: "broadcast" } },
        { layer: { unit: { type: "verify", name: "v" }, repeat: 2 } },
        { type: "max-pool" },
      ],
    });
    const done = runCompoundJudge(cfg, sample, h.ports);
    await tick();
    expect(h.events).toEqual(["start pipeline[0].layer.unit#0", "start pipeline[0].layer.unit#1"]);
    g.release("pipeline[0].layer.unit#1");
    await tick();
    // v[1] starts while j[0] is still running.
    expect(h.events.slice(2)).toEqual(["end pipeline[0].layer.unit#1", "start pipeline[1].layer.unit#1"]);
    for (const id of ["pipeline[0].layer.unit#0", "pipeline[1].layer.unit#0", "pipeline[1].layer.unit#1"]) g.release(id);
    const r = await done;
    expect(r.units.map((u) => u.status)).toEqual(["ok", "ok", "ok", "ok", "ok"]);
  });

  it("repeats are independent calls with distinct call-site ids, and usage is counted per unit", async () => {
    const h = judgePorts(() => ({ answer: 4 }));
    const cfg = JudgeConfig.parse({
      provider,
      pipeline: [{ layer: { unit: { type: "likert", prompt: "same" }, repeat: 3 } }, { type: "mean" }],
    });
    const r = await runCompoundJudge(cfg, sample, h.ports);
    expect(h.calls.map((c) => c.call_site)).toEqual(["pipeline[0].layer.unit#0", "pipeline[0].layer.unit#1", "pipeline[0].layer.unit#2"]);
    expect(new Set(h.calls.map((c) => c.user)).size).toBe(1);
    expect(r.units.map((u) => u.usage.calls)).toEqual([1, 1, 1, 0]);
    expect(r.usage).toMatchObject({ calls: 3, input_tokens: 30, output_tokens: 15, total_tokens: 45 });
  });

  it("is deterministic under a scripted model, sampling extractors included (seeded per call site)", async () => {
    const cfg = JudgeConfig.parse({
      provider,
      seed: 7,
      pipeline: [
        { layer: { unit: { type: "likert", extractor: { type: "token-probability", mode: "sample" } }, repeat: 5 } },
        { type: "mean" },
      ],
    });
    const top = [1, 2, 3, 4, 5].map((v) => ({ token: String(v), logprob: Math.log(0.2) }));
    const once = async () => {
      const h = judgePorts(async (c) => (await new Promise((r) => setTimeout(r, (c.seq * 7) % 5)), top), { logprobs: true });
      return (await runCompoundJudge(cfg, sample, h.ports)).units.map((u) => u.value);
    };
    const first = await once();
    expect(await once()).toEqual(first);
    expect(new Set(first.slice(0, 5)).size).toBeGreaterThan(1);
  });

  it("prices every call through the port's cost function: per unit and in total; an unpriced model makes the cost null", async () => {
    const h = judgePorts(() => ({ answer: 4 }));
    const cost = (m: { model_name: string }) => (m.model_name === "free" ? null : 0.001);
    const cfg = JudgeConfig.parse({
      provider,
      pipeline: [
        {
          layer: {
            units: [
              { type: "likert", name: "a" },
              { type: "likert", name: "b" },
            ],
          },
        },
        { type: "mean" },
      ],
    });
    const r = await runCompoundJudge(cfg, sample, { ...h.ports, cost });
    expect(r.units.map((u) => u.usage.cost_usd)).toEqual([0.001, 0.001, 0]);
    expect(r.usage.cost_usd).toBeCloseTo(0.002);
    const mixed = JudgeConfig.parse({
      ...cfg,
      pipeline: [
        {
          layer: {
            units: [
              { type: "likert", name: "a" },
              { type: "likert", name: "b", provider: testModel("free") },
            ],
          },
        },
        { type: "mean" },
      ],
    });
    const r2 = await runCompoundJudge(mixed, sample, { ...h.ports, cost });
    expect([r2.units[1]!.usage.cost_usd, r2.usage.cost_usd]).toEqual([null, null]);
  });
});
