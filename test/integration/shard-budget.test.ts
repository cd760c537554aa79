/**
 * A sharded run keeps its budget as an unsharded one does (src/coordinator/shard-allowance.ts): the
 * same budgeted run, on one coordinator and forced into shards of 1 and of 3 jobs, ends
 * budget_exceeded having spent at most the budget plus the jobs running when it was reached (the
 * run's peak of jobs running, plus the one that reached it, × the dearest job). Before the
 * allowances every shard claimed before any spend was known, and the run in 1-job shards ran all
 * 12 jobs and ended completed.
 */
import { describe, expect, it } from "vitest";
import { addFakeRules, allResults, api, exactTemplate, fakeModel, fakeStats, uniqueModel, waitForRun } from "./helpers";
import { startWithShardJobs } from "./shard-helpers";

const JOBS = 12;
/** $1 per 1,000 tokens, so a job (an answer and a judge call, ~100+ tokens) costs well over $0.05. */
const price = { input_per_mtok: 1_000, output_per_mtok: 1_000 };

async function budgetedRun(shardJobs: string | undefined, budgetUsd: number) {
  const ans = uniqueModel("shard-budget-ans");
  const judge = uniqueModel("shard-budget-judge");
  // The answer takes 300 ms, so jobs running at once overlap in it: the fake's peak of answering
  // calls in flight is the run's peak of jobs running.
  await addFakeRules([
    { match: { model: ans }, reply: { text: "The answer is x.", latency_ms: 300 } },
    { match: { model: judge }, reply: { json: { answer: "x" } } },
  ]);
  const questions = Array.from({ length: JOBS }, (_, i) => ({ id: `q${i}`, question: `Question ${i}?`, template: exactTemplate("x") }));
  const runId = await startWithShardJobs(
    {
      benchmark: { name: "shard-budget", questions },
      config: { answering_models: [fakeModel("ans", ans)], parsing_models: [fakeModel("judge", judge)], replicate_count: 1 },
      prices: { [ans]: price, [judge]: price },
      budget_usd: budgetUsd,
    },
    shardJobs,
  );
  const view = (await waitForRun(runId, ["completed", "partial", "failed", "budget_exceeded"], 60_000)) as any;
  const full = (await (await api(`/v1/runs/${runId}`)).json()) as any;
  const results = await allResults(runId);
  const jobCost = (r: any) =>
    (r.template.usage_metadata.answer_generation.total_tokens + r.template.usage_metadata.parsing.total_tokens) / 1_000;
  return {
    status: view.status as string,
    done: view.progress.done as number,
    spent: full.usage.total.cost_usd as number,
    dearestJob: Math.max(...results.map(jobCost)),
    started: (await fakeStats(ans)).total,
    peakRunning: (await fakeStats(ans)).peak_in_flight,
  };
}

describe("a sharded run's budget", () => {
  it("ends budget_exceeded within the unsharded bound: budget + jobs in flight, on one coordinator and in shards of 1 and 3 jobs", async () => {
    // One job costs ~$0.6: the budget is reached after two jobs, long before the 12th.
    const budget = 1;
    for (const shardJobs of [undefined, "1", "3"]) {
      const run = await budgetedRun(shardJobs, budget);
      // The jobs running when the budget was reached include the one whose result reached it, which
      // spent at most one job past the budget; it is in its judge call then, so its answer need not
      // have overlapped the others' and the fake's peak may not count it (CI, 6 Dec: 6 jobs spent
      // 3.536 against 1 + 4 × 0.59 with a peak of 4 answers in flight). Hence the + 1.
      const bound = budget + (run.peakRunning + 1) * run.dearestJob;
      expect({ shardJobs, status: run.status }).toEqual({ shardJobs, status: "budget_exceeded" });
      expect(run.spent).toBeGreaterThanOrEqual(budget);
      expect(run.spent).toBeLessThanOrEqual(bound + 1e-9);
      expect(run.done).toBeLessThan(JOBS);
      // One answer call per job started: none started beyond those that finished.
      expect(run.started).toBe(run.done);
    }
  }, 180_000);
});
