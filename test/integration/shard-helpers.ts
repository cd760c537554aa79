/**
 * Submitting a run with its coordinator shard size forced (src/coordinator/shards.ts): the run is
 * planned and started as POST /v1/runs would, with COORDINATOR_SHARD_JOBS set for this run only.
 */
import { env } from "cloudflare:workers";
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
