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
    expect(computeMetrics({ tp: [], fn: [], fp: [], tn: [] }, "full_matrix")).toEqual({
      precision: 0,
      recall: 0,
      f1: 0,
      specificity: 0,
      accuracy: 0,
    });
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

describe("evaluateMetricTrait: what it sends and what it records", () => {
  const full = MetricRubricTrait.parse({
    name: "organs",
    evaluation_mode: "full_matrix",
    tp_instructions: ["liver"],
    tn_instructions: ["heart"],
  });
  const newLog = () => ({ usage: [] as unknown[], warnings: [] as string[] }) as Parameters<typeof evaluateMetricTrait>[3];

  it("keeps the judge's true negatives in full_matrix mode and computes specificity and accuracy from them", async () => {
    const judge = scriptedPort({ structured: () => ({ tp: ["liver"], fn: [], fp: ["lung"], tn: ["heart", "HEART", "brain"] }) });
    const r = await evaluateMetricTrait(full, judge, { question: "q", answer: "a" }, newLog());
    expect(r!.lists).toEqual({ tp: ["liver"], fn: [], fp: ["lung"], tn: ["heart", "brain"] });
    expect(r!.scores).toEqual({ precision: 0.5, recall: 1, f1: 2 / 3, specificity: 2 / 3, accuracy: 3 / 4 });
  });

  it("keeps repeated entries when repeated_extraction is off", async () => {
    const judge = scriptedPort({ structured: () => ({ tp: ["liver", "Liver"], fn: [], fp: [], tn: ["heart", "heart"] }) });
    const t = MetricRubricTrait.parse({ ...full, repeated_extraction: false });
    const r = await evaluateMetricTrait(t, judge, { question: "q", answer: "a" }, newLog());
    expect(r!.lists).toEqual({ tp: ["liver", "Liver"], fn: [], fp: [], tn: ["heart", "heart"] });
  });

  it("reads a list the judge left out as empty", async () => {
    const judge = scriptedPort({ structured: () => ({}) });
    const r = await evaluateMetricTrait(full, judge, { question: "q", answer: "a" }, newLog());
    expect(r!.lists).toEqual({ tp: [], fn: [], fp: [], tn: [] });
  });

  it("asks for the four lists with a strict JSON schema named ConfusionMatrixOutput, and records the call's usage", async () => {
    let seen: { schemaName?: string; jsonSchema?: unknown; call_site?: string } = {};
    const judge = scriptedPort({
      structured: (req) => {
        seen = req;
        return { tp: [], fn: [], fp: [], tn: [] };
      },
    });
    const log = newLog();
    await evaluateMetricTrait(full, judge, { question: "q", answer: "a" }, log);
    expect(seen.schemaName).toBe("ConfusionMatrixOutput");
    expect(seen.call_site).toBe("rubric/metric/organs");
    const list = { type: "array", items: { type: "string" } };
    expect(seen.jsonSchema).toEqual({
      type: "object",
      properties: { tp: list, fn: list, fp: list, tn: list },
      required: ["tp", "fn", "fp", "tn"],
      title: "ConfusionMatrixOutput",
    });
    expect(log.usage).toEqual([{ input_tokens: 10, output_tokens: 5, total_tokens: 15, model: "scripted" }]);
  });

  it("records the first transient judge error, so the caller can retry, and never a permanent one", async () => {
    const failing = (kind: string, message: string) => scriptedPort({ structured: () => ({ kind, message }) });
    const log = newLog();
    await evaluateMetricTrait(full, failing("bad_request", "no"), { question: "q", answer: "a" }, log);
    expect(log.transient).toBeUndefined();
    await evaluateMetricTrait(full, failing("rate_limit", "first"), { question: "q", answer: "a" }, log);
    await evaluateMetricTrait(full, failing("timeout", "second"), { question: "q", answer: "a" }, log);
    expect(log.transient).toEqual({ kind: "rate_limit", message: "first" });
    expect(log.usage).toEqual([]);
    expect(log.warnings).toEqual([
      "rubric evaluation: metric trait organs failed (bad_request): no",
      "rubric evaluation: metric trait organs failed (rate_limit): first",
      "rubric evaluation: metric trait organs failed (timeout): second",
    ]);
  });

  it("folds case as Python's lower() does: ß and ss stay apart", () => {
    expect(dedupe(["Straße", "STRASSE"])).toEqual(["Straße", "STRASSE"]);
  });
});

describe("metric trait settings", () => {
  it("refuses full_matrix without tn_instructions and specificity/accuracy in tp_only", () => {
    expect(MetricRubricTrait.safeParse({ name: "m", evaluation_mode: "full_matrix", tp_instructions: ["a"] }).success).toBe(false);
    expect(MetricRubricTrait.safeParse({ name: "m", tp_instructions: ["a"], metrics: ["accuracy"] }).success).toBe(false);
    expect(
      MetricRubricTrait.safeParse({
        name: "m",
        evaluation_mode: "full_matrix",
        tp_instructions: ["a"],
        tn_instructions: ["b"],
        metrics: ["accuracy"],
      }).success,
    ).toBe(true);
  });
});
