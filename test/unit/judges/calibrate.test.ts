import { describe, expect, it } from "vitest";
import { buildGraph } from "../../../src/judges";
import { calibrate, cohenKappa, kendallTauB, krippendorffAlpha, spearman } from "../../../src/judges/calibrate";
import type { JudgeGraph } from "../../../src/judges/types";
import { JudgeConfig } from "../../../src/schemas/judge";
import { judgePorts, testModel, type Script } from "../../support/judge-port";

const provider = testModel();
function graphOf(raw: object): JudgeGraph {
  const b = buildGraph(JudgeConfig.parse({ provider, ...raw }));
  if ("issues" in b) throw new Error(JSON.stringify(b.issues));
  return b.graph;
}
const items = (labels: (boolean | number)[]) => labels.map((label, i) => ({ input: "", output: `item ${i}`, vars: {}, label }));
const itemNo = (user: string) => Number(/item (\d+)/.exec(user)![1]);

describe("calibration", () => {
  it("Cohen's κ matches the hand computation: p_o = 0.8, p_e = 0.6·0.6 + 0.4·0.4 = 0.52, κ = 0.28 / 0.48 = 7/12", async () => {
    const human = [true, true, true, true, true, true, false, false, false, false];
    const judged = [true, true, true, true, true, false, true, false, false, false];
    const h = judgePorts((c) => ({ answer: judged[itemNo(c.user)] ? "yes" : "no" }));
    const report = await calibrate(graphOf({ type: "categorical", categories: ["yes", "no"] }), items(human), { repeats: 1 }, h.ports);
    expect(report).toMatchObject({ n: 10, judged: 10, errored: 0, accuracy: 0.8, flip_rate: null, position_swap_conflict_rate: null });
    expect(report.cohen_kappa).toBeCloseTo(7 / 12, 12);
  });

  it("Spearman ρ and Kendall τ compare scores with numeric labels (ρ = 1 − 6·4/(5·24) = 0.8, τ = (8 − 2)/10 = 0.6)", async () => {
    const scores = [1, 2, 3, 4, 5];
    const h = judgePorts((c) => ({ answer: scores[itemNo(c.user)] }));
    const report = await calibrate(graphOf({ type: "likert" }), items([2, 1, 4, 3, 5]), { repeats: 1, labelThreshold: 3 }, h.ports);
    expect(report.spearman_rho).toBeCloseTo(0.8, 12);
    expect(report.kendall_tau).toBeCloseTo(0.6, 12);
    expect(report.items.map((i) => i.human_pass)).toEqual([false, false, true, true, true]);
  });

  // Krippendorff's α (Verdict's ExperimentConfig metric, verdict/util/experiment.py:95-108). Reference value:
  // Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section A, binary data, two observers:
  // A = 0 1 0 0 0 0 0 0 1 0, B = 1 1 1 0 0 1 0 0 0 0 → α = 0.095 (exactly 1 − 19·4/84 = 2/21).
  it("Krippendorff's α: nominal over pass/fail for boolean labels (Krippendorff's worked example: α = 0.095)", async () => {
    const judged = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0];
    const human = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0];
    expect(krippendorffAlpha(judged, human, "nominal")).toBeCloseTo(2 / 21, 12);
    const h = judgePorts((c) => ({ answer: judged[itemNo(c.user)] ? "yes" : "no" }));
    const report = await calibrate(
      graphOf({ type: "categorical", categories: ["yes", "no"] }),
      items(human.map(Boolean)),
      { repeats: 1 },
      h.ports,
    );
    expect(report.krippendorff_alpha_level).toBe("nominal");
    expect(report.krippendorff_alpha).toBeCloseTo(0.095, 3);
  });

  it("Krippendorff's α: interval over score vs numeric label, as Verdict's level_of_measurement='interval'", async () => {
    // Pooled values 1..5,3 / 1,3,3,5,4,2: observed Σ2δ² = 2·(0+1+0+1+1+1) = 8, expected Σδ² = 480 → α = 1 − 11·8/480 = 0.8167.
    const scores = [1, 2, 3, 4, 5, 3];
    const h = judgePorts((c) => ({ answer: scores[itemNo(c.user)] }));
    const report = await calibrate(graphOf({ type: "likert" }), items([1, 3, 3, 5, 4, 2]), { repeats: 1 }, h.ports);
    expect(report.krippendorff_alpha_level).toBe("interval");
    expect(report.krippendorff_alpha).toBeCloseTo(1 - (11 * 8) / 480, 12);
    expect(krippendorffAlpha([3, 3], [3, 3], "interval")).toBeNull();
  });

  it("flip rate counts items whose verdict changes between repeats; repeats are separate call sites", async () => {
    const h = judgePorts((c) => ({ answer: itemNo(c.user) === 0 && c.call_site!.includes("repeat1") ? "no" : "yes" }));
    const report = await calibrate(
      graphOf({ type: "categorical", categories: ["yes", "no"] }),
      items([true, true, false, true]),
      { repeats: 2 },
      h.ports,
    );
    expect(report.flip_rate).toBe(0.25);
    expect(new Set(h.calls.map((c) => c.call_site)).size).toBe(8);
  });

  it("position-swap conflict rate is the share of swapped pairwise runs whose two orders disagree", async () => {
    // Item 0's judge always says "A" (position bias); the others see through the swap.
    const h = judgePorts((c) => ({ choice: itemNo(c.user) === 0 || !c.call_site!.endsWith("/swap") ? "A" : "B" }));
    const cfg = { type: "pairwise", swap: true, options: ["{{output}}", "a baseline"] };
    const report = await calibrate(graphOf(cfg), items([true, true, true, true]), { repeats: 1 }, h.ports);
    expect(report.position_swap_conflict_rate).toBe(0.25);
  });

  it("items where the judge failed are counted as errored and kept out of the metrics", async () => {
    const h = judgePorts((c) => (itemNo(c.user) === 1 ? { kind: "server_error", message: "down" } : { answer: "yes" }));
    const report = await calibrate(
      graphOf({ type: "categorical", categories: ["yes", "no"], retries: 1 }),
      items([true, false, true]),
      { repeats: 1 },
      h.ports,
    );
    expect(report).toMatchObject({ judged: 2, errored: 1, accuracy: 1 });
    expect(report.items[1]!.error).toContain("down");
  });

  it("an item with a failed repeat is errored like one that failed at once: never judged, never in a metric", async () => {
    // Before 8 Dec item 1 (repeat 0 decided "no", repeat 1 failed) showed its error yet counted as
    // judged: errored said 0 and its first verdict was in accuracy, while flip rate left it out.
    const h = judgePorts((c) =>
      itemNo(c.user) === 1
        ? c.call_site!.includes("repeat1")
          ? { kind: "server_error", message: "down" }
          : { answer: "no" }
        : { answer: "yes" },
    );
    const report = await calibrate(
      graphOf({ type: "categorical", categories: ["yes", "no"], retries: 1 }),
      items([true, true, true]),
      { repeats: 2 },
      h.ports,
    );
    expect(report).toMatchObject({ n: 3, judged: 2, errored: 1, accuracy: 1, flip_rate: 0 });
    expect(report.items[1]).toMatchObject({ pass: [false, null], error: expect.stringContaining("down") });
  });

  it("metric edge cases: κ undefined when both raters are constant; ties are averaged in ranks", () => {
    expect(cohenKappa([true, true], [true, true])).toBeNull();
    expect(spearman([1, 1, 2], [1, 1, 2])).toBeCloseTo(1);
    expect(kendallTauB([1, 2, 3], [3, 2, 1])).toBe(-1);
  });
});
