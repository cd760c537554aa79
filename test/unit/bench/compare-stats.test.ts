// bench/cpu-compare's arithmetic: what it reads from bench/throughput, and the ratio it reports.
import { describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { bootstrapRatio, parseThroughput, summary } from "../../../bench/lib/compare-stats.mjs";

// The figures' lines in the order bench/throughput prints them (and printed them at dbbeed1).
const printout = `
  status            completed (400/400 results)
  whole calls       6.50 s = max(k·L, ⌈N·m/C⌉·L): no schedule beats it, each slot making whole calls of L (ratio 1.04)
  ratio             1.08 (wall / bound)
  CPU per result    2.88 ms (workerd, all threads, from the POST to finished_at ÷ results)
`;

describe("parseThroughput", () => {
  it("reads CPU per result and the wall/bound ratio, not the whole-calls line's ratio", () => {
    expect(parseThroughput(printout)).toEqual({ cpuPerResultMs: 2.88, ratio: 1.08 });
  });

  it("is null when a figure is missing, as when the bench failed or had no /proc", () => {
    expect(parseThroughput(printout.replace("2.88 ms", "n/a (no /proc)"))).toBeNull();
    expect(parseThroughput("FAILED: the run did not finish")).toBeNull();
  });
});

describe("summary", () => {
  it("gives mean, median (even and odd counts) and range", () => {
    expect(summary([3, 1, 2])).toEqual({ mean: 2, median: 2, min: 1, max: 3 });
    expect(summary([4, 1, 2, 3])).toEqual({ mean: 2.5, median: 2.5, min: 1, max: 4 });
  });
});

describe("bootstrapRatio", () => {
  const ours = [2.23, 1.98, 2.05, 1.93, 1.95, 2.13];
  const theirs = [3.95, 3.45, 3.5, 3.33, 3.52, 3.25];

  it("reports mean ÷ mean with an interval around it that widens with the spread", () => {
    const r = bootstrapRatio(ours, theirs);
    expect(r.ratio).toBeCloseTo(2.045 / 3.5, 3);
    expect(r.low).toBeLessThan(r.ratio);
    expect(r.high).toBeGreaterThan(r.ratio);
    const wide = bootstrapRatio([1.2, 2.9, 1.5, 2.6, 1.4, 2.7], theirs);
    expect(wide.high - wide.low).toBeGreaterThan(2 * (r.high - r.low));
  });

  it("is the same for the same rounds (seeded), and exact when nothing varies", () => {
    expect(bootstrapRatio(ours, theirs)).toEqual(bootstrapRatio(ours, theirs));
    expect(bootstrapRatio([2, 2, 2], [4, 4, 4])).toEqual({ ratio: 0.5, low: 0.5, high: 0.5 });
  });

  it("resamples rounds as pairs: drift that moves both runs of a round does not widen the interval", () => {
    // Each round's two runs in the same proportion while the machine drifts from 2 to 3 ms.
    const drifting = [2, 2.2, 2.4, 2.6, 2.8, 3];
    const r = bootstrapRatio(
      drifting,
      drifting.map((x) => 2 * x),
    );
    expect(r).toEqual({ ratio: 0.5, low: 0.5, high: 0.5 });
  });

  it("needs as many rounds on each side", () => {
    expect(() => bootstrapRatio([1, 2], [1])).toThrow(/same number of rounds/);
  });
});
