/**
 * Calibration: run one judge config over items with human labels and report agreement.
 *
 * - A human label is pass/fail, or a number on the judge's scale that passes at
 *   `label_threshold` (default: the judge's threshold).
 * - accuracy and Cohen's κ compare pass/fail of each item's first repeat with the human's.
 * - Spearman ρ (ranks, ties averaged) and Kendall τ-b compare the first repeat's score with the
 *   human label (true/false as 1/0). Null where undefined (fewer than 2 items, no variance).
 * - Krippendorff's α (Verdict's ExperimentConfig reports it, verdict/util/experiment.py:95): nominal
 *   over pass/fail when the human labels are booleans, interval over label vs score when they are
 *   numbers (Verdict always uses interval). Null when the data has no variation.
 * - flip rate: share of items whose pass/fail differs between repeats (null with one repeat).
 * - position-swap conflict rate: share of pairwise units run with `swap` whose two orders disagree.
 * Items where the judge failed (in any repeat) are counted in `errored` and left out of every metric.
 */
import { mapLimited } from "../lib/map-limited";
import { runGraph } from "./index";
import type { JudgeGraph, JudgePorts, JudgeSampleInput } from "./types";

export interface LabelledItem extends JudgeSampleInput {
  label: boolean | number;
}

export interface CalibrationReport {
  n: number;
  judged: number;
  errored: number;
  threshold: number;
  accuracy: number | null;
  cohen_kappa: number | null;
  spearman_rho: number | null;
  kendall_tau: number | null;
  krippendorff_alpha: number | null;
  krippendorff_alpha_level: "nominal" | "interval";
  flip_rate: number | null;
  position_swap_conflict_rate: number | null;
  items: {
    index: number;
    label: boolean | number;
    human_pass: boolean;
    pass: (boolean | null)[];
    score: (number | null)[];
    error?: string;
  }[];
}

export async function calibrate(
  graph: JudgeGraph,
  items: LabelledItem[],
  opts: { repeats: number; labelThreshold?: number; concurrency?: number },
  ports: JudgePorts,
): Promise<CalibrationReport> {
  const jobs = items.flatMap((item, i) => Array.from({ length: opts.repeats }, (_, r) => ({ item, i, r })));
  const outcomes = await mapLimited(jobs, opts.concurrency ?? 4, ({ item, i, r }) =>
    runGraph(graph, item, { ...ports, scope: `item${i}/repeat${r}/` }),
  );

  const labelThreshold = opts.labelThreshold ?? graph.threshold;
  let swaps = 0;
  let conflicts = 0;
  for (const o of outcomes) {
    for (const u of o.units) if (u.disagreement !== undefined) swaps++, u.disagreement && conflicts++;
  }
  const rows = items.map((item, i) => {
    const runs = outcomes.slice(i * opts.repeats, (i + 1) * opts.repeats);
    const error = runs.find((o) => o.pass === null)?.error?.message;
    return {
      index: i,
      label: item.label,
      human_pass: typeof item.label === "boolean" ? item.label : item.label >= labelThreshold,
      pass: runs.map((o) => o.pass),
      score: runs.map((o) => o.score),
      ...(error ? { error } : {}),
    };
  });
  // Judged: every repeat decided. An item with a failed repeat shows its error and is errored, as
  // one that failed at once (it used to count as judged by its first repeat alone).
  const ok = rows.filter((r) => r.pass.every((p) => p !== null));
  const judge = ok.map((r) => r.pass[0] as boolean);
  const human = ok.map((r) => r.human_pass);
  const multi = rows.filter((r) => r.pass.length > 1 && r.pass.every((p) => p !== null));
  const nominal = items.some((it) => typeof it.label === "boolean");
  const alpha = nominal
    ? krippendorffAlpha(judge.map(Number), human.map(Number), "nominal")
    : krippendorffAlpha(
        ok.map((r) => r.score[0]!),
        ok.map((r) => Number(r.label)),
        "interval",
      );
  return {
    n: items.length,
    judged: ok.length,
    errored: items.length - ok.length,
    threshold: graph.threshold,
    accuracy: ok.length ? judge.filter((p, i) => p === human[i]).length / ok.length : null,
    cohen_kappa: cohenKappa(judge, human),
    spearman_rho: spearman(
      ok.map((r) => r.score[0]!),
      ok.map((r) => Number(r.label)),
    ),
    kendall_tau: kendallTauB(
      ok.map((r) => r.score[0]!),
      ok.map((r) => Number(r.label)),
    ),
    krippendorff_alpha: alpha,
    krippendorff_alpha_level: nominal ? "nominal" : "interval",
    flip_rate: opts.repeats > 1 && multi.length ? multi.filter((r) => new Set(r.pass).size > 1).length / multi.length : null,
    position_swap_conflict_rate: swaps ? conflicts / swaps : null,
    items: rows,
  };
}

/** Cohen's κ for two binary raters: (p_o − p_e) / (1 − p_e); null when p_e = 1 (both raters constant). */
export function cohenKappa(a: boolean[], b: boolean[]): number | null {
  const n = a.length;
  if (n === 0) return null;
  const po = a.filter((x, i) => x === b[i]).length / n;
  const pa = a.filter(Boolean).length / n;
  const pb = b.filter(Boolean).length / n;
  const pe = pa * pb + (1 - pa) * (1 - pb);
  return pe === 1 ? null : (po - pe) / (1 - pe);
}

function ranks(x: number[]): number[] {
  const idx = x.map((v, i) => [v, i] as const).sort((p, q) => p[0] - q[0]);
  const out = new Array<number>(x.length);
  for (let i = 0; i < idx.length; ) {
    let j = i;
    while (j + 1 < idx.length && idx[j + 1]![0] === idx[i]![0]) j++;
    for (let k = i; k <= j; k++) out[idx[k]![1]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return out;
}

function pearson(x: number[], y: number[]): number | null {
  const n = x.length;
  if (n < 2) return null;
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const my = y.reduce((s, v) => s + v, 0) / n;
  let sxy = 0,
    sxx = 0,
    syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i]! - mx) * (y[i]! - my);
    sxx += (x[i]! - mx) ** 2;
    syy += (y[i]! - my) ** 2;
  }
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}

export const spearman = (x: number[], y: number[]) => pearson(ranks(x), ranks(y));

/** Kendall τ-b (tie-corrected). */
export function kendallTauB(x: number[], y: number[]): number | null {
  let c = 0,
    d = 0,
    tx = 0,
    ty = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      const sx = Math.sign(x[i]! - x[j]!);
      const sy = Math.sign(y[i]! - y[j]!);
      if (sx === 0 && sy === 0) continue;
      if (sx === 0) tx++;
      else if (sy === 0) ty++;
      else if (sx === sy) c++;
      else d++;
    }
  }
  const denom = Math.sqrt((c + d + tx) * (c + d + ty));
  return denom === 0 ? null : (c - d) / denom;
}

/**
 * Krippendorff's α for two raters and no missing values: 1 − (n − 1)·Σ_u 2δ²(a_u, b_u) / Σ_{i,j} δ²(v_i, v_j)
 * over the n = 2N pooled values (the coincidence-matrix form, Krippendorff 2011, "Computing
 * Krippendorff's Alpha-Reliability"); δ² is (a − b)² for interval data, [a ≠ b] for nominal.
 * Null with fewer than two items or when every value is the same (no expected disagreement).
 */
export function krippendorffAlpha(a: number[], b: number[], level: "nominal" | "interval"): number | null {
  if (a.length < 2) return null;
  const d2 = level === "interval" ? (x: number, y: number) => (x - y) ** 2 : (x: number, y: number) => (x === y ? 0 : 1);
  const values = [...a, ...b];
  let observed = 0;
  for (let u = 0; u < a.length; u++) observed += 2 * d2(a[u]!, b[u]!);
  let expected = 0;
  for (const x of values) for (const y of values) expected += d2(x, y);
  return expected === 0 ? null : 1 - ((values.length - 1) * observed) / expected;
}
