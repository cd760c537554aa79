// bench/scale-model's arithmetic: which component binds, and the fixed limits a run size breaks.
import { describe, expect, it } from "vitest";
import { MAX_RESULTS_PER_RUN as PLAN_MAX } from "../../../src/submit/plan";
import { edgeConfig } from "../../../src/config";
import { SLICES_PER_SHARD } from "../../../src/coordinator/shard-allowance";
import { REPORT_EVERY_MS, REPORT_MAX } from "../../../src/coordinator/shard-report";
import { ENQUEUE_PER_ALARM } from "../../../src/coordinator/stall-watch";
// @ts-expect-error plain-Node module without types
import { ceilings, LIMITS, MAX_RESULTS_PER_RUN, PER_RESULT, SHARDING, shardCount } from "../../../bench/scale-model.mjs";

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

  it("keeps the sharding figures equal to the coordinator's", () => {
    expect(SHARDING).toEqual({
      jobsPerShard: edgeConfig({} as never).coordinatorShardJobs,
      reportEveryMs: REPORT_EVERY_MS,
      reportMax: REPORT_MAX,
      enqueuePerAlarm: ENQUEUE_PER_ALARM,
      slicesPerShard: SLICES_PER_SHARD,
    });
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

  it("flags what a run of a million jobs breaks: edgeval's cap; sharded, its enqueue no longer does, and the root is at its limit", () => {
    const broken = (jobs: number, o = opts) => (ceilings(jobs, o).limits as Limit[]).filter((l) => l.breaks).map((l) => l.what);
    expect(broken(100_000)).toEqual([]);
    expect(broken(1_000_000)).toEqual([expect.stringMatching(/results per run/)]);
    // 200 shards reporting every 200 ms: 1,000 requests/s, the root's whole budget.
    expect((ceilings(1_000_000, opts).limits as (Limit & { atLimit?: boolean })[]).filter((l) => l.atLimit).map((l) => l.what)).toEqual([
      expect.stringMatching(/root's request rate/),
    ]);
    expect(broken(2_000_000)).toContain("root's request rate (reports, all shards busy)");
    expect(broken(3_000_000)).toContain("D1 storage");
    // Unsharded (shards larger than the run), one request would enqueue the whole run.
    expect(broken(1_000_000, { ...opts, shardJobs: 2_000_000 } as typeof opts)).toContain("enqueue at submit (one request)");
  });

  it("spreads the coordinator's calls over the shards: one object's ceiling per 5,000 jobs, the root taking batched reports", () => {
    const rows = (jobs: number) => ceilings(jobs, opts).rows as Row[];
    const perObject = LIMITS.doRequestsPerSecond / PER_RESULT.coordinatorRequests;
    expect(rows(5_000).find((r) => r.component.startsWith("run coordinator"))!.perSecond).toBe(perObject);
    expect(rows(100_000).find((r) => r.component.startsWith("coordinator shards (20,"))!.perSecond).toBe(20 * perObject);
    expect(shardCount(100_000)).toBe(20);
    expect(shardCount(5_000)).toBe(0);
    // 20 shards × 5 reports/s × 500 results.
    expect(rows(100_000).find((r) => r.component.startsWith("root coordinator"))!.perSecond).toBe(20 * 5 * SHARDING.reportMax);
  });
});
