/**
 * Pools and maps: pure functions over upstream outputs, no model call.
 *
 * Every input pools as its `value`: a score as is, a label as 1 when it is the unit's `pass_value`
 * and 0 otherwise — so over labels mean / max / min give the vote share of the passing label.
 * - max (majority vote, Verdict's MaxPool = `statistics.mode`, verdict/transform.py:134): the most
 *   frequent answer. **Tie rule (Verdict's):** among equally frequent answers the one that came
 *   first in layer order wins (`statistics.mode` counts with a Counter, whose ties keep first-seen
 *   order), and `tie: true` says a tie was broken. Over labels the pooled value is still the vote
 *   share of `pass_value` (the spec's threshold on max-pool reads it) and the pool reports the
 *   inputs' `pass_value` (a choice passes as "A"); over scores the value is the winning score.
 * - mean, weighted mean (weights by unit name; repeats share their unit's weight), min,
 *   mean-variance (value = mean, sample variance (n − 1; 0 for one input) as Verdict's
 *   MeanVariancePool: `statistics.variance(x) if len(x) > 1 else 0.0`, verdict/transform.py:142).
 */
import type { JudgeNode, UnitOutput } from "./types";

export interface Pooled {
  value: number;
  answer?: string | number | boolean;
  votes?: Record<string, number>;
  /** max over labels: the passing answer (the inputs' `pass_value`; "A" for a choice). */
  pass_value?: string | number | boolean;
  /** max: equally frequent answers were split by layer order. */
  tie?: true;
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
      return { value: mean, variance: sampleVariance(values, mean) };
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
  // Strictly greater: an equal count never displaces an answer seen earlier in layer order.
  const winner = [...votes.values()].reduce((best, v) => (v.count > best.count ? v : best));
  const tie = [...votes.values()].filter((v) => v.count === winner.count).length > 1;
  const labels = inputs.some((o) => o.pass_value !== undefined || o.chosen !== undefined);
  const share = inputs.reduce((s, o) => s + o.value!, 0) / inputs.length;
  return {
    value: labels ? share : winner.value,
    answer: winner.answer,
    votes: Object.fromEntries([...votes].map(([k, v]) => [k, v.count])),
    ...(labels ? { pass_value: inputs[0]!.pass_value ?? "A" } : {}),
    ...(tie ? { tie: true as const } : {}),
  };
}

/** Sample variance (n − 1), 0 for a single value. */
export function sampleVariance(values: number[], mean: number): number {
  return values.length > 1 ? values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1) : 0;
}

export function mapValue(n: JudgeNode, input: UnitOutput, inputRange: [number, number]): number {
  const v = input.value!;
  const [lo, hi] = inputRange;
  return n.unit.op === "invert" ? lo + hi - v : hi === lo ? 0 : (v - lo) / (hi - lo);
}
