import { describe, expect, it } from "vitest";
import { DEFAULT_TUNING, LimiterState, PROVIDER_DEFAULTS } from "../../../src/limiter/limiter-state";

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

  it("expires each lease at its own time, the later ones after an earlier one was swept", () => {
    const s = new LimiterState({ ...limits, concurrency: 2 }, 0, tuning);
    grant(s, 0); // expires at 10 s
    grant(s, 5_000); // at 15 s
    expect(s.acquire(9_999, 10).granted).toBe(false);
    grant(s, 10_000); // the first expired; this one expires at 20 s
    expect(s.acquire(14_999, 10).granted).toBe(false);
    grant(s, 15_000); // the second's turn, not the third's
    expect(s.acquire(19_999, 10).granted).toBe(false);
    expect(s.acquire(20_000, 10).granted).toBe(true);
  });

  it("holds the request after rpm of them until a minute after the first ended (at most rpm in any 60 s)", () => {
    const s = new LimiterState({ rpm: 2, tpm: 1_000_000, concurrency: 10 }, 0, tuning);
    for (const id of [grant(s, 0), grant(s, 0)]) s.release(0, { lease_id: id });
    const third = s.acquire(0, 10);
    expect(third).toEqual({ granted: false, wait_ms: 60_000, reason: "rate" });
    // The old bucket granted it here, half a minute on: 3 requests in [0, 60 s) against 2.
    expect(s.acquire(30_000, 10).granted).toBe(false);
    expect(s.acquire(60_000, 10).granted).toBe(true);
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
    s.release(0, { lease_id: id, calls: 3 }); // one grant, nothing prepaid, three calls: the minute is spent
    expect(s.acquire(0, 10)).toEqual({ granted: false, wait_ms: 60_000, reason: "rate" });
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

  it("counts a call of the burst that came back done before the burst's last refusals as a slot the provider gave again: 24 in use, 1 done, 15 refused → 8", () => {
    // The fake's log of a loaded run: the provider took 8 at once, but 9 of the 24 got through,
    // because the first one finished before the last of the burst arrived.
    const s = new LimiterState({ rpm: 6_000, tpm: 10_000_000, concurrency: 64 }, 0, tuning);
    const leases = Array.from({ length: 24 }, () => grant(s, 0));
    for (const id of leases.slice(8, 20)) s.release(5, { lease_id: id, rate_limited: true });
    s.release(5, { lease_id: leases[0]! }); // done; leases[20] took its slot
    for (const id of leases.slice(21)) s.release(5, { lease_id: id, rate_limited: true });
    expect(s.allowance().concurrency).toBe(8);
  });

  it("never narrows below half of what the provider took when done and refused calls interleave", () => {
    const s = new LimiterState({ rpm: 6_000, tpm: 10_000_000, concurrency: 64 }, 0, tuning);
    const leases = Array.from({ length: 24 }, () => grant(s, 0));
    leases.slice(0, 10).forEach((id, i) => {
      s.release(5, { lease_id: leases[10 + i]!, rate_limited: true });
      s.release(5, { lease_id: id });
    });
    // 10 refused, 10 done in between, 4 still out: it took 14, at least 7 at once.
    expect(s.allowance().concurrency).toBe(7);
  });

  it("a 429 of a call granted after the last shrink shrinks it again, down to the floor and never to zero", () => {
    const s = new LimiterState({ rpm: 600, tpm: 1_000_000, concurrency: 2 }, 0, tuning);
    for (let i = 0; i < 10; i++) s.release(0, { lease_id: grant(s, 0), rate_limited: true });
    expect(s.allowance()).toEqual({ concurrency: 1, rpm: 150, tpm: 250_000 }); // rates stop at a quarter
    expect(s.acquire(0, 10).granted).toBe(true);
  });
});

describe("provider limiter state: what mutation testing found unpinned", () => {
  it("keeps the tokens-per-minute limit after a release that reports no tokens_used", () => {
    const s = new LimiterState({ rpm: 1_000, tpm: 1_000, concurrency: 10 }, 0, tuning);
    s.release(0, { lease_id: grant(s, 0, 400) }); // no usage reported: the estimate stands
    expect(s.acquire(0, 400).granted).toBe(true);
    expect(s.acquire(0, 400)).toEqual({ granted: false, wait_ms: 12_000, reason: "rate" }); // 200 short at 1,000 a minute
  });

  it("treats a tokens_used that is not a finite count of tokens as absent, so the bucket never becomes NaN", () => {
    for (const tokens_used of [Number.NaN, Number.POSITIVE_INFINITY, -50]) {
      const s = new LimiterState({ rpm: 1_000, tpm: 1_000, concurrency: 10 }, 0, tuning);
      s.release(0, { lease_id: grant(s, 0, 400), tokens_used });
      expect(s.acquire(0, 400).granted).toBe(true);
      expect(s.acquire(0, 400)).toEqual({ granted: false, wait_ms: 12_000, reason: "rate" });
    }
  });

  it("refunds every charged token when the calls report using none", () => {
    const s = new LimiterState({ rpm: 1_000, tpm: 1_000, concurrency: 10 }, 0, tuning);
    s.release(0, { lease_id: grant(s, 0, 400), tokens_used: 0 });
    expect(s.acquire(0, 1_000).granted).toBe(true);
  });

  it("refills the tokens-per-minute bucket in proportion to the time passed", () => {
    const s = new LimiterState({ rpm: 1_000, tpm: 1_200, concurrency: 10 }, 0, tuning);
    grant(s, 0, 600);
    grant(s, 0, 600);
    // A quarter minute later 300 tokens are back, half a minute later 600.
    expect(s.acquire(15_000, 900)).toEqual({ granted: false, wait_ms: 30_000, reason: "rate" });
    expect(s.acquire(30_000, 900)).toEqual({ granted: false, wait_ms: 15_000, reason: "rate" });
    expect(s.acquire(45_000, 900).granted).toBe(true);
  });

  it("charges a prepaid call's tokens when it is prepaid and refunds them when it is not made", () => {
    const s = new LimiterState({ rpm: 100, tpm: 100, concurrency: 10 }, 0, tuning);
    const id = grant(s, 0, 40);
    expect(s.prepayOne(id)).toBe(true); // 20 tokens left: not enough for a second prepaid call
    expect(s.prepayOne(id)).toBe(false);
    expect(s.acquire(0, 30)).toEqual({ granted: false, wait_ms: 6_000, reason: "rate" });
    s.release(0, { lease_id: id, calls: 1 }); // the prepaid call was not made: its 40 tokens come back
    expect(s.acquire(0, 60).granted).toBe(true);
    expect(s.acquire(0, 1)).toMatchObject({ granted: false, reason: "rate" });
  });

  it("corrects a prepaid lease's tokens to what its calls used", () => {
    const s = new LimiterState({ rpm: 100, tpm: 100, concurrency: 10 }, 0, tuning);
    const id = grant(s, 0, 20);
    expect(s.prepayOne(id)).toBe(true); // 40 charged
    s.release(0, { lease_id: id, calls: 2, tokens_used: 10 }); // two calls, 10 tokens in all: 30 back
    expect(s.acquire(0, 90).granted).toBe(true);
    expect(s.acquire(0, 1)).toMatchObject({ granted: false, reason: "rate" });
  });

  it("cuts both buckets down to the halved allowance on a 429, so a prepay right after it cannot spend the old one", () => {
    // Concurrency kept at its cap (minFactor 1); prepayOne, unlike acquire, does not refill (and so re-cap) first.
    const flat = { ...tuning, minFactor: 1 };
    const prepaid = (s: LimiterState, id: string) => {
      let n = 0;
      while (s.prepayOne(id)) n++;
      return n;
    };
    const requests = new LimiterState({ rpm: 10, tpm: 1_000_000, concurrency: 20 }, 0, flat);
    const held = grant(requests, 0);
    requests.release(0, { lease_id: grant(requests, 0), rate_limited: true }); // rpm 10 → 5
    expect(requests.allowance()).toEqual({ rpm: 5, tpm: 500_000, concurrency: 20 });
    // Two of the minute's 5 are spent (the held lease and the refused call). The old bucket
    // prepaid 5 here (its 8 left cut to 5): 7 requests in the minute against 5.
    expect(prepaid(requests, held)).toBe(3);
    const tokens = new LimiterState({ rpm: 1_000, tpm: 1_000, concurrency: 20 }, 0, flat);
    const big = grant(tokens, 0, 100);
    tokens.release(0, { lease_id: grant(tokens, 0, 10), rate_limited: true }); // tpm 1,000 → 500: 890 left, cut to 500
    expect(prepaid(tokens, big)).toBe(5);
  });

  it("on a concurrency refusal, asks to wait until the soonest lease expiry, at most 50 ms and at least 1 ms", () => {
    const s = new LimiterState({ ...limits, concurrency: 1 }, 0, tuning);
    grant(s, 0);
    expect(s.acquire(0, 10)).toEqual({ granted: false, wait_ms: 50, reason: "concurrency" });
    expect(s.acquire(9_990, 10)).toEqual({ granted: false, wait_ms: 10, reason: "concurrency" });
    expect(s.acquire(9_999.5, 10)).toEqual({ granted: false, wait_ms: 1, reason: "concurrency" });
  });

  it("pins the default tuning and the per-provider defaults", () => {
    expect(DEFAULT_TUNING).toEqual({ leaseMs: 150_000, increaseEveryMs: 10_000, minFactor: 1 / 64, minRateFactor: 1 / 4 });
    expect(PROVIDER_DEFAULTS).toEqual({
      openai: { rpm: 5_000, tpm: 2_000_000, concurrency: 64 },
      anthropic: { rpm: 1_000, tpm: 400_000, concurrency: 32 },
      openai_compatible: { rpm: 60_000, tpm: 100_000_000, concurrency: 64 },
    });
    // Without a tuning the defaults apply: a lease lives 150 s.
    expect(new LimiterState(limits, 0).acquire(0, 10)).toMatchObject({ granted: true, expires_at: 150_000 });
  });

  it("prepays while exactly one request and exactly one call's tokens are left", () => {
    const s = new LimiterState({ rpm: 2, tpm: 100, concurrency: 10 }, 0, tuning);
    const id = grant(s, 0, 50);
    expect(s.prepayOne(id)).toBe(true); // the last request and the last 50 tokens
    expect(s.prepayOne(id)).toBe(false);
  });

  it("ignores the release of a lease it no longer holds", () => {
    const s = new LimiterState({ ...limits, concurrency: 2 }, 0, tuning);
    const id = grant(s, 0);
    expect(s.inFlight()).toBe(1);
    s.release(0, { lease_id: id });
    expect(() => s.release(0, { lease_id: id, calls: 3, tokens_used: 500 })).not.toThrow();
    expect(s.inFlight()).toBe(0);
    expect(s.allowance()).toEqual({ ...limits, concurrency: 2 });
  });

  it("counts leases in flight until released or expired, and applies new limits to the next grants", () => {
    const s = new LimiterState({ ...limits, concurrency: 2 }, 0, tuning);
    grant(s, 0);
    grant(s, 0);
    expect([s.inFlight(), s.acquire(0, 10).granted]).toEqual([2, false]);
    s.setLimits({ ...limits, concurrency: 3 });
    expect(s.allowance().concurrency).toBe(3);
    expect(s.acquire(0, 10).granted).toBe(true);
    expect(s.inFlight()).toBe(3);
    s.acquire(10_000, 10); // the three leases expire, one is granted
    expect(s.inFlight()).toBe(1);
  });

  it("narrows only on refusals of the burst that caused the last shrink, not of an older one", () => {
    const s = new LimiterState({ rpm: 6_000, tpm: 10_000_000, concurrency: 64 }, 0, tuning);
    const old = Array.from({ length: 24 }, () => grant(s, 0));
    s.release(1, { lease_id: old[0]!, rate_limited: true }); // 24 in use → 12
    for (const id of old.slice(1, 18)) s.release(1, { lease_id: id }); // six of the old burst still out
    const next = Array.from({ length: 6 }, () => grant(s, 2));
    s.release(3, { lease_id: next[0]!, rate_limited: true }); // 12 in use → 6
    expect(s.allowance().concurrency).toBe(6);
    // Six refusals of the first burst: two shrinks ago, they say nothing about the 12 just tried.
    for (const id of old.slice(18)) s.release(4, { lease_id: id, rate_limited: true });
    expect(s.allowance().concurrency).toBe(6);
  });

  it("a second 429 halves from the already halved share, so recovery starts from the floor", () => {
    const s = new LimiterState({ rpm: 600, tpm: 1_000_000, concurrency: 2 }, 0, tuning);
    for (let i = 0; i < 3; i++) s.release(0, { lease_id: grant(s, 0), rate_limited: true }); // 1 → ½ → ¼ → ⅛ of 2
    s.acquire(1_000, 10); // one quiet interval: ⅛ + ½ of the cap is still one slot
    expect(s.allowance().concurrency).toBe(1);
  });

  it("grows back one slot and a tenth of the rates per quiet interval, counted from the last change", () => {
    const s = new LimiterState({ rpm: 600, tpm: 1_000_000, concurrency: 8 }, 0, tuning);
    s.release(5_000, { lease_id: grant(s, 0), rate_limited: true }); // rpm 300, tpm 500,000, 1 slot
    const at = (now: number) => (s.acquire(now, 1), s.allowance());
    expect(at(5_500)).toEqual({ rpm: 300, tpm: 500_000, concurrency: 1 });
    expect(at(6_000)).toEqual({ rpm: 360, tpm: 600_000, concurrency: 2 });
    expect(at(6_500)).toEqual({ rpm: 360, tpm: 600_000, concurrency: 2 });
    expect(at(7_000)).toEqual({ rpm: 420, tpm: 700_000, concurrency: 3 });
  });

  it("does not shrink the allowance when the clock steps back", () => {
    const s = new LimiterState({ rpm: 600, tpm: 1_000_000, concurrency: 8 }, 0, tuning);
    s.release(5_000, { lease_id: grant(s, 0), rate_limited: true });
    s.acquire(3_000, 1);
    expect(s.allowance()).toEqual({ rpm: 300, tpm: 500_000, concurrency: 1 });
    s.acquire(6_000, 1);
    expect(s.allowance()).toEqual({ rpm: 360, tpm: 600_000, concurrency: 2 });
  });
});
