import { describe, expect, it } from "vitest";
import { LimiterState } from "../../../src/limiter/limiter-state";

const limits = { rpm: 600, tpm: 1_000_000, concurrency: 4 };
const tuning = { leaseMs: 10_000, increaseEveryMs: 1_000, minFactor: 1 / 64, minRateFactor: 1 / 4 };
const grant = (s: LimiterState, now: number, tokens = 10) => {
  const a = s.acquire(now, tokens);
  if (!a.granted) throw new Error(`not granted, wait ${a.wait_ms}`);
  return a.lease_id;
};

describe("provider limiter state", () => {
  it("grants up to the concurrency cap, then asks to wait until a lease is released", () => {
    const s = new LimiterState(limits, 0, tuning);
    const leases = [1, 2, 3, 4].map(() => grant(s, 0));
    expect(s.acquire(0, 10).granted).toBe(false);
    s.release(1, { lease_id: leases[0]! });
    expect(s.acquire(1, 10).granted).toBe(true);
  });

  it("expires a lease whose holder never released it", () => {
    const s = new LimiterState({ ...limits, concurrency: 1 }, 0, tuning);
    grant(s, 0);
    expect(s.acquire(9_999, 10).granted).toBe(false);
    expect(s.acquire(10_000, 10).granted).toBe(true);
  });

  it("spaces requests by the requests-per-minute bucket once the burst is spent", () => {
    const s = new LimiterState({ rpm: 2, tpm: 1_000_000, concurrency: 10 }, 0, tuning);
    for (const id of [grant(s, 0), grant(s, 0)]) s.release(0, { lease_id: id });
    const third = s.acquire(0, 10);
    expect(third).toEqual({ granted: false, wait_ms: 30_000, reason: "rate" });
    expect(s.acquire(30_000, 10).granted).toBe(true);
  });

  it("prepays handed-on calls from the buckets, as far as they hold, and refunds the unused ones at release", () => {
    const s = new LimiterState({ rpm: 4, tpm: 1_000_000, concurrency: 10 }, 0, tuning);
    const first = grant(s, 0);
    expect([s.prepayOne(first), s.prepayOne(first)]).toEqual([true, true]);
    const second = grant(s, 0); // the last request of the bucket: nothing left to prepay
    expect(s.prepayOne(second)).toBe(false);
    expect(s.prepayOne("no-such-lease")).toBe(false);
    expect(s.acquire(0, 10)).toMatchObject({ granted: false, reason: "rate" });
    // The first lease made one call of its two prepaid ones: one request comes back.
    s.release(0, { lease_id: first, calls: 2 });
    expect(s.acquire(0, 10)).toMatchObject({ granted: true });
    expect(s.acquire(0, 10)).toMatchObject({ granted: false, reason: "rate" });
  });

  it("charges calls made beyond a lease's prepaid ones at release", () => {
    const s = new LimiterState({ rpm: 3, tpm: 1_000_000, concurrency: 10 }, 0, tuning);
    const id = grant(s, 0);
    s.release(0, { lease_id: id, calls: 3 }); // one grant, nothing prepaid, three calls: the bucket is spent
    expect(s.acquire(0, 10)).toEqual({ granted: false, wait_ms: 20_000, reason: "rate" });
  });

  it("holds calls back on the tokens-per-minute bucket and charges actual usage at release", () => {
    const s = new LimiterState({ rpm: 1_000, tpm: 1_000, concurrency: 10 }, 0, tuning);
    const id = grant(s, 0, 100);
    s.release(0, { lease_id: id, tokens_used: 1_000 }); // the estimate was 10x short
    const next = s.acquire(0, 100);
    expect(next.granted).toBe(false);
    if (!next.granted) expect(next.wait_ms).toBe(6_000); // 100 tokens at 1,000 a minute
  });

  it("halves the allowance on a 429 once per generation, blocks the key for the retry-after, then grows back", () => {
    const s = new LimiterState({ rpm: 600, tpm: 1_000_000, concurrency: 8 }, 0, tuning);
    const leases = Array.from({ length: 8 }, () => grant(s, 0));
    s.release(10, { lease_id: leases[0]!, rate_limited: true, retry_after_ms: 2_000 });
    s.release(11, { lease_id: leases[1]!, rate_limited: true }); // same overload, already counted
    expect(s.allowance().concurrency).toBe(4);
    expect(s.acquire(500, 10)).toEqual({ granted: false, wait_ms: 1_510, reason: "blocked" });
    for (const id of leases.slice(2)) s.release(600, { lease_id: id });
    // one slot back per quiet interval (1 s here): 2 intervals after the 429, 6 slots
    expect(s.acquire(2_010, 10).granted).toBe(true);
    expect(s.allowance().concurrency).toBe(6);
    s.acquire(4_100, 10);
    expect(s.allowance().concurrency).toBe(8);
  });

  it("halves from the calls in use, so 16 in flight under a cap of 64 come down to 8 in one step", () => {
    const s = new LimiterState({ rpm: 6_000, tpm: 10_000_000, concurrency: 64 }, 0, tuning);
    const leases = Array.from({ length: 16 }, () => grant(s, 0));
    s.release(5, { lease_id: leases[0]!, rate_limited: true });
    expect(s.allowance().concurrency).toBe(8);
  });

  it("follows the refusals of the burst that caused the shrink: 24 in use, 16 refused → 8", () => {
    const s = new LimiterState({ rpm: 6_000, tpm: 10_000_000, concurrency: 64 }, 0, tuning);
    const leases = Array.from({ length: 24 }, () => grant(s, 0));
    for (const id of leases.slice(8)) s.release(5, { lease_id: id, rate_limited: true });
    expect(s.allowance().concurrency).toBe(8);
    for (const id of leases.slice(0, 8)) s.release(6, { lease_id: id });
    expect(s.allowance().concurrency).toBe(8);
  });

  it("a 429 of a call granted after the last shrink shrinks it again, down to the floor and never to zero", () => {
    const s = new LimiterState({ rpm: 600, tpm: 1_000_000, concurrency: 2 }, 0, tuning);
    for (let i = 0; i < 10; i++) s.release(0, { lease_id: grant(s, 0), rate_limited: true });
    expect(s.allowance()).toEqual({ concurrency: 1, rpm: 150, tpm: 250_000 }); // rates stop at a quarter
    expect(s.acquire(0, 10).granted).toBe(true);
  });
});
