import { describe, expect, it } from "vitest";
import { type BucketDecision, RequestBucket } from "../../../src/tenants/request-bucket";
import { ALLOWANCE_BATCH, ALLOWANCE_MS, RequestAllowances } from "../../../src/tenants/request-allowance";

const WINDOW_S = 60;

/** One isolate in front of the tenant's bucket, as src/http/request-rate.ts drives them. */
function isolate(bucket: RequestBucket, quota: number) {
  const allowances = new RequestAllowances();
  let calls = 0;
  return {
    request(now: number): BucketDecision {
      const local = allowances.spend("t", quota, now, WINDOW_S);
      if (local) return local;
      calls += 1;
      const d = bucket.take(quota, now, { size: ALLOWANCE_BATCH, holdMs: ALLOWANCE_MS });
      allowances.keep("t", quota, now, d);
      return d;
    },
    calls: () => calls,
  };
}

/** The most requests admitted in any interval of `lengthMs` (the admissions sorted). */
function busiest(admitted: number[], lengthMs: number): number {
  let best = 0;
  for (let i = 0, j = 0; i < admitted.length; i++) {
    while (admitted[i]! - admitted[j]! > lengthMs) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe("request allowances (an isolate's batch of a tenant's tokens)", () => {
  it("spends a batch locally: one call to the bucket per batch, and RateLimit's remaining counts down by one", () => {
    const bucket = new RequestBucket(6_400, WINDOW_S, 0);
    const one = isolate(bucket, 6_400);
    const seen = Array.from({ length: 3 * ALLOWANCE_BATCH }, () => one.request(0));
    expect(seen.every((d) => d.allowed)).toBe(true);
    expect(one.calls()).toBe(3);
    expect(seen.map((d) => d.remaining)).toEqual(seen.map((_, i) => 6_400 - 1 - i));
  });

  it("gives no batch to a small quota or from the lower half of the bucket", () => {
    expect(new RequestBucket(60, WINDOW_S, 0).take(60, 0, { size: 16, holdMs: 1_000 }).extra).toBeUndefined();
    const b = new RequestBucket(640, WINDOW_S, 0);
    for (let i = 0; i < 315; i++) b.take(640, 0);
    // 325 left: after this request's token, only 4 are above the half
    expect(b.take(640, 0, { size: 16, holdMs: 1_000 }).extra).toBe(4);
    expect(b.take(640, 0, { size: 16, holdMs: 1_000 }).extra).toBeUndefined();
  });

  it("lets a batch lapse after ALLOWANCE_MS, and drops it when the quota changes", () => {
    const a = new RequestAllowances();
    a.keep("t", 6_400, 0, { allowed: true, remaining: 6_399, resetS: 1, retryAfterS: 0, extra: 15 });
    expect(a.spend("t", 6_400, ALLOWANCE_MS - 1, WINDOW_S)?.allowed).toBe(true);
    expect(a.spend("t", 6_400, ALLOWANCE_MS, WINDOW_S)).toBeUndefined();
    a.keep("t", 6_400, 0, { allowed: true, remaining: 6_399, resetS: 1, retryAfterS: 0, extra: 15 });
    expect(a.spend("t", 100, 1, WINDOW_S)).toBeUndefined();
    expect(a.spend("t", 6_400, 1, WINDOW_S)).toBeUndefined();
  });

  it("never admits more across isolates than the bucket alone would: held tokens count against its capacity until they lapse", () => {
    const quota = 640;
    const bucket = new RequestBucket(quota, WINDOW_S, 0);
    const holder = isolate(bucket, quota);
    const others = Array.from({ length: 4 }, () => isolate(bucket, quota));
    const admitted: number[] = [];
    // One request takes a batch and leaves most of it unspent; the bucket refills behind it.
    if (holder.request(0).allowed) admitted.push(0);
    // Just before the batch lapses: the holder spends the rest of it, and the other isolates drain the bucket.
    const t = ALLOWANCE_MS - 1;
    while (holder.request(t).allowed) {
      admitted.push(t);
      if (admitted.length > 2 * quota) break;
    }
    for (const o of others) while (o.request(t).allowed) admitted.push(t);
    // Any interval of d ms admits at most quota + d · quota / window (what a bucket that starts full admits).
    for (const d of [0, 100, 500, 999])
      expect(busiest(admitted, d)).toBeLessThanOrEqual(quota + Math.floor((d * quota) / (WINDOW_S * 1000)));
    expect(admitted.length).toBeGreaterThan(quota);
  });

  it("keeps that bound under random traffic from many isolates", () => {
    let seed = 7;
    const rand = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    const quota = 1_280;
    const bucket = new RequestBucket(quota, WINDOW_S, 0);
    const isolates = Array.from({ length: 8 }, () => isolate(bucket, quota));
    const admitted: number[] = [];
    let now = 0;
    for (let i = 0; i < 20_000; i++) {
      // bursts and pauses: sometimes many requests at one instant, sometimes a gap of up to 2 s
      now += rand() < 0.9 ? 0 : Math.floor(rand() * 2_000);
      if (isolates[Math.floor(rand() * isolates.length)]!.request(now).allowed) admitted.push(now);
    }
    for (const d of [0, 250, 1_000, 5_000, 60_000])
      expect(busiest(admitted, d)).toBeLessThanOrEqual(quota + Math.floor((d * quota) / (WINDOW_S * 1000)));
  });
});
