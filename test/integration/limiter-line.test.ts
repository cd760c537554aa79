/**
 * The ProviderLimiter's line: callers refused only because every slot is taken wait in order, and
 * a freed slot goes to the longest waiter, never to a caller that arrived later.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { leasePool } from "../../src/limiter/lease-pool";
import { slotSource } from "../../src/limiter/limiter-client";

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("ProviderLimiter line", () => {
  it("hands each released slot to the longest waiter, not to a newcomer", async () => {
    const limiter = env.LIMITER.getByName(`line-${crypto.randomUUID()}`);
    const req = { provider: "openai_compatible", estimated_tokens: 10, limits: { concurrency: 1 } };
    const first = await limiter.acquire(req);
    expect(first.granted).toBe(true);

    const order: string[] = [];
    const waiter = limiter.acquire(req).then((r) => (order.push("waiter"), r));
    await tick(30);
    const newcomer = limiter.acquire(req).then((r) => (order.push("newcomer"), r));
    await tick(30);
    expect(order).toEqual([]); // both wait: the one slot is taken

    await limiter.release({ lease_id: (first as { lease_id: string }).lease_id });
    const w = await waiter;
    expect(w.granted).toBe(true);
    await tick(30);
    expect(order).toEqual(["waiter"]); // the newcomer still waits for the next release

    await limiter.release({ lease_id: (w as { lease_id: string }).lease_id });
    expect((await newcomer).granted).toBe(true);
    expect(order).toEqual(["waiter", "newcomer"]);
  });

  it("grants a caller asking for several slots as many as are free, and a waiting one what frees up", async () => {
    const limiter = env.LIMITER.getByName(`line-count-${crypto.randomUUID()}`);
    const req = { provider: "openai_compatible", estimated_tokens: 10, limits: { concurrency: 3 } };
    const batch = await limiter.acquire({ ...req, count: 5 });
    expect(batch).toMatchObject({ granted: true });
    const ids = (batch as { lease_ids: string[] }).lease_ids;
    expect(ids).toHaveLength(3); // the cap, not the 5 asked for
    expect((batch as { lease_id: string }).lease_id).toBe(ids[0]);
    const waiting = limiter.acquire({ ...req, count: 2 });
    await tick(30);
    await limiter.release({ lease_id: ids[0]! });
    expect(await waiting).toMatchObject({ granted: true, lease_ids: [expect.any(String)] });
    expect((await limiter.view())!.in_flight).toBe(3);
  });

  it("prepays the calls a lease may be handed on for, only as far as the request bucket holds", async () => {
    const limiter = env.LIMITER.getByName(`line-prepay-${crypto.randomUUID()}`);
    const req = { provider: "openai_compatible", estimated_tokens: 10, limits: { concurrency: 10, rpm: 5 } };
    const r = await limiter.acquire({ ...req, count: 2, prepay: 3 });
    // two leases, then the bucket's other 3 requests spread round by round: 1 + 2 and 1 + 1
    expect(r).toMatchObject({ granted: true, prepaid_calls: [2, 1] });
    expect(await limiter.acquire(req)).toMatchObject({ granted: false, reason: "rate" });
  });

  it("grants every lease a low bucket can pay for before prepaying hand-ons", async () => {
    const limiter = env.LIMITER.getByName(`line-prepay-low-${crypto.randomUUID()}`);
    const req = { provider: "openai_compatible", estimated_tokens: 10, limits: { concurrency: 10, rpm: 4 } };
    // Prepaying the first lease first would grant 1 lease with 3 hand-ons: one call at a time.
    const r = await limiter.acquire({ ...req, count: 4, prepay: 4 });
    expect(r).toMatchObject({ granted: true, prepaid_calls: [0, 0, 0, 0] });
    expect((r as { lease_ids: string[] }).lease_ids).toHaveLength(4);
  });

  it("gives everyone waiting the retry-after of a 429 instead of a slot", async () => {
    const limiter = env.LIMITER.getByName(`line-429-${crypto.randomUUID()}`);
    const req = { provider: "openai_compatible", estimated_tokens: 10, limits: { concurrency: 1 } };
    const first = (await limiter.acquire(req)) as { lease_id: string };
    const waiting = [limiter.acquire(req), limiter.acquire(req)];
    await tick(30);
    await limiter.release({ lease_id: first.lease_id, rate_limited: true, retry_after_ms: 3_000 });
    for (const r of await Promise.all(waiting)) {
      expect(r).toMatchObject({ granted: false, reason: "blocked" });
      expect((r as { wait_ms: number }).wait_ms).toBeGreaterThan(2_000);
    }
  });

  it("orders the line by when each call first asked, so asking again after a hold keeps the place", async () => {
    const limiter = env.LIMITER.getByName(`line-since-${crypto.randomUUID()}`);
    const base = { provider: "openai_compatible", estimated_tokens: 10, limits: { concurrency: 1 } };
    const first = (await limiter.acquire(base)) as { lease_id: string };
    const order: string[] = [];
    const now = Date.now();
    const newer = limiter.acquire({ ...base, since: now }).then((r) => (order.push("newer"), r));
    await tick(30);
    // A call that first asked a second ago and is asking again (its earlier hold ran out).
    const older = limiter.acquire({ ...base, since: now - 1_000 }).then((r) => (order.push("older"), r));
    await tick(30);
    await limiter.release({ lease_id: first.lease_id });
    const o = (await older) as { granted: boolean; lease_id: string };
    expect(o.granted).toBe(true);
    expect(order).toEqual(["older"]);
    await limiter.release({ lease_id: o.lease_id });
    expect((await newer).granted).toBe(true);
  });
});

describe("the ProviderLimiter's requests of the last minute", () => {
  it("survive a reset of the object: the minute's rpm is not granted twice (scenario 6 saw an idle object evicted)", async () => {
    const name = `line-reset-${crypto.randomUUID()}`;
    const limiter = env.LIMITER.getByName(name);
    const req = { provider: "openai_compatible", estimated_tokens: 10, limits: { concurrency: 10, rpm: 3 } };
    const grants = (await Promise.all([limiter.acquire(req), limiter.acquire(req), limiter.acquire(req)])) as { lease_id: string }[];
    await limiter.release({ lease_id: grants[0]!.lease_id });
    await limiter.release({ lease_id: grants[1]!.lease_id });
    // grants[2] is still held when the object goes away.
    await runInDurableObject(limiter, (_i, state) => state.abort("limiter reset")).catch(() => undefined);
    const again = env.LIMITER.getByName(name); // a stub of the aborted instance stays broken
    const after = await again.acquire(req);
    expect(after).toMatchObject({ granted: false, reason: "rate" });
    expect((after as { wait_ms: number }).wait_ms).toBeGreaterThan(50_000);
    // The old instance's lease is unknown to the new one: its release frees nothing.
    await again.release({ lease_id: grants[2]!.lease_id });
    expect(await again.acquire(req)).toMatchObject({ granted: false, reason: "rate" });
  });
});

describe("a consumer's lease pool on a rate-limited key", () => {
  it("starts no more calls than the request bucket holds, however many of its calls wait in place", async () => {
    const model = {
      interface: "openai_compatible" as const,
      base_url: "http://pool-rpm.test/v1",
      model_name: `pool-rpm-${crypto.randomUUID()}`,
    };
    // Two slots and a bucket of 6 requests (refilling one per 10 s): ten calls wait at once, each
    // running 20 ms under its lease. Slots freed by the first calls could be handed on to every
    // waiting call; only the calls the limiter prepaid from its bucket may be.
    const pool = leasePool(slotSource(env.LIMITER, model, "key", { rpm: 6, concurrency: 2 }), {
      now: Date.now,
      maxChainMs: 60_000,
      prepay: 4,
    });
    const since = Date.now();
    let started = 0;
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const g = await pool.acquire(10, since);
        if (!g.granted) return g.reason;
        started += 1;
        await tick(20);
        await pool.release({ lease_id: g.lease_id, tokens_used: 10 });
        return "ran";
      }),
    );
    expect(started).toBeGreaterThanOrEqual(2);
    expect(started).toBeLessThanOrEqual(6);
    expect(outcomes.filter((o) => o === "rate")).toHaveLength(10 - started);
  });
});
