/**
 * The allowance protocol of a budgeted sharded run (src/coordinator/shard-allowance.ts), step by
 * step on two shards of three jobs and their root (budget $1, slices of $0.125): a shard starts jobs
 * only within its allowance; the allowances never total more than the budget, a shard's overshoot
 * counted against the other's; with the rest held elsewhere a claim waits; a shard that closed its
 * jobs hands back what it did not spend, and the waiting shard gets it; the run reaching its budget
 * stops every shard.
 */
import { createExecutionContext, createMessageBatch, getQueueResult, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { pricedResult, rootWithShards } from "./shard-helpers";

/** A root with a $1 budget and two shards of three jobs, whose jobs the test claims itself. */
async function budgetedShards() {
  const { root, shards } = await rootWithShards("allowance", 2, 3, 1);
  return { root, s0: shards[0]!, s1: shards[1]! };
}

describe("a budgeted sharded run's allowances", () => {
  it("grant slices within the budget, make a claim wait while the rest is held, hand back, and stop at the budget", async () => {
    const { root, s0, s1 } = await budgetedShards();
    const granted = () =>
      runInDurableObject(env.RUNS.getByName(root), async (_i, state) =>
        Object.fromEntries(
          state.storage.sql
            .exec<{ shard: number; granted: number }>("SELECT shard, granted FROM shard_budget")
            .toArray()
            .map((r) => [r.shard, r.granted]),
        ),
      );

    // Shard 0's first claim is granted a slice ($1 / (4 × 2)); its job costs $0.90, far past it.
    expect((await s0.claim("0.0.1")).kind).toBe("run");
    expect(await granted()).toEqual({ 0: 0.125 });
    await s0.record(pricedResult("0.0.1", 0.9), { completesJob: true });
    // Shard 1 gets only what is left: $1 − $0.90 (shard 0's spend counts, not its $0.125).
    expect((await s1.claim("3.0.1")).kind).toBe("run");
    expect((await granted())[1]).toBeCloseTo(0.1, 9);
    // Shard 0 is past its allowance and nothing is left to grant: its claim waits.
    expect(await s0.claim("1.0.1")).toEqual({ kind: "wait", retry_in_seconds: 2 });

    // Shard 1 closes its jobs having spent $0.06 of its $0.10, and hands the rest back.
    await s1.record(pricedResult("3.0.1", 0.02), { completesJob: true });
    for (const job of ["4.0.1", "5.0.1"]) {
      expect((await s1.claim(job)).kind).toBe("run");
      await s1.record(pricedResult(job, 0.02), { completesJob: true });
    }
    await vi.waitUntil(async () => Math.abs(((await granted())[1] ?? 0) - 0.06) < 1e-9, { timeout: 5_000, interval: 20 });

    // Now shard 0's claim gets the $0.04 handed back; its job's $0.20 takes the run past $1, and the
    // root stops every shard: shard 0's last job is skipped and the run ends budget_exceeded.
    expect((await s0.claim("1.0.1")).kind).toBe("run");
    expect((await granted())[0]).toBeCloseTo(0.94, 9);
    await s0.record(pricedResult("1.0.1", 0.2), { completesJob: true });
    await vi.waitUntil(async () => (await env.RUNS.getByName(root).snapshot())?.status === "budget_exceeded", {
      timeout: 5_000,
      interval: 20,
    });
    const snap = (await env.RUNS.getByName(root).snapshot())!;
    expect(snap.jobs).toEqual({ total: 6, done: 5, dead: 0, skipped: 1 });
    expect(snap.usage.total.cost_usd).toBeCloseTo(1.16, 9);
    expect(await s0.claim("2.0.1")).toEqual({ kind: "finished", state: "skipped" });
  });

  it("a job delivered while its shard waits for allowance is deferred: acked, a copy sent back later, no delivery spent", async () => {
    const { root, s0, s1 } = await budgetedShards();
    expect((await s0.claim("0.0.1")).kind).toBe("run");
    await s0.record(pricedResult("0.0.1", 0.9), { completesJob: true });
    expect((await s1.claim("3.0.1")).kind).toBe("run");
    // Shard 0's next job, as the queue delivers it: the rest of the budget is held by shard 1.
    const copies: { body: unknown; delaySeconds?: number }[] = [];
    const jobs = { send: async (body: unknown, opts?: { delaySeconds?: number }) => void copies.push({ body, ...opts }) };
    const batch = createMessageBatch("edgeval-jobs", [
      { id: `m-${crypto.randomUUID()}`, timestamp: new Date(), attempts: 1, body: { run_id: root, job_id: "1.0.1", shard: 0 } },
    ]);
    await worker.queue(batch, { ...env, JOBS: jobs as unknown as Queue<unknown> });
    const outcome = await getQueueResult(batch, createExecutionContext());
    expect(outcome.explicitAcks).toHaveLength(1);
    expect(outcome.retryMessages).toEqual([]);
    expect(copies).toEqual([{ body: { run_id: root, job_id: "1.0.1", shard: 0, deferrals: 1 }, delaySeconds: 2 }]);
    // The job was not started: still pending on its shard.
    const state = await runInDurableObject(s0, async (_i, st) =>
      st.storage.sql.exec<{ state: string }>("SELECT state FROM jobs WHERE job_id = '1.0.1'").one(),
    );
    expect(state.state).toBe("pending");
  });
});
