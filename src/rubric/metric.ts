/**
 * Metric traits: the judge sorts the answer's content into confusion-matrix lists, the metrics are
 * computed here (Karenina's metric_trait.py). A zero denominator gives 0.0, as in Karenina.
 */
import { z } from "zod";
import type { ModelPort } from "../llm/port";
import { isRetryable, type LlmError } from "../llm/port";
import type { MetricRubricTrait } from "../schemas/rubric";
import { metricMessages, type PromptContext } from "./prompts";
import type { ConfusionLists, EvalLog } from "./types";

const TP_ONLY = ["precision", "recall", "f1"] as const;
const FULL = ["precision", "recall", "f1", "specificity", "accuracy"] as const;

/** Case-insensitive de-duplication keeping the first spelling (Karenina's repeated_extraction). */
export function dedupe(items: readonly string[]): string[] {
  const seen = new Set<string>();
  return items.filter((s) => {
    const k = s.trim().toLowerCase();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);

export function computeMetrics(
  lists: ConfusionLists,
  mode: MetricRubricTrait["evaluation_mode"],
  wanted?: readonly string[],
): Record<string, number> {
  const [tp, fn, fp, tn] = [lists.tp.length, lists.fn.length, lists.fp.length, lists.tn.length];
  const precision = ratio(tp, tp + fp);
  const recall = ratio(tp, tp + fn);
  const all: Record<string, number> = {
    precision,
    recall,
    f1: ratio(2 * precision * recall, precision + recall),
    specificity: ratio(tn, tn + fp),
    accuracy: ratio(tp + tn, tp + tn + fp + fn),
  };
  const allowed: readonly string[] = mode === "full_matrix" ? FULL : TP_ONLY;
  const names = (wanted && wanted.length ? wanted : allowed).filter((m) => allowed.includes(m));
  return Object.fromEntries(names.map((m) => [m, all[m]!]));
}

const Lists = z.object({
  tp: z.array(z.string()).default([]),
  fn: z.array(z.string()).default([]),
  fp: z.array(z.string()).default([]),
  tn: z.array(z.string()).default([]),
});
const LISTS_SCHEMA = {
  type: "object",
  properties: Object.fromEntries(["tp", "fn", "fp", "tn"].map((k) => [k, { type: "array", items: { type: "string" } }])),
  required: ["tp", "fn", "fp", "tn"],
  title: "ConfusionMatrixOutput",
};

export async function evaluateMetricTrait(
  t: MetricRubricTrait,
  judge: ModelPort,
  context: PromptContext,
  log: EvalLog & { transient?: LlmError },
): Promise<{ scores: Record<string, number>; lists: ConfusionLists } | null> {
  const res = await judge.structured({
    messages: metricMessages(t, context),
    schemaName: "ConfusionMatrixOutput",
    jsonSchema: LISTS_SCHEMA,
    schema: Lists,
    call_site: `rubric/metric/${t.name}`,
  });
  if (!res.ok) {
    log.warnings.push(`rubric evaluation: metric trait ${t.name} failed (${res.error.kind}): ${res.error.message}`);
    if (isRetryable(res.error) && !log.transient) log.transient = res.error;
    return null;
  }
  log.usage.push(res.value.usage);
  const raw = res.value.value;
  const clean = (l: string[]) => (t.repeated_extraction ? dedupe(l) : l);
  // tp_only has no true negatives by definition; whatever the judge put there is dropped.
  const lists: ConfusionLists = {
    tp: clean(raw.tp),
    fn: clean(raw.fn),
    fp: clean(raw.fp),
    tn: t.evaluation_mode === "full_matrix" ? clean(raw.tn) : [],
  };
  return { scores: computeMetrics(lists, t.evaluation_mode, t.metrics), lists };
}
