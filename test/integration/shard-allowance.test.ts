/**
 * The allowance protocol of a budgeted sharded run (src/coordinator/shard-allowance.ts), step by
 * step on two shards of three jobs and their root (budget $1, slices of $0.125): a shard starts jobs
 * only within its allowance; the allowances never total more than the budget, a shard's overshoot
 * counted against the other's; with the rest held elsewhere a claim waits; a shard that closed its
 * jobs hands back what it did not spend, and the waiting shard gets it; the run reaching its budget
 * stops every shard.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import type { RunCoordinator } from "../../src/coordinator/coordinator";
import { shardName } from "../../src/coordinator/shards";

const rec = (job: string, cost: number) => ({
  result_id: `r-${job}`,
  job_id: job,
  answering_id: "a",
  parsing_id: "p",
  verdict: "pass" as const,
  usage: [
    {
      key: `r-${job}|parsing`,
      job_id: job,
      answering_id: "a",
      parsing_id: "p",
      stage: "parsing",
      model: "m",
      input_tokens: 1,
      output_tokens: 1,
      cost_usd: cost,
    },
  ],
});

describe("a budgeted sharded run's allowances", () => {
  it("grant slices within the budget, make a claim wait while the rest is held, hand back, and stop at the budget", async () => {
    const root = `allowance-${crypto.randomUUID()}`;
    const [s0, s1] = [0, 1].map((s) => env.RUNS.getByName(shardName(root, s)));
    // The shards' jobs are claimed here, not by the queue: their sends are only stamped.
    for (const shard of [s0!, s1!])
      await runInDurableObject(shard, async (instance: RunCoordinator) => {
        instance.sendJobs = async (_run, ids, accepted) => accepted([...ids]);
      });
    await env.RUNS.getByName(root).init({
      run_id: root,
      job_ids: [],
      answering_ids: ["a"],
      parsing_ids: ["p"],
      results_per_pair: 6,
      budget_usd: 1,
      shards: { count: 2, per_shard: 3, dims: { questions: 6, answering: 1, replicates: 1 } },
    });
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
    expect((await s0!.claim("0.0.1")).kind).toBe("run");
    expect(await granted()).toEqual({ 0: 0.125 });
    await s0!.record(rec("0.0.1", 0.9), { completesJob: true });
    // Shard 1 gets only what is left: $1 − $0.90 (shard 0's spend counts, not its $0.125).
    expect((await s1!.claim("3.0.1")).kind).toBe("run");
    expect((await granted())[1]).toBeCloseTo(0.1, 9);
    // Shard 0 is past its allowance and nothing is left to grant: its claim waits.
    expect(await s0!.claim("1.0.1")).toEqual({ kind: "wait", retry_in_seconds: 2 });

    // Shard 1 closes its jobs having spent $0.06 of its $0.10, and hands the rest back.
    await s1!.record(rec("3.0.1", 0.02), { completesJob: true });
    for (const job of ["4.0.1", "5.0.1"]) {
      expect((await s1!.claim(job)).kind).toBe("run");
      await s1!.record(rec(job, 0.02), { completesJob: true });
    }
    await vi.waitUntil(async () => Math.abs(((await granted())[1] ?? 0) - 0.06) < 1e-9, { timeout: 5_000, interval: 20 });

    // Now shard 0's claim gets the $0.04 handed back; its job's $0.20 takes the run past $1, and the
    // root stops every shard: shard 0's last job is skipped and the run ends budget_exceeded.
    expect((await s0!.claim("1.0.1")).kind).toBe("run");
    expect((await granted())[0]).toBeCloseTo(0.94, 9);
    await s0!.record(rec("1.0.1", 0.2), { completesJob: true });
    await vi.waitUntil(async () => (await env.RUNS.getByName(root).snapshot())?.status === "budget_exceeded", {
      timeout: 5_000,
      interval: 20,
    });
    const snap = (await env.RUNS.getByName(root).snapshot())!;
    expect(snap.jobs).toEqual({ total: 6, done: 5, dead: 0, skipped: 1 });
    expect(snap.usage.total.cost_usd).toBeCloseTo(1.16, 9);
    expect(await s0!.claim("2.0.1")).toEqual({ kind: "finished", state: "skipped" });
  });
});
