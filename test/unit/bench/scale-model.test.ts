// bench/scale-model's arithmetic: which component binds, and the fixed limits a run size breaks.
import { describe, expect, it } from "vitest";
import { MAX_RESULTS_PER_RUN as PLAN_MAX } from "../../../src/submit/plan";
// @ts-expect-error plain-Node module without types
import { ceilings, LIMITS, MAX_RESULTS_PER_RUN, PER_RESULT } from "../../../bench/scale-model.mjs";

const opts = {
  bytes: PER_RESULT.bytes,
  cpuMs: PER_RESULT.cpuMs,
  latencyMs: 1000,
  providerRpm: 6000,
  providerConcurrency: 64,
  jobConcurrency: 4,
};
type Row = { component: string; perSecond: number };
type Limit = { what: string; breaks: boolean };

describe("bench/scale-model", () => {
  it("keeps edgeval's per-run cap equal to submit's", () => {
    expect(MAX_RESULTS_PER_RUN).toBe(PLAN_MAX);
  });

  it("lists ceilings lowest first: the provider binds at its defaults, the limiter object once the provider is fast", () => {
    const slow = ceilings(100_000, opts).rows as Row[];
    expect(slow.map((r) => r.perSecond)).toEqual([...slow.map((r) => r.perSecond)].sort((a, b) => a - b));
    expect(slow[0]!.component).toMatch(/^provider/);
    // min(6000 rpm / 60, 64 in flight / 1 s) calls/s, 2 calls per result
    expect(slow[0]!.perSecond).toBe(32);
    const fast = ceilings(100_000, { ...opts, providerRpm: 1e9, providerConcurrency: 1e9 }).rows as Row[];
    expect(fast[0]!.component).toMatch(/ProviderLimiter/);
    expect(fast[0]!.perSecond).toBe(LIMITS.doRequestsPerSecond / PER_RESULT.limiterRequests);
  });

  it("flags what a run of a million jobs breaks: one request's subrequests for the enqueue, and edgeval's cap", () => {
    const broken = (jobs: number) => (ceilings(jobs, opts).limits as Limit[]).filter((l) => l.breaks).map((l) => l.what);
    expect(broken(100_000)).toEqual([]);
    expect(broken(1_000_000)).toEqual([expect.stringMatching(/enqueue at submit/), expect.stringMatching(/results per run/)]);
    expect(broken(3_000_000)).toContain("D1 storage");
  });
});
