import { describe, expect, it } from "vitest";
import { computeMetrics, dedupe, evaluateMetricTrait } from "../../../src/rubric/metric";
import { MetricRubricTrait } from "../../../src/schemas/rubric";
import { scriptedPort } from "../../support/scripted-port";

describe("metric trait formulas", () => {
  it("computes precision, recall and f1 from the tp/fn/fp counts in tp_only mode", () => {
    const m = computeMetrics({ tp: ["a", "b", "c"], fn: ["d"], fp: ["e", "f"], tn: [] }, "tp_only");
    expect(m).toEqual({ precision: 3 / 5, recall: 3 / 4, f1: (2 * 0.6 * 0.75) / (0.6 + 0.75) });
  });

  it("adds specificity and accuracy in full_matrix mode", () => {
    const m = computeMetrics({ tp: ["a"], fn: ["b"], fp: ["c"], tn: ["d", "e"] }, "full_matrix");
    expect(m.specificity).toBeCloseTo(2 / 3);
    expect(m.accuracy).toBeCloseTo(3 / 5);
  });

  it("gives 0.0 for every zero denominator instead of NaN", () => {
    expect(computeMetrics({ tp: [], fn: [], fp: [], tn: [] }, "full_matrix")).toEqual({ precision: 0, recall: 0, f1: 0, specificity: 0, accuracy: 0 });
    expect(computeMetrics({ tp: [], fn: ["x"], fp: [], tn: [] }, "tp_only")).toEqual({ precision: 0, recall: 0, f1: 0 });
  });

  it("reports only the requested metrics, and never specificity in tp_only mode", () => {
    expect(Object.keys(computeMetrics({ tp: ["a"], fn: [], fp: [], tn: [] }, "tp_only", ["recall", "specificity"]))).toEqual(["recall"]);
  });

  it("de-duplicates case-insensitively, keeping the first spelling", () => {
    expect(dedupe(["Cancer", "cancer ", "CANCER", "flu"])).toEqual(["Cancer", "flu"]);
  });

  it("de-duplicates the judge's lists before counting when repeated_extraction is on", async () => {
    const judge = scriptedPort({ structured: () => ({ tp: ["BRCA1", "brca1"], fn: ["TP53"], fp: [], tn: ["ignored"] }) });
    const t = MetricRubricTrait.parse({ name: "genes", tp_instructions: ["BRCA1", "TP53"] });
    const log = { usage: [], warnings: [] };
    const r = await evaluateMetricTrait(t, judge, { question: "q", answer: "a" }, log);
    expect(r!.lists).toEqual({ tp: ["BRCA1"], fn: ["TP53"], fp: [], tn: [] });
    expect(r!.scores).toEqual({ precision: 1, recall: 0.5, f1: 2 / 3 });
  });

  it("leaves the trait out with a warning when the judge fails", async () => {
    const judge = scriptedPort({ structured: () => ({ kind: "server_error", message: "boom" }) });
    const t = MetricRubricTrait.parse({ name: "genes", tp_instructions: ["BRCA1"] });
    const log: { usage: never[]; warnings: string[] } = { usage: [], warnings: [] };
    expect(await evaluateMetricTrait(t, judge, { question: "q", answer: "a" }, log)).toBeNull();
    expect(log.warnings[0]).toMatch(/genes failed \(server_error\)/);
  });
});

describe("metric trait settings", () => {
  it("refuses full_matrix without tn_instructions and specificity/accuracy in tp_only", () => {
    expect(MetricRubricTrait.safeParse({ name: "m", evaluation_mode: "full_matrix", tp_instructions: ["a"] }).success).toBe(false);
    expect(MetricRubricTrait.safeParse({ name: "m", tp_instructions: ["a"], metrics: ["accuracy"] }).success).toBe(false);
    expect(MetricRubricTrait.safeParse({ name: "m", evaluation_mode: "full_matrix", tp_instructions: ["a"], tn_instructions: ["b"], metrics: ["accuracy"] }).success).toBe(true);
  });
});
