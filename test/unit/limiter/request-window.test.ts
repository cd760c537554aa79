/**
 * The limiter's requests-per-minute promise (issue 26, scenario 6): over any pattern of arrivals,
 * hand-ons, call durations, 429s and leases that expire unreleased, no 60 s window can hold more
 * than rpm requests at the provider — wherever in its lease each call actually reached it (between
 * the grant and the release, or the expiry). The old token bucket (full at the start, refilled
 * continuously) fails this: rpm at once, then one every 60/rpm s.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LimiterState } from "../../../src/limiter/limiter-state";
import { RequestWindow, WINDOW_MS, type WindowStore } from "../../../src/limiter/request-window";

const tuning = { leaseMs: 70_000, increaseEveryMs: 1_000, minFactor: 1 / 64, minRateFactor: 1 / 4 };

/** A call reached the provider some time within [from, to]. */
interface Span {
  from: number;
  to: number;
}

/**
 * The most calls that can share one window [T, T + 60 s) when each may have arrived anywhere in
 * its span (the provider's "in any 60 s": two arrivals 60 s apart or more are in different
 * windows). Best placed with T at the earliest end of the calls it holds.
 */
function busiestPossibleWindow(spans: readonly Span[]): number {
  let best = 0;
  for (const { to: t } of spans) best = Math.max(best, spans.filter((s) => s.to >= t && s.from < t + WINDOW_MS).length);
  return best;
}

const caller = fc.record({
  gap: fc.integer({ min: 0, max: 20_000 }),
  prepay: fc.integer({ min: 0, max: 3 }),
  handOns: fc.integer({ min: 0, max: 3 }),
  duration: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 90_000 })),
  refused429: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  retries: fc.integer({ min: 0, max: 3 }),
  /** The object is evicted or reset just before this caller asks (a new LimiterState over the stored window). */
  restart: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
});

type Event =
  | { at: number; kind: "ask"; prepay: number; handOns: number; duration: number; refused429: boolean; retries: number; restart: boolean }
  | { at: number; kind: "release"; lease_id: string; calls: number; refused429: boolean };

/** Drives one LimiterState through the callers in time order; returns every call's span. */
type Caller = typeof caller extends fc.Arbitrary<infer T> ? T : never;

function simulate(rpm: number, concurrency: number, callers: Caller[]): Span[] {
  const limits = { rpm, tpm: 10_000_000, concurrency };
  const kept = new Map<string, [number, number]>();
  const store: WindowStore = { put: (k, v) => void kept.set(k, v), delete: (k) => void kept.delete(k) };
  let s = new LimiterState(limits, 0, tuning, new RequestWindow(store));
  const events: Event[] = [];
  let t = 0;
  for (const c of callers) events.push({ at: (t += c.gap), kind: "ask", ...c });
  const spans: Span[] = [];
  while (events.length > 0) {
    // The earliest event next; a release before an ask at the same moment.
    events.sort((a, b) => a.at - b.at || (a.kind === "release" ? -1 : 1));
    const e = events.shift()!;
    if (e.kind === "release") {
      s.release(e.at, { lease_id: e.lease_id, calls: e.calls, ...(e.refused429 ? { rate_limited: true } : {}) });
      continue;
    }
    // Lease ids carry the instance's start time: restarts at distinct moments only.
    if (e.restart && e.at > 0) s = new LimiterState(limits, e.at, tuning, RequestWindow.restore([...kept], store));
    const g = s.acquire(e.at, 10);
    if (!g.granted) {
      // Asks again exactly when told: the edge of the window is where a limiter slips.
      if (e.retries > 0) events.push({ ...e, at: e.at + g.wait_ms, retries: e.retries - 1, restart: false });
      continue;
    }
    let prepaid = 0;
    while (prepaid < e.prepay && s.prepayOne(g.lease_id)) prepaid += 1;
    const calls = 1 + Math.min(prepaid, e.handOns);
    const end = e.at + e.duration;
    // A lease that outlives its expiry was dropped by the limiter: its pool hands it on no longer.
    const to = Math.min(end, g.expires_at);
    for (let i = 0; i < calls; i++) spans.push({ from: e.at, to });
    events.push({ at: end, kind: "release", lease_id: g.lease_id, calls, refused429: e.refused429 });
  }
  return spans;
}

describe("requests per minute: at most rpm in any 60 s window", () => {
  it("holds for any arrivals, hand-ons, durations, 429s, expiries and restarts of the object (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 16 }),
        fc.array(caller, { maxLength: 80 }),
        (rpm, conc, callers) => {
          const spans = simulate(rpm, conc, callers);
          expect(busiestPossibleWindow(spans)).toBeLessThanOrEqual(rpm);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a burst of rpm calls is followed by nothing until a minute after they ended", () => {
    const s = new LimiterState({ rpm: 3, tpm: 10_000_000, concurrency: 10 }, 0, tuning);
    const ids = [0, 1, 2].map(() => {
      const g = s.acquire(0, 10);
      if (!g.granted) throw new Error("refused");
      return g.lease_id;
    });
    for (const id of ids) s.release(2_000, { lease_id: id });
    // The bucket gave the 4th at 20 s (a third of a minute refills one of three).
    expect(s.acquire(20_000, 10)).toEqual({ granted: false, wait_ms: 42_000, reason: "rate" });
    expect(s.acquire(61_999, 10).granted).toBe(false);
    expect(s.acquire(62_000, 10).granted).toBe(true);
  });

  it("measures the busiest window the way the provider does", () => {
    expect(busiestPossibleWindow([])).toBe(0);
    expect(
      busiestPossibleWindow([
        { from: 0, to: 0 },
        { from: 59_999, to: 59_999 },
      ]),
    ).toBe(2);
    expect(
      busiestPossibleWindow([
        { from: 0, to: 0 },
        { from: 60_000, to: 60_000 },
      ]),
    ).toBe(1);
    // A call somewhere in [0, 100 s] may share a window with either neighbour, not both.
    expect(
      busiestPossibleWindow([
        { from: 0, to: 0 },
        { from: 0, to: 100_000 },
        { from: 100_000, to: 100_000 },
      ]),
    ).toBe(2);
  });
});

/** A store like the object's synchronous storage: a map, read back in key order. */
function mapStore() {
  const map = new Map<string, [number, number]>();
  const store: WindowStore = { put: (k, v) => void map.set(k, v), delete: (k) => void map.delete(k) };
  return { map, store, entries: () => [...map].sort(([a], [b]) => a.localeCompare(b)) };
}

describe("RequestWindow", () => {
  it("counts held calls until their release and ended ones for a minute after it", () => {
    const w = new RequestWindow();
    w.hold("a", 150_000);
    w.hold("a", 150_000);
    expect(w.count(0)).toBe(2);
    w.finish("a", 10_000, 1); // one of the two prepaid calls made: the other is refunded
    expect([w.count(10_000), w.count(69_999), w.count(70_000)]).toEqual([1, 1, 0]);
  });

  it("waits for as many ended calls as must leave, or a minute when held calls must too", () => {
    const w = new RequestWindow();
    w.finish("a", 0, 2);
    w.finish("b", 5_000, 1);
    w.hold("c", 150_000);
    expect(w.waitMs(10_000, 5)).toBe(0);
    expect(w.waitMs(10_000, 4)).toBe(50_000); // 4 count: one must leave, the first two leave at 60 s
    expect(w.waitMs(10_000, 2)).toBe(55_000); // three must leave
    expect(w.waitMs(10_000, 1)).toBe(60_000); // the held one too: a minute at the least
  });

  it("keeps ended calls in time order when one ends out of order (a late expiry)", () => {
    const w = new RequestWindow();
    w.finish("a", 30_000, 1);
    w.finish("b", 10_000, 2);
    expect(w.waitMs(31_000, 2)).toBe(39_000); // the two of 10 s leave at 70 s
    expect(w.count(70_000)).toBe(1);
    expect(w.count(90_000)).toBe(0);
  });

  it("drops old entries and compacts without losing count", () => {
    const w = new RequestWindow();
    for (let i = 0; i < 500; i++) w.finish(`l${i}`, i * 1_000, 1);
    expect(w.count(499_000)).toBe(60);
    expect(w.count(600_000)).toBe(0);
    w.finish("late", 600_000, 3);
    expect(w.count(600_000)).toBe(3);
  });

  it("comes back from its store after a restart: ended calls as they were, held leases ended at their expiry", () => {
    const { map, store, entries } = mapStore();
    const w = new RequestWindow(store);
    w.finish("a", 1_000, 2);
    w.hold("b", 30_000);
    w.hold("b", 30_000);
    w.finish("c", 2_000, 1);
    w.count(61_500); // drops the entry of 1 s, from the store too
    expect(map.size).toBe(2); // c's entry and the held lease b
    const back = RequestWindow.restore(entries(), store);
    // c (1 call) counts until 62 s; b's 2 calls until 90 s (a minute after its expiry).
    expect([back.count(61_500), back.count(62_000), back.count(89_999), back.count(90_000)]).toEqual([3, 2, 2, 0]);
    expect([...map.keys()].every((k) => k.startsWith("e:"))).toBe(true);
    // New entries after the restart never reuse a key that is still in use.
    back.finish("d", 90_000, 1);
    expect(map.size).toBe(1);
    expect(RequestWindow.restore(entries(), store).count(90_000)).toBe(1);
  });

  it("an empty store, or one with foreign keys, restores an empty window", () => {
    const { store } = mapStore();
    expect(RequestWindow.restore([], store).count(0)).toBe(0);
    expect(RequestWindow.restore([["x:1", [0, 5]]], store).count(0)).toBe(0);
  });
});
