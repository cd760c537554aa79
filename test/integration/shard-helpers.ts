/**
 * Sharded runs in tests (src/coordinator/shards.ts): submitting a run with its coordinator shard size
 * forced (planned and started as POST /v1/runs would, COORDINATOR_SHARD_JOBS set for this run only),
 * and finding the coordinators that hold a run's jobs, sharded or not (the workers-sharded project
 * runs some suites with every run sharded).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { RunCoordinator } from "../../src/coordinator/coordinator";
import { jobIndexOf, type ShardPlan, shardName } from "../../src/coordinator/shards";
import { CreateRunBody } from "../../src/schemas/api";
import { planRun } from "../../src/submit/plan";
import { startRun } from "../../src/submit/submit";
import { keyRing } from "../../src/tenants/key-ring";

/** Starts the run (tenant `default`) and returns its id; `shardJobs` undefined: the test stack's own setting. */
export async function startWithShardJobs(body: unknown, shardJobs: string | undefined): Promise<string> {
  const runId = crypto.randomUUID();
  const plan = planRun(
    CreateRunBody.parse(body),
    { run_id: runId, tenant_id: "default", created_at: new Date().toISOString() },
    keyRing(env, true, new Map()),
  );
  if (!plan.ok) throw new Error(JSON.stringify(plan.issues));
  await startRun(shardJobs ? { ...env, COORDINATOR_SHARD_JOBS: shardJobs } : env, plan.spec, plan.jobIds);
  return runId;
}

/** A run's root coordinator and its shard plan (null: not sharded). */
async function rootAndPlan(runId: string): Promise<{ root: string; plan: ShardPlan | null }> {
  const row = await env.DB.prepare("SELECT coordinator_name FROM runs WHERE run_id = ?").bind(runId).first<{ coordinator_name: string }>();
  const root = row!.coordinator_name;
  const plan = await runInDurableObject(env.RUNS.getByName(root), async (_i, state) => {
    const v = state.storage.sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = 'shards'").toArray()[0]?.v;
    return v ? (JSON.parse(v) as ShardPlan) : null;
  });
  return { root, plan };
}

/** The coordinators holding a run's jobs: its own, or each of its shards (src/coordinator/shards.ts). */
export async function jobCoordinators(runId: string): Promise<string[]> {
  const { root, plan } = await rootAndPlan(runId);
  return plan ? Array.from({ length: plan.count }, (_, s) => shardName(root, s)) : [root];
}

/** The coordinator holding one job of a run: its own, or the job's shard. */
export async function coordinatorOfJobIn(runId: string, jobId: string): Promise<string> {
  const { root, plan } = await rootAndPlan(runId);
  return plan ? shardName(root, Math.floor(jobIndexOf(jobId, plan.dims)! / plan.per_shard)) : root;
}

/** A result of `job` for the pair a/`parsing` with one priced parsing usage row: what a consumer records. */
export const pricedResult = (job: string, costUsd: number, parsing = "p") => ({
  result_id: `r-${job}`,
  job_id: job,
  answering_id: "a",
  parsing_id: parsing,
  verdict: "pass" as const,
  usage: [
    {
      key: `r-${job}|parsing`,
      job_id: job,
      answering_id: "a",
      parsing_id: parsing,
      stage: "parsing",
      model: "m",
      input_tokens: 1,
      output_tokens: 1,
      cost_usd: costUsd,
    },
  ],
});

/**
 * A root (pair a/p, one answering model, one replicate) with `count` shards of `perShard` jobs, started
 * directly: the shards' sends are only stamped, so no job reaches the queue unless the test delivers
 * it, and the test claims and records the shards' jobs itself.
 */
export async function rootWithShards(prefix: string, count: number, perShard: number, budgetUsd?: number) {
  const root = `${prefix}-${crypto.randomUUID()}`;
  const shards = Array.from({ length: count }, (_, s) => env.RUNS.getByName(shardName(root, s)));
  for (const shard of shards)
    await runInDurableObject(shard, async (instance: RunCoordinator) => {
      instance.sendJobs = async (_run, ids, accepted) => accepted([...ids]);
    });
  const jobs = count * perShard;
  await env.RUNS.getByName(root).init({
    run_id: root,
    job_ids: [],
    answering_ids: ["a"],
    parsing_ids: ["p"],
    results_per_pair: jobs,
    ...(budgetUsd !== undefined ? { budget_usd: budgetUsd } : {}),
    shards: { count, per_shard: perShard, dims: { questions: jobs, answering: 1, replicates: 1 } },
  });
  return { root, shards };
}
