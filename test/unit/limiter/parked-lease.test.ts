import { describe, expect, it } from "vitest";
import type { PooledRelease, SlotSource } from "../../../src/limiter/lease-pool";
import { LimiterState, type LimitSettings } from "../../../src/limiter/limiter-state";
import { PAUSE_AFTER_WASTE_MS, ParkedLeases, parkingClient } from "../../../src/limiter/parked-lease";
import { limitedCall } from "../../../src/limiter/limited";
import { WINDOW_MS } from "../../../src/limiter/request-window";

const PREPAY = 8;
const IDLE_MS = 100;

/**
 * The key's limiter as the ProviderLimiter runs it (no line: a refusal is returned), on a clock the
 * test moves; it remembers what it was asked and told.
 */
function limiter(limits: LimitSettings, clock: { now: number }) {
  const state = new LimiterState(limits, clock.now);
  const asks: { prepay: number; park?: boolean }[] = [];
  const released: PooledRelease[] = [];
  const source: SlotSource = {
    async acquire(req) {
      asks.push({ prepay: req.prepay, ...(req.park ? { park: true } : {}) });
      const first = state.acquire(clock.now, req.estimatedTokens);
      if (!first.granted) return first;
      let paid = 0;
      if (!req.park || state.roomToPark(clock.now, 1 + req.prepay)) while (paid < req.prepay && state.prepayOne(first.lease_id)) paid++;
      return { granted: true, lease_ids: [first.lease_id], prepaid_calls: [paid] };
    },
    async release(r) {
      released.push(r);
      state.release(clock.now, r);
    },
  };
  return { state, source, asks, released };
}

/** An isolate: its parked leases, and a request's client over them with timers the test fires. */
function isolate(source: SlotSource, clock: { now: number }, leases = new ParkedLeases()) {
  const timers: { at: number; fire: () => void }[] = [];

  const client = () =>
    parkingClient(source, Promise.resolve("key"), leases, {
      now: () => clock.now,
      sleep: (ms) => new Promise<void>((resolve) => timers.push({ at: clock.now + ms, fire: resolve })),
      settleLater: () => undefined,
      prepay: PREPAY,
      maxChainMs: 25_000,
      idleMs: IDLE_MS,
    });
  const fireTimers = async () => {
    for (const t of timers.splice(0)) {
      if (t.at <= clock.now) t.fire();
      else timers.push(t);
    }
    for (let i = 0; i < 5; i++) await settle();
  };
  return { client, fireTimers };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
/** limitedCall's waits move the test's clock. */
const env = (clock: { now: number }) => ({
  sleep: async (ms: number) => void (clock.now += ms),
  now: () => clock.now,
  settleLater: () => undefined,
});
const opts = { maxWaitMs: 5_000, maxQueueMs: 60_000, defaultOutputTokens: 1_000 };
const generous: LimitSettings = { rpm: 6_000, tpm: 10_000_000, concurrency: 64 };

/** One request's call through a fresh client of the isolate; `inFlight` counts calls per lease while they run. */
async function call(iso: ReturnType<typeof isolate>, clock: { now: number }, inFlight: Map<string, number>, seen: string[], work = settle) {
  const c = iso.client();
  let lease = "";
  const wrapped = {
    acquire: async (t: number, s?: number) => {
      const g = await c.acquire(t, s);
      if (g.granted) lease = g.lease_id;
      return g;
    },
    release: c.release,
  };
  return limitedCall(
    wrapped,
    10,
    async () => {
      inFlight.set(lease, (inFlight.get(lease) ?? 0) + 1);
      seen.push(lease);
      expect(inFlight.get(lease)).toBe(1);
      await work();
      inFlight.set(lease, inFlight.get(lease)! - 1);
      return { ok: true as const, value: { usage: { total_tokens: 5 } } };
    },
    env(clock),
    opts,
  );
}

/** Two requests of one isolate side by side: the first holds the lease to park, the second a plain one beside it. */
async function twoRequests() {
  const clock = { now: 1_000 };
  const l = limiter(generous, clock);
  const iso = isolate(l.source, clock);
  const [one, two] = [iso.client(), iso.client()];
  const toPark = (await one.acquire(10)) as { lease_id: string };
  const plain = (await two.acquire(10)) as { lease_id: string };
  return { clock, l, iso, one, two, toPark, plain };
}

describe("parked leases (an isolate keeps its lease between /v1/judge requests)", () => {
  it("takes the parked lease for the isolate's next requests: one acquire and one release per prepaid chain", async () => {
    const clock = { now: 1_000 };
    const l = limiter(generous, clock);
    const iso = isolate(l.source, clock);
    const seen: string[] = [];
    for (let i = 0; i < 2 * (1 + PREPAY); i++) {
      await call(iso, clock, new Map(), seen);
      clock.now += 5;
    }
    expect(l.asks).toEqual([
      { prepay: PREPAY, park: true },
      { prepay: PREPAY, park: true },
    ]);
    expect(new Set(seen).size).toBe(2);
    // each chain's last call finds nothing prepaid left and gives the lease back
    expect(l.released.map((r) => [r.calls, r.tokens_used])).toEqual([
      [1 + PREPAY, 5 * (1 + PREPAY)],
      [1 + PREPAY, 5 * (1 + PREPAY)],
    ]);
    expect(l.state.inFlight()).toBe(0);
  });

  it("gives a lease nobody takes back after idleMs, refunding the prepaid calls not made", async () => {
    const clock = { now: 1_000 };
    const l = limiter(generous, clock);
    const iso = isolate(l.source, clock);
    await call(iso, clock, new Map(), []);
    await call(iso, clock, new Map(), []);
    clock.now += IDLE_MS - 1;
    await iso.fireTimers();
    expect(l.released).toEqual([]);
    clock.now += 1;
    await iso.fireTimers();
    expect(l.released).toMatchObject([{ calls: 2, tokens_used: 10 }]);
    expect(l.state.inFlight()).toBe(0);
    // the window counts the 2 calls made, not the 9 paid for at the grant
    expect(l.state.allowance().rpm).toBe(6_000);
  });

  it("after a lease to park went back having served one call, asks plain leases for a while", async () => {
    const clock = { now: 1_000 };
    const l = limiter(generous, clock);
    const iso = isolate(l.source, clock);
    await call(iso, clock, new Map(), []);
    clock.now += IDLE_MS;
    await iso.fireTimers();
    await call(iso, clock, new Map(), []);
    clock.now += PAUSE_AFTER_WASTE_MS;
    await call(iso, clock, new Map(), []);
    expect(l.asks).toEqual([{ prepay: PREPAY, park: true }, { prepay: 0 }, { prepay: PREPAY, park: true }]);
  });

  it("a timer of an earlier park does not give back a lease that was taken and parked again", async () => {
    const clock = { now: 1_000 };
    const l = limiter(generous, clock);
    const iso = isolate(l.source, clock);
    await call(iso, clock, new Map(), []);
    clock.now += IDLE_MS - 10;
    await call(iso, clock, new Map(), []);
    clock.now += 20;
    await iso.fireTimers(); // the first park's timer is due, the second's is not
    expect(l.released).toEqual([]);
  });

  it("never runs two calls on one lease: concurrent requests each ask the limiter, and the key's concurrency holds", async () => {
    const clock = { now: 1_000 };
    const l = limiter({ ...generous, concurrency: 8 }, clock);
    const iso = isolate(l.source, clock);
    const inFlight = new Map<string, number>();
    const seen: string[] = [];
    let peak = 0;
    const work = async () => {
      peak = Math.max(peak, l.state.inFlight());
      await settle();
      await settle();
    };
    for (let round = 0; round < 10; round++) {
      await Promise.all(Array.from({ length: 3 }, () => call(iso, clock, inFlight, seen, work)));
      clock.now += 10;
    }
    expect(peak).toBeLessThanOrEqual(8);
    // more leases than one: a parked lease is never shared by calls running together
    expect(new Set(seen).size).toBeGreaterThan(1);
  });

  it("asks prepaid for one lease to park at a time: calls running beside it ask for a plain lease", async () => {
    const clock = { now: 1_000 };
    const l = limiter(generous, clock);
    const iso = isolate(l.source, clock);
    await Promise.all(Array.from({ length: 4 }, () => call(iso, clock, new Map(), [])));
    expect(l.asks).toEqual([{ prepay: PREPAY, park: true }, { prepay: 0 }, { prepay: 0 }, { prepay: 0 }]);
    // the three plain leases went back after their call; the one to park is parked
    expect(l.released.map((r) => r.calls ?? 1)).toEqual([1, 1, 1]);
    expect(l.state.inFlight()).toBe(1);
  });

  it("a 429 goes back to the limiter at once, not parked", async () => {
    const clock = { now: 1_000 };
    const l = limiter(generous, clock);
    const c = isolate(l.source, clock).client();
    const g = await c.acquire(10);
    await c.release({ lease_id: (g as { lease_id: string }).lease_id, rate_limited: true, retry_after_ms: 500 });
    expect(l.released).toMatchObject([{ rate_limited: true, retry_after_ms: 500, calls: 1 }]);
  });

  it("a 429 sends the isolate's parked lease back, and the next request asks the limiter, which holds the key", async () => {
    const { clock, l, iso, one, two, toPark, plain } = await twoRequests();
    expect(l.asks).toEqual([{ prepay: PREPAY, park: true }, { prepay: 0 }]);
    await one.release({ lease_id: toPark.lease_id, tokens_used: 5 });
    clock.now += 1;
    await two.release({ lease_id: plain.lease_id, rate_limited: true, retry_after_ms: 8_000 });
    await settle();
    // The parked lease went back with the call it served; its prepaid calls are refunded.
    expect(l.released.map((r) => [r.lease_id, r.calls ?? 1, r.rate_limited ?? false])).toEqual([
      [toPark.lease_id, 1, false],
      [plain.lease_id, 1, true],
    ]);
    const next = await iso.client().acquire(10);
    expect(l.asks).toHaveLength(3);
    expect(next).toMatchObject({ granted: false, reason: "blocked" });
  });

  it("a lease in use when the key got a 429 is not parked again after its call", async () => {
    const { clock, l, iso, one, two, toPark, plain } = await twoRequests();
    clock.now += 1;
    await two.release({ lease_id: plain.lease_id, rate_limited: true, retry_after_ms: 100 });
    clock.now += 200; // the retry-after is over: the limiter grants again
    await one.release({ lease_id: toPark.lease_id, tokens_used: 5 });
    expect(l.released.map((r) => r.lease_id)).toEqual([plain.lease_id, toPark.lease_id]);
    const next = (await iso.client().acquire(10)) as { lease_id: string };
    expect(next.lease_id).not.toBe(toPark.lease_id);
    expect(l.asks).toHaveLength(3);
  });

  it("a key near its limits gets nothing prepaid to park: every request asks the limiter", async () => {
    for (const limits of [
      { ...generous, concurrency: 1 },
      // 9 calls paid at once would pass half of 16 a minute
      { ...generous, rpm: 16 },
    ]) {
      const clock = { now: 1_000 };
      const l = limiter(limits, clock);
      const iso = isolate(l.source, clock);
      for (let i = 0; i < 4; i++) await call(iso, clock, new Map(), []);
      expect(l.asks).toHaveLength(4);
      expect(l.released.map((r) => r.calls ?? 1)).toEqual([1, 1, 1, 1]);
    }
  });

  it("keeps the key's requests per minute: no 60 s holds more calls than its rpm, parked chains included", async () => {
    const clock = { now: 1_000 };
    const rpm = 40;
    const l = limiter({ ...generous, rpm }, clock);
    const iso = isolate(l.source, clock);
    const made: number[] = [];
    for (let i = 0; i < 400; i++) {
      const r = await call(iso, clock, new Map(), [], async () => void made.push(clock.now));
      if (!r.ok) clock.now += r.error.retryAfterMs ?? 100;
      clock.now += 50;
      await iso.fireTimers();
    }
    let worst = 0;
    for (let i = 0, j = 0; i < made.length; i++) {
      while (made[i]! - made[j]! >= WINDOW_MS) j++;
      worst = Math.max(worst, i - j + 1);
    }
    expect(made.length).toBeGreaterThan(rpm);
    expect(worst).toBeLessThanOrEqual(rpm);
  });
});
