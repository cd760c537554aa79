import { describe, expect, it } from "vitest";
import { leasePool, type PooledRelease, type SlotSource, UNTOLD_429_MAX_MS, UNTOLD_429_WAIT_MS } from "../../../src/limiter/lease-pool";
import type { LimiterGrant } from "../../../src/limiter/limited";

type SourceReply = Awaited<ReturnType<SlotSource["acquire"]>>;

/** A limiter whose answers the test gives one by one, remembering what it was asked and told. */
function scriptedSource() {
  const asks: { count: number; since: number }[] = [];
  const pending: ((r: SourceReply) => void)[] = [];
  const released: PooledRelease[] = [];
  const source: SlotSource = {
    acquire: (req) => {
      asks.push({ count: req.count, since: req.since });
      return new Promise((resolve) => pending.push(resolve));
    },
    release: async (r) => void released.push(r),
  };
  const answer = async (r: SourceReply) => {
    pending.shift()!(r);
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { source, asks, released, answer, waiting: () => pending.length };
}

/** A pool over a scripted limiter, on a clock the test sets (4 prepaid calls per lease, as at the edge). */
function pooled(maxChainMs = 60_000, start = 0) {
  const s = scriptedSource();
  const clock = { now: start };
  const pool = leasePool(s.source, { now: () => clock.now, maxChainMs, prepay: 4 });
  return { s, pool, clock };
}

/** What a waiting call hears while the limiter may not know of a 429 the key's calls got. */
const untold: LimiterGrant = { granted: false, wait_ms: UNTOLD_429_WAIT_MS, reason: "blocked" };
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
/** Leases with 4 prepaid calls each (the limiter's buckets had room), unless `prepaid_calls` says otherwise. */
const granted = (...lease_ids: string[]): SourceReply => ({ granted: true, lease_ids, prepaid_calls: lease_ids.map(() => 4) });

function track(p: Promise<LimiterGrant>) {
  const box: { grant?: LimiterGrant } = {};
  void p.then((g) => (box.grant = g));
  return box;
}

describe("leasePool", () => {
  it("asks the limiter once for every waiting call, and hands the leases out in the order calls first asked", async () => {
    const { s, pool } = pooled(60_000, 100);
    const late = track(pool.acquire(10, 50));
    const early = track(pool.acquire(10, 20));
    const third = track(pool.acquire(10, 70));
    expect(s.asks).toEqual([{ count: 1, since: 50 }]); // the first ask was already out; the others wait for it
    await s.answer(granted("l1"));
    expect(early.grant).toEqual({ granted: true, lease_id: "l1" });
    expect(s.asks[1]).toEqual({ count: 2, since: 50 }); // asks again for the two still waiting
    await s.answer(granted("l2", "l3"));
    expect(late.grant).toEqual({ granted: true, lease_id: "l2" });
    expect(third.grant).toEqual({ granted: true, lease_id: "l3" });
    expect(s.waiting()).toBe(0);
  });

  it("hands a finished call's lease to the next waiting call without telling the limiter, then reports every call made under it", async () => {
    const { s, pool, clock } = pooled();
    const first = track(pool.acquire(10, 0));
    const second = track(pool.acquire(10, 1)); // waits: the first ask is out
    clock.now = 10;
    await s.answer(granted("l1"));
    expect(s.asks).toHaveLength(2);
    // The caller hears which: a slot handed on is followed by a turn of the event loop (limited.ts).
    expect(await pool.release({ lease_id: "l1", tokens_used: 30 })).toBe("handed_on");
    expect(second.grant).toEqual({ granted: true, lease_id: "l1" });
    expect(s.released).toEqual([]);
    expect(await pool.release({ lease_id: "l1", tokens_used: 12 })).toBeUndefined();
    expect(s.released).toEqual([{ lease_id: "l1", calls: 2, tokens_used: 42 }]);
    // The ask made for the second call comes back with a lease nobody needs now: straight back.
    await s.answer(granted("l2"));
    expect(s.released[1]).toEqual({ lease_id: "l2" });
    expect(first.grant).toEqual({ granted: true, lease_id: "l1" });
  });

  it("a 429 goes to the limiter at once, and no lease is handed on until the limiter grants one again", async () => {
    const { s, pool, clock } = pooled();
    track(pool.acquire(10, 0));
    track(pool.acquire(10, 0));
    clock.now = 10;
    await s.answer(granted("l1", "l2"));
    const waiting = track(pool.acquire(10, 5));
    await pool.release({ lease_id: "l1", rate_limited: true, retry_after_ms: 2_000 });
    expect(s.released).toEqual([{ lease_id: "l1", calls: 1, rate_limited: true, retry_after_ms: 2_000 }]);
    await pool.release({ lease_id: "l2", tokens_used: 5 });
    expect(s.released[1]).toEqual({ lease_id: "l2", calls: 1, tokens_used: 5 }); // returned, not handed on
    expect(waiting.grant).toBeUndefined();
    // The ask still out was made before the 429: what it brings may not know of it, so back unused.
    await s.answer(granted("l3"));
    expect(waiting.grant).toEqual(untold);
    expect(s.released[2]).toEqual({ lease_id: "l3" });
    const again = track(pool.acquire(10, 5));
    await s.answer(granted("l4")); // asked once the limiter had heard of the 429
    expect(again.grant).toEqual({ granted: true, lease_id: "l4" });
    const next = track(pool.acquire(10, 6));
    await pool.release({ lease_id: "l4" });
    expect(next.grant).toEqual({ granted: true, lease_id: "l4" }); // handing on resumed
  });

  it("does not hand a lease to a call that asked after the limiter granted it: older calls elsewhere come first", async () => {
    const { s, pool, clock } = pooled();
    const answer = track(pool.acquire(10, 0));
    clock.now = 10;
    await s.answer(granted("l1"));
    expect(answer.grant).toEqual({ granted: true, lease_id: "l1" });
    clock.now = 500;
    const judge = track(pool.acquire(10, 500)); // this job's next call, asked after l1 was granted
    await pool.release({ lease_id: "l1", tokens_used: 7 });
    expect(judge.grant).toBeUndefined();
    expect(s.released).toEqual([{ lease_id: "l1", calls: 1, tokens_used: 7 }]);
    expect(s.asks.at(-1)).toEqual({ count: 1, since: 500 }); // it waits in the limiter's line instead
  });

  it("hands a lease on only as many times as the limiter let it prepay, and not at all when nothing was prepaid", async () => {
    const { s, pool, clock } = pooled();
    const calls = [0, 1, 2, 3].map((since) => track(pool.acquire(10, since)));
    clock.now = 10;
    await s.answer({ granted: true, lease_ids: ["rich", "poor"], prepaid_calls: [1, 0] });
    expect(s.asks[0]).toMatchObject({ count: 1 }); // the first ask went out before the others waited
    expect(calls.slice(0, 2).map((c) => c.grant)).toEqual([
      { granted: true, lease_id: "rich" },
      { granted: true, lease_id: "poor" },
    ]);
    await pool.release({ lease_id: "poor" }); // nothing prepaid: back to the limiter
    expect(s.released).toEqual([{ lease_id: "poor", calls: 1 }]);
    await pool.release({ lease_id: "rich" }); // one prepaid call: handed on once
    expect(calls[2]!.grant).toEqual({ granted: true, lease_id: "rich" });
    await pool.release({ lease_id: "rich" }); // its prepaid call is spent: back, reporting both calls
    expect(calls[3]!.grant).toBeUndefined();
    expect(s.released[1]).toEqual({ lease_id: "rich", calls: 2 });
  });

  it("a 429 in one pool stops the isolate's other pools on the key from handing on leases granted before it", async () => {
    const rateLimits = { seen: 0, told: 0 };
    const clock = { now: 0 };
    const one = scriptedSource();
    const two = scriptedSource();
    const poolOne = leasePool(one.source, { now: () => clock.now, maxChainMs: 60_000, prepay: 4, rateLimits });
    const poolTwo = leasePool(two.source, { now: () => clock.now, maxChainMs: 60_000, prepay: 4, rateLimits });
    track(poolOne.acquire(10, 0));
    track(poolTwo.acquire(10, 0));
    clock.now = 10;
    await one.answer(granted("a1"));
    await two.answer(granted("b1"));
    const waiting = track(poolTwo.acquire(10, 5)); // asked before b1's grant: it would take b1
    clock.now = 20;
    await poolOne.release({ lease_id: "a1", rate_limited: true, retry_after_ms: 8_000 });
    clock.now = 30;
    await poolTwo.release({ lease_id: "b1" });
    expect(waiting.grant).toBeUndefined(); // b1 went back: the limiter, which knows of the 429, decides
    expect(two.released).toEqual([{ lease_id: "b1", calls: 1 }]);
    clock.now = 40;
    await two.answer(granted("b2")); // asked before the 429: back unused
    expect(waiting.grant).toEqual(untold);
    const again = track(poolTwo.acquire(10, 5));
    await two.answer(granted("b3")); // asked after it
    expect(again.grant).toEqual({ granted: true, lease_id: "b3" });
    const next = track(poolTwo.acquire(10, 35));
    await poolTwo.release({ lease_id: "b3" });
    expect(next.grant).toEqual({ granted: true, lease_id: "b3" }); // handing on resumed
  });

  it("does not ask the limiter while it has yet to hear of the key's 429: waiting calls pause briefly", async () => {
    const rateLimits = { seen: 0, told: 0 };
    const clock = { now: 0 };
    const one = scriptedSource();
    const held: (() => void)[] = [];
    // This pool's releases reach the limiter only when the test lets them.
    one.source.release = (r) => new Promise<void>((resolve) => (one.released.push(r), held.push(resolve)));
    const two = scriptedSource();
    const poolOne = leasePool(one.source, { now: () => clock.now, maxChainMs: 60_000, prepay: 4, rateLimits });
    const poolTwo = leasePool(two.source, { now: () => clock.now, maxChainMs: 60_000, prepay: 4, rateLimits });
    track(poolOne.acquire(10, 0));
    await one.answer(granted("a1"));
    const told = poolOne.release({ lease_id: "a1", rate_limited: true, retry_after_ms: 8_000 });
    const mine = track(poolOne.acquire(10, 1));
    const theirs = track(poolTwo.acquire(10, 1));
    await settle();
    expect(mine.grant).toEqual(untold);
    expect(theirs.grant).toEqual(untold);
    expect([one.asks.length, two.asks.length]).toEqual([1, 0]);
    held.shift()!();
    await told;
    track(poolTwo.acquire(10, 2));
    expect(two.asks).toHaveLength(1); // heard: the limiter decides, knowing of the 429
  });

  it("asks the limiter again after UNTOLD_429_MAX_MS even if a 429's release never settles (its invocation cut off)", async () => {
    const clock = { now: 0 };
    const s = scriptedSource();
    s.source.release = (r) => new Promise<void>(() => void s.released.push(r)); // never answered
    const pool = leasePool(s.source, { now: () => clock.now, maxChainMs: 60_000, prepay: 4 });
    track(pool.acquire(10, 0));
    await s.answer(granted("l1"));
    void pool.release({ lease_id: "l1", rate_limited: true, retry_after_ms: 1_000 });
    clock.now = UNTOLD_429_MAX_MS - 1;
    expect(track(pool.acquire(10, 1))).toBeDefined();
    await settle();
    expect(s.asks).toHaveLength(1);
    clock.now = UNTOLD_429_MAX_MS;
    track(pool.acquire(10, 2));
    expect(s.asks).toHaveLength(2);
  });

  it("a lease granted before the key's latest 429 is not usable for a call yet to start; one granted after is", async () => {
    const rateLimits = { seen: 0, told: 0 };
    const one = scriptedSource();
    const two = scriptedSource();
    const poolOne = leasePool(one.source, { now: () => 0, maxChainMs: 60_000, prepay: 4, rateLimits });
    const poolTwo = leasePool(two.source, { now: () => 0, maxChainMs: 60_000, prepay: 4, rateLimits });
    track(poolOne.acquire(10, 0));
    await one.answer(granted("a1"));
    track(poolTwo.acquire(10, 0));
    await two.answer(granted("b1"));
    expect(poolTwo.usable?.("b1")).toBe(true);
    await poolOne.release({ lease_id: "a1", rate_limited: true });
    expect(poolTwo.usable?.("b1")).toBe(false);
    // Given back unused: the call it was for was not made, so none is reported.
    await poolTwo.release({ lease_id: "b1", unused: true });
    expect(two.released).toEqual([{ lease_id: "b1" }]);
    track(poolTwo.acquire(10, 1));
    await two.answer(granted("b2"));
    expect(poolTwo.usable?.("b2")).toBe(true);
  });

  it("every waiting call hears a refusal and can ask again", async () => {
    const { s, pool } = pooled();
    const a = track(pool.acquire(10, 0));
    const b = track(pool.acquire(10, 1));
    await s.answer({ granted: false, wait_ms: 3_000, reason: "blocked" });
    expect(a.grant).toEqual({ granted: false, wait_ms: 3_000, reason: "blocked" });
    expect(b.grant).toEqual({ granted: false, wait_ms: 3_000, reason: "blocked" });
    const again = track(pool.acquire(10, 0));
    expect(s.asks).toHaveLength(2);
    await s.answer(granted("l1"));
    expect(again.grant).toEqual({ granted: true, lease_id: "l1" });
  });

  it("does not hand on a lease older than maxChainMs: it goes back to the limiter", async () => {
    const { s, pool, clock } = pooled(1_000);
    track(pool.acquire(10, 0));
    await s.answer(granted("l1"));
    const waiting = track(pool.acquire(10, 0));
    clock.now = 1_000;
    await pool.release({ lease_id: "l1" });
    expect(s.released).toEqual([{ lease_id: "l1", calls: 1 }]);
    expect(waiting.grant).toBeUndefined();
  });

  it("an unreachable limiter refuses every waiting call briefly instead of leaving it hanging", async () => {
    const pool = leasePool(
      { acquire: async () => Promise.reject(new Error("object unreachable")), release: async () => undefined },
      { now: () => 0, maxChainMs: 60_000, prepay: 4 },
    );
    const g = await pool.acquire(10, 0);
    expect(g).toMatchObject({ granted: false, reason: "concurrency" });
    await settle();
  });
});
