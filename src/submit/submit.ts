/**
 * Creating a run, in an order that never loses it: spec to R2, job list to the coordinator,
 * the runs row to D1, then the job messages (ids only, spread over the job queue's shards). If
 * sending stops half-way, the coordinator's stall alarm re-sends what the queue never accepted.
 * If the row (with its audit entry) cannot be written, the coordinator is purged and the spec
 * deleted, so the failed submit leaves nothing that runs.
 * A run of more than COORDINATOR_SHARD_JOBS jobs (src/coordinator/shards.ts) is stored and left
 * to its coordinator shards, which enqueue their jobs in chunks from their alarms.
 */
import type { Env } from "../env";
import { coordinatorName } from "../storage/r2-keys";
import { insertRun } from "../storage/runs-repo";
import { DEFAULT_TENANT } from "../tenants/tenants-repo";
import { sendJobs } from "../coordinator/job-queues";
import { runManifest } from "../coordinator/manifest";
import type { RunSpec } from "../storage/run-spec";
import { saveSpec } from "../storage/spec-store";
import { shardPlan } from "../coordinator/shards";
import { edgeConfig } from "../config";

/**
 * `webhook_endpoint_ids`: endpoints (already checked to be the tenant's) that receive the run's
 * events; `result_events`: one of its receivers takes result.created (src/webhooks/result-events.ts);
 * `api_origin`: where the run's webhook links point (src/webhooks/links.ts).
 * `withRow`: statements written in the batch inserting the runs row (its audit entry): a run whose
 * entry cannot be written has no row, is sent no job and fails its submit, so the retry is the only run.
 */
export async function startRun(
  env: Env,
  spec: RunSpec,
  jobIds: string[],
  opts: {
    webhook_endpoint_ids?: string[];
    result_events?: boolean;
    api_origin?: string | null;
    withRow?: readonly D1PreparedStatement[];
  } = {},
): Promise<void> {
  const specKey = await saveSpec(env.BLOBS, spec);
  const perPair = spec.questions.length * spec.replicate_count;
  const coordinator = coordinatorName(spec);
  const dims = { questions: spec.questions.length, answering: spec.answering_models.length, replicates: spec.replicate_count };
  // A scenario's turn jobs are created as it runs, by the coordinator that holds its chain: a run
  // with scenarios stays on one coordinator (shards derive their jobs from the plan up front).
  const shards = spec.scenarios?.length ? null : shardPlan(dims, edgeConfig(env).coordinatorShardJobs);
  await env.RUNS.getByName(coordinator).init({
    run_id: spec.run_id,
    ...(spec.tenant_id ? { tenant_id: spec.tenant_id } : {}),
    // A sharded run's shards derive their jobs from the plan and enqueue them from their alarms.
    job_ids: shards ? [] : jobIds,
    ...(shards ? { shards } : {}),
    answering_ids: spec.answering_models.map((m) => m.id),
    parsing_ids: spec.parsing_models.map((m) => m.id),
    results_per_pair: perPair,
    ...(spec.budget_usd !== undefined ? { budget_usd: spec.budget_usd } : {}),
    manifest: runManifest(spec),
    ...(opts.webhook_endpoint_ids?.length ? { webhook_endpoint_ids: opts.webhook_endpoint_ids } : {}),
    ...(opts.result_events ? { result_events: true } : {}),
  });
  const row = insertRun(env.DB, {
    run_id: spec.run_id,
    tenant_id: spec.tenant_id ?? DEFAULT_TENANT,
    coordinator_name: coordinator,
    run_name: spec.run_name,
    benchmark_name: spec.benchmark_name,
    status: "queued",
    total_results: perPair * spec.answering_models.length * spec.parsing_models.length,
    total_jobs: jobIds.length,
    spec_key: specKey,
    created_at: spec.created_at,
    finished_at: null,
    parent_run_id: spec.rescore?.parent_run_id ?? null,
    rescore_caveats: spec.rescore?.caveats ?? null,
    api_origin: opts.api_origin ?? null,
  });
  try {
    await env.DB.batch([row, ...(opts.withRow ?? [])]);
  } catch (err) {
    // No row: nothing of the run may go on. Its coordinator's watch alarm would send its jobs after
    // SEND_GRACE_MS (a sharded run's shards, theirs) and grade a run no one can see or delete.
    await env.RUNS.getByName(coordinator)
      .purge()
      .catch(() => {});
    await env.BLOBS.delete(specKey).catch(() => {});
    throw err;
  }
  if (shards) return;
  // Each send the queue took is stamped in the coordinator: its stall watch re-sends only the rest.
  const stub = env.RUNS.getByName(coordinator);
  await sendJobs(env, spec, jobIds, (ids) => stub.accepted(ids));
}
