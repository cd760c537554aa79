// bench/sharded-run's "RSS at a point of the run's progress" (bench/lib/run-rss.mjs). Progress is
// read once a second; labelling each RSS sample with the last read left the window of the run's
// last 5 % without a sample whenever one read jumped over it, and the bench printed "flat memory:
// NO (… n/a …)" for a run that had not been measured (3 of 4 runs, 6 Dec).
import { describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { doneAt, rssAt } from "../../../bench/lib/run-rss.mjs";

/** A 20,000-result run read every second, 950 results a read, finished at 20.9 s; RSS sampled every 250 ms. */
function run20k() {
  const progress = [];
  for (let t = 0; t <= 20_000; t += 1000) progress.push({ t, done: (t / 1000) * 950 });
  progress.push({ t: 20_900, done: 20_000 });
  // RSS climbs 1 MB a sample, so a window's peak says which samples it took.
  const samples = [];
  for (let t = 0, rss = 200; t <= 20_800; t += 250, rss += 1) samples.push({ t, rss });
  return { progress, samples };
}

describe("doneAt", () => {
  it("interpolates between the reads around a time, and holds the last read after it", () => {
    const { progress } = run20k();
    expect(doneAt(progress, 500)).toBe(475);
    expect(doneAt(progress, 20_450)).toBe(19_500);
    expect(doneAt(progress, 25_000)).toBe(20_000);
    expect(doneAt(progress, -5)).toBe(0);
  });
});

describe("rssAt", () => {
  it("finds the samples of the run's last 5 % when one read jumped over it", () => {
    const { progress, samples } = run20k();
    // The reads saw 19,000 at 20.0 s and 20,000 at 20.9 s: the samples at 20.25, 20.5 and 20.75 s
    // are within (19,000, 20,000]; the peak is the one at 20.75 s (rss 200 + 83).
    expect(rssAt(samples, progress, 20_000, 20_000)).toBe(283);
  });

  it("counts a sample taken after the run's end as at its end", () => {
    const { progress, samples } = run20k();
    expect(rssAt([...samples, { t: 21_000, rss: 300 }], progress, 20_000, 20_000)).toBe(300);
  });

  it("takes the samples within (at − n/20, at] of progress, not the ones a read behind", () => {
    const { progress, samples } = run20k();
    // 1,000–2,000 results: 1.05–2.1 s of the run (samples at 1.25 … 2.0 s, rss 205 … 208).
    expect(rssAt(samples, progress, 2_000, 20_000)).toBe(208);
  });

  it("is null when no sample falls in the window", () => {
    expect(
      rssAt(
        [{ t: 0, rss: 100 }],
        [
          { t: 0, done: 0 },
          { t: 1000, done: 20_000 },
        ],
        20_000,
        20_000,
      ),
    ).toBeNull();
  });
});
