import { describe, expect, it } from "vitest";
import { leasePool, type PooledRelease, type SlotSource } from "../../../src/limiter/lease-pool";
import {
  type LimiterClient,
  type LimiterGrant,
  type LinedPort,
  limitedCall,
  limitedPort,
  portInLine,
  sharedSleeps,
} from "../../../src/limiter/limited";
import type { LlmResult, ModelPort } from "../../../src/llm/port";

function client(grants: LimiterGrant[]) {
  const released: unknown[] = [];
  const since: (number | undefined)[] = [];
  let i = 0;
  const c: LimiterClient = {
    acquire: async (_est, s) => (since.push(s), grants[Math.min(i++, grants.length - 1)]!),
    release: async (r) => void released.push(r),
  };
  return { c, released, since, acquires: () => i };
}

function clock() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms) };
}

const opts = { maxWaitMs: 5_000, maxQueueMs: 60_000, defaultOutputTokens: 1_000 };
const usage = { input_tokens: 1, output_tokens: 2, total_tokens: 3, model: "m" };

describe("calls through the shared limiter", () => {
  it("waits out short refusals, then calls under a lease and reports the tokens used", async () => {
    const { c, released } = client([
      { granted: false, wait_ms: 100 },
      { granted: true, lease_id: "l1" },
    ]);
    const r = await limitedCall(c, 10, async () => ({ ok: true, value: { text: "x", usage } }), clock(), opts);
    expect(r.ok).toBe(true);
    expect(released).toEqual([{ lease_id: "l1", tokens_used: 3 }]);
  });

  it("does not call under a lease the client says is no longer usable: it goes back unused and the call asks again", async () => {
    const { c, released } = client([
      { granted: true, lease_id: "stale" },
      { granted: true, lease_id: "fresh" },
    ]);
    c.usable = (id) => id !== "stale";
    const r = await limitedCall(c, 10, async () => ({ ok: true, value: { text: "x", usage } }), clock(), opts);
    expect(r.ok).toBe(true);
    expect(released).toEqual([
      { lease_id: "stale", unused: true },
      { lease_id: "fresh", tokens_used: 3 },
    ]);
  });

  it("reports a 429 and its retry-after at release, so the key is blocked for everyone", async () => {
    const { c, released } = client([{ granted: true, lease_id: "l1" }]);
    const r: LlmResult<never> = { ok: false, error: { kind: "rate_limit", message: "429", status: 429, retryAfterMs: 2_000 } };
    await limitedCall(c, 10, async () => r, clock(), opts);
    expect(released).toEqual([{ lease_id: "l1", rate_limited: true, retry_after_ms: 2_000 }]);
  });

  it("does not call when one wait would pass the in-place limit: a deferred rate_limit carrying the wait", async () => {
    const { c, released } = client([
      { granted: false, wait_ms: 3_000 },
      { granted: false, wait_ms: 5_001, reason: "blocked" },
    ]);
    let called = false;
    const r = await limitedCall(c, 10, async () => ((called = true), { ok: true, value: { usage } }), clock(), opts);
    expect(called).toBe(false);
    expect(released).toEqual([]);
    expect(r).toMatchObject({ ok: false, error: { kind: "rate_limit", deferred: true, retryAfterMs: 5_001 } });
  });

  it("hands the slot on, then yields one turn before the caller's follow-up work runs", async () => {
    const events: string[] = [];
    const c: LimiterClient = {
      acquire: async () => ({ granted: true, lease_id: "l1" }),
      release: async () => (events.push("slot handed on"), "handed_on"),
    };
    const env = { now: () => 0, sleep: async (ms: number) => void events.push(`yield ${ms}`) };
    await limitedCall(c, 10, async () => ({ ok: true, value: { usage } }), env, opts).then(() => events.push("follow-up"));
    expect(events).toEqual(["slot handed on", "yield 0", "follow-up"]);
  });

  it("gives the slot back to the limiter and waits for its answer, with no yield of its own", async () => {
    const events: string[] = [];
    let answer!: () => void;
    const c: LimiterClient = {
      acquire: async () => ({ granted: true, lease_id: "l1" }),
      release: () => (events.push("release sent"), new Promise<void>((r) => (answer = r))),
    };
    const env = { now: () => 0, sleep: async (ms: number) => void events.push(`yield ${ms}`) };
    const done = limitedCall(c, 10, async () => ({ ok: true, value: { usage } }), env, opts).then(() => events.push("follow-up"));
    await new Promise((r) => setTimeout(r, 0));
    expect(events).toEqual(["release sent"]);
    answer();
    await done;
    expect(events).toEqual(["release sent", "follow-up"]);
  });

  it("with settleLater, answers without waiting for the release (or yielding) and hands the release over", async () => {
    let settle!: () => void;
    const releaseSent = new Promise<void>((resolve) => (settle = resolve));
    const c: LimiterClient = {
      acquire: async () => ({ granted: true, lease_id: "l1" }),
      release: () => releaseSent, // a limiter that has not answered yet
    };
    const handed: Promise<unknown>[] = [];
    const env = {
      ...clock(),
      sleep: async () => expect.unreachable("no yield"),
      settleLater: (p: Promise<unknown>) => void handed.push(p),
    };
    const r = await limitedCall(c, 10, async () => ({ ok: true, value: { usage } }), env, opts);
    expect(r.ok).toBe(true);
    expect(handed).toHaveLength(1);
    let settled = false;
    void handed[0]!.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    settle();
    await handed[0];
    expect(settled).toBe(true);
  });

  it("releases the lease even when the call throws", async () => {
    const { c, released } = client([{ granted: true, lease_id: "l9" }]);
    await expect(limitedCall(c, 10, async () => Promise.reject(new Error("boom")), clock(), opts)).rejects.toThrow("boom");
    expect(released).toEqual([{ lease_id: "l9" }]);
  });

  it("waits in place past the rate limit's wait while the refusal is only a full line, keeping its place", async () => {
    const full: LimiterGrant = { granted: false, wait_ms: 2_000, reason: "concurrency" };
    const { c, since } = client([full, full, full, full, { granted: true, lease_id: "l1" }]);
    const t = clock();
    const r = await limitedCall(c, 10, async () => ({ ok: true, value: { usage } }), t, opts);
    expect(r.ok).toBe(true); // 8 s in line: more than maxWaitMs (5 s), less than maxQueueMs
    expect(since).toEqual([0, 0, 0, 0, 0]); // every ask carries when the call first asked
  });

  it("waits out a short retry-after in place after a long time in line: the line is not the provider's hold", async () => {
    // 4.5 s behind other calls of the key, then the key is blocked 1 s by another call's 429 (scenario 5, 429-in-place).
    const full: LimiterGrant = { granted: false, wait_ms: 1_500, reason: "concurrency" };
    const { c } = client([full, full, full, { granted: false, wait_ms: 1_000, reason: "blocked" }, { granted: true, lease_id: "l1" }]);
    const t = clock();
    const r = await limitedCall(c, 10, async () => ({ ok: true, value: { usage } }), t, opts);
    expect(r.ok).toBe(true);
    expect(t.now()).toBe(5_500);
  });

  it("waits out short holds one after another past maxWaitMs in all (each a short retry-after), up to maxQueueMs", async () => {
    // The key's other calls get 429s with a 1 s retry-after, one after another (scenario 5, 429-in-place).
    const blocked: LimiterGrant = { granted: false, wait_ms: 1_000, reason: "blocked" };
    const { c } = client([blocked, blocked, blocked, blocked, blocked, blocked, blocked, { granted: true, lease_id: "l1" }]);
    const t = clock();
    expect((await limitedCall(c, 10, async () => ({ ok: true, value: { usage } }), t, opts)).ok).toBe(true);
    expect(t.now()).toBe(7_000);
    const endless = client([blocked]);
    const r = await limitedCall(endless.c, 10, async () => ({ ok: true, value: { usage } }), t, opts);
    expect(r).toMatchObject({ ok: false, error: { kind: "rate_limit", deferred: true, retryAfterMs: 1_000 } });
    expect(t.now()).toBe(7_000 + 60_000);
  });

  it("hands a full line back too once the wait would pass maxQueueMs", async () => {
    const { c } = client([{ granted: false, wait_ms: 40_000, reason: "concurrency" }]);
    const t = clock();
    const r = await limitedCall(c, 10, async () => ({ ok: true, value: { usage } }), t, opts);
    expect(r).toMatchObject({ ok: false, error: { kind: "rate_limit", deferred: true } });
    expect(t.now()).toBe(40_000); // one wait in place, then the second would pass 60 s
  });

  it("calls that yield in the same turn share one timer, and the next turn gets a new one", async () => {
    const fired: Array<() => void> = [];
    const sleep = sharedSleeps(
      () => new Promise<void>((resolve) => fired.push(resolve)),
      () => 0,
    );
    const first = [sleep(0), sleep(0), sleep(0)];
    expect(fired).toHaveLength(1);
    fired[0]!();
    await Promise.all(first);
    void sleep(0);
    expect(fired).toHaveLength(2);
  });

  it("sleeps share a timer only when they end together, so none wakes early", async () => {
    const asked: number[] = [];
    let t = 100;
    const sleep = sharedSleeps(
      async (ms) => void asked.push(ms),
      () => t,
    );
    void sleep(5);
    void sleep(5); // same turn, same deadline (105): shared
    void sleep(0); // a turn is not a deadline
    t = 103;
    void sleep(5); // asked later: its own timer (108), not the one ending at 105
    void sleep(2); // ends at 105 too: shared
    expect(asked).toEqual([5, 0, 5]);
  });

  it("a port's calls refused together (the limiter's hold ended) wait out the refusal on one timer", async () => {
    let asks = 0;
    const c: LimiterClient = {
      // The five calls ask in the same turn and are all refused; each asks again after the wait.
      acquire: async () => (asks++ < 5 ? { granted: false, wait_ms: 1, reason: "concurrency" } : { granted: true, lease_id: `l${asks}` }),
      release: async () => undefined,
    };
    expect(await sleepsOfFiveCalls(c)).toEqual([1]);
  });

  it("a port's calls answered together wait for one yield, not one each", async () => {
    const c: LimiterClient = { acquire: async () => ({ granted: true, lease_id: "l" }), release: async () => "handed_on" };
    expect(await sleepsOfFiveCalls(c)).toEqual([0]);
  });
});

describe("a queue job's calls in the limiter's line from the job's start", () => {
  it("every ask carries the job's start, not the call's", async () => {
    const { c, since } = client([
      { granted: false, wait_ms: 100, reason: "concurrency" },
      { granted: true, lease_id: "l1" },
    ]);
    const t = clock();
    await t.sleep(500); // the job began at 0; its call asks at 500
    const port = limitedPort(echoPort(), c, t);
    expect((await portInLine(port, 0).chat(ask)).ok).toBe(true);
    expect((await port.chat(ask)).ok).toBe(true);
    expect(since).toEqual([0, 0, 600]);
  });

  it("a begun job's next call takes the slot its neighbour hands on, instead of the slot going back to the limiter", async () => {
    // Job A's answer holds the only lease (granted at 10); job B, begun at 0, asks for its judge
    // call at 20, while the pool's ask for it waits in the limiter's line.
    // A hands L1 on: B calls under it without the limiter answering, and L1 goes back once, for both calls.
    expect(await secondCallOfBegunJob((port) => portInLine(port, 0))).toEqual({
      bCalled: true,
      released: [{ lease_id: "L1", calls: 2, tokens_used: 6 }],
    });
    // Asking from its own start (20, after the grant), B's call waits for the limiter; the slot goes back.
    expect(await secondCallOfBegunJob((port) => port)).toEqual({
      bCalled: false,
      released: [{ lease_id: "L1", calls: 1, tokens_used: 3 }],
    });
  });

  it("a job's place is never older than the longest wait in place (maxQueueMs) before the call", async () => {
    const { c, since } = client([{ granted: true, lease_id: "l1" }]);
    const t = clock();
    await t.sleep(90_000); // an agent's job began at 0; this call asks 90 s later
    expect((await portInLine(limitedPort(echoPort(), c, t, opts), 0).chat(ask)).ok).toBe(true);
    expect(since).toEqual([90_000 - opts.maxQueueMs]);
  });

  it("a port that is not a limited one is used as it is", () => {
    const inner = echoPort();
    expect(portInLine(inner, 0)).toBe(inner);
  });
});

const ask = { messages: [{ role: "user" as const, content: "q" }] };

function echoPort(onCall: () => Promise<void> = async () => undefined) {
  return {
    identity: { interface: "openai", model_name: "m" },
    chat: async () => (await onCall(), { ok: true as const, value: { text: "x", usage } }),
  } as unknown as Parameters<typeof limitedPort>[0];
}

/** Two jobs' calls through one lease pool (4 calls prepaid a lease), B's port as `inLine` makes it. */
async function secondCallOfBegunJob(inLine: (port: LinedPort) => ModelPort) {
  let t = 0;
  const pending: ((r: Awaited<ReturnType<SlotSource["acquire"]>>) => void)[] = [];
  const released: PooledRelease[] = [];
  const source: SlotSource = {
    acquire: () => new Promise((resolve) => pending.push(resolve)),
    release: async (r) => void released.push(r),
  };
  const pool = leasePool(source, { now: () => t, maxChainMs: 60_000, prepay: 4 });
  let finishA!: () => void;
  const aRunning = new Promise<void>((resolve) => (finishA = resolve));
  const env = { now: () => t, sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) };
  const turn = () => new Promise((r) => setTimeout(r, 0));
  let calls = 0;
  const port = limitedPort(
    echoPort(() => (++calls === 1 ? aRunning : Promise.resolve())),
    pool,
    env,
  );
  t = 10;
  const a = portInLine(port, 0).chat(ask);
  await turn();
  pending.shift()!({ granted: true, lease_ids: ["L1"], prepaid_calls: [4] });
  await turn();
  t = 20;
  let bCalled = false;
  void inLine(port)
    .chat(ask)
    .then(() => (bCalled = true));
  await turn();
  finishA();
  await a;
  await turn();
  await turn();
  return { bCalled, released };
}

/** Five calls of one port through `c`, side by side: the sleeps (ms) the port asked its env for. */
async function sleepsOfFiveCalls(c: LimiterClient): Promise<number[]> {
  const sleeps: number[] = [];
  const env = { now: () => 0, sleep: (ms: number) => (sleeps.push(ms), new Promise<void>((r) => setTimeout(r, ms))) };
  const port = limitedPort(echoPort(), c, env);
  const results = await Promise.all(Array.from({ length: 5 }, () => port.chat(ask)));
  expect(results.every((r) => r.ok)).toBe(true);
  return sleeps;
}
