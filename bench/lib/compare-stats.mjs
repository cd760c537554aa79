// The arithmetic of bench/cpu-compare: reading bench/throughput's figures from its output, and
// comparing two sets of rounds.
import { mulberry32 } from "../../src/lib/random.ts";

/**
 * CPU per result and ratio from bench/throughput's printout (the lines "CPU per result  2.05 ms"
 * and "ratio  1.08 (wall / bound)", printed alike by every revision since issue 19), or null when
 * either is missing (a failed run, or a revision whose bench printed neither).
 */
export function parseThroughput(out) {
  const cpu = out.match(/^\s*CPU per result\s+([\d.]+) ms/m);
  const ratio = out.match(/^\s*ratio\s+([\d.]+) \(wall \/ bound\)/m);
  if (!cpu || !ratio) return null;
  return { cpuPerResultMs: Number(cpu[1]), ratio: Number(ratio[1]) };
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

export function summary(xs) {
  if (xs.length === 0) throw new Error("no figures to summarise");
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { mean: mean(xs), median, min: sorted[0], max: sorted.at(-1) };
}

/**
 * mean(a) ÷ mean(b) over rounds taken in turn (a[i] and b[i] minutes apart), with a 95 %
 * percentile interval from resampling the rounds with replacement, each round as a pair: the
 * machine drifts over an hour by more than a change shows (bench/RESULTS.md), and a round's two
 * runs drift together.
 */
export function bootstrapRatio(a, b, { iterations = 10_000, seed = 19 } = {}) {
  if (a.length === 0 || a.length !== b.length) throw new Error("both sides need the same number of rounds, at least one");
  // Seeded: the same rounds give the same interval every time.
  const rand = mulberry32(seed);
  const ratios = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    let sumA = 0;
    let sumB = 0;
    for (let j = 0; j < a.length; j++) {
      const k = Math.floor(rand() * a.length);
      sumA += a[k];
      sumB += b[k];
    }
    ratios[i] = sumA / sumB;
  }
  ratios.sort();
  return {
    ratio: mean(a) / mean(b),
    low: ratios[Math.floor(0.025 * (iterations - 1))],
    high: ratios[Math.ceil(0.975 * (iterations - 1))],
  };
}
