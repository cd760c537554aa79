/**
 * Pools and maps: pure functions over upstream outputs, no model call.
 *
 * Every input pools as its `value`: a score as is, a label as 1 when it is the unit's `pass_value`
 * and 0 otherwise — so over labels mean / max / min give the vote share of the passing label.
 * - max (majority vote, Verdict's MaxPool = statistics.mode): the most frequent answer.
 *   **Tie rule:** among equally frequent answers the one with the lowest value wins — for labels,
 *   a non-passing label; for scores, the lower score — so a split vote never passes by accident.
 *   Over labels the pooled value is still the vote share of `pass_value` (the spec's threshold on
 *   max-pool reads it); the winning label is reported as `answer` with the `votes`.
 * - mean, weighted mean (weights by unit name; repeats share their unit's weight), min,
 *   mean-variance (value = mean, population variance reported).
 */
import type { JudgeNode, UnitOutput } from "./types";

export interface Pooled {
  value: number;
  answer?: string | number | boolean;
  votes?: Record<string, number>;
  variance?: number;
}

export function pool(n: JudgeNode, inputs: UnitOutput[], bases: string[]): Pooled {
  const values = inputs.map((o) => o.value!);
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  switch (n.pool!) {
    case "mean":
      return { value: mean };
    case "min":
      return { value: Math.min(...values) };
    case "weighted-mean": {
      const w = bases.map((b) => n.unit.weights![b] ?? 0);
      const total = w.reduce((s, x) => s + x, 0);
      return { value: values.reduce((s, v, i) => s + v * w[i]!, 0) / total };
    }
    case "mean-variance":
      return { value: mean, variance: values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length };
    case "max":
      return majority(inputs);
  }
}

export function majority(inputs: UnitOutput[]): Pooled {
  const votes = new Map<string, { count: number; value: number; answer: string | number | boolean }>();
  for (const o of inputs) {
    const answer = o.answer ?? o.chosen ?? o.value!;
    const key = String(answer);
    const v = votes.get(key) ?? { count: 0, value: o.value!, answer };
    v.count++;
    votes.set(key, v);
  }
  const winner = [...votes.values()].reduce((best, v) =>
    v.count > best.count || (v.count === best.count && v.value < best.value) ? v : best,
  );
  const labels = inputs.some((o) => o.pass_value !== undefined || o.chosen !== undefined);
  const share = inputs.reduce((s, o) => s + o.value!, 0) / inputs.length;
  return {
    value: labels ? share : winner.value,
    answer: winner.answer,
    votes: Object.fromEntries([...votes].map(([k, v]) => [k, v.count])),
  };
}

export function mapValue(n: JudgeNode, input: UnitOutput, inputRange: [number, number]): number {
  const v = input.value!;
  const [lo, hi] = inputRange;
  return n.unit.op === "invert" ? lo + hi - v : hi === lo ? 0 : (v - lo) / (hi - lo);
}
