/**
 * R2 layout. Every key is derived from ids only, so a redelivered job overwrites its own
 * objects instead of adding new ones. See storage/SCHEMA.md.
 *
 * Objects of a tenant's runs live under `t/{tenant}/runs/{run}/`. A run written before tenants
 * existed has no tenant on its spec and keeps its old `runs/{run}/` keys (rows record their keys).
 */

/** The tenant of EDGEVAL_API_TOKEN and of every run from before tenants (tenants/tenants-repo.ts exports it too). */
export const DEFAULT_TENANT = "default";

/** Under a run's prefix: one empty object per response-cache entry the run wrote (DELETE removes those entries). */
export const CACHE_REFS = "cache-refs/";

/** What names a run's objects and coordinator: its id and, for runs since tenants, its tenant. */
export interface RunRef {
  run_id: string;
  tenant_id?: string | undefined;
}

/** The R2 prefix of everything a tenant owns. */
export const tenantPrefix = (tenantId: string) => `t/${tenantId}/`;

/** The prefix of one run's objects (no trailing slash). */
export const runPrefix = (run: RunRef) => (run.tenant_id ? `${tenantPrefix(run.tenant_id)}runs/${run.run_id}` : `runs/${run.run_id}`);

/** The RunCoordinator's name: `<tenant>:<run_id>`, or the bare run id for runs from before tenants. */
export const coordinatorName = (run: RunRef) => (run.tenant_id ? `${run.tenant_id}:${run.run_id}` : run.run_id);

export const r2Keys = {
  /** The submitted benchmark + config (no secrets: configs name secrets, never hold them). */
  spec: (run: RunRef) => `${runPrefix(run)}/spec.json`,
  /** A job's generated answer when too long for the coordinator's row (src/jobs/answer-step.ts answerFor). */
  answerCheckpoint: (run: RunRef, jobId: string) => `${runPrefix(run)}/checkpoints/${jobId}/answer.json`,
  /** An answering agent's progress: its conversation after every model turn and tool result (agent-checkpoint-store). */
  agentCheckpoint: (run: RunRef, jobId: string) => `${runPrefix(run)}/checkpoints/${jobId}/agent.json`,
  /** The retries a job used on earlier deliveries (job-ports). */
  retryLedger: (run: RunRef, jobId: string) => `${runPrefix(run)}/checkpoints/${jobId}/retries.json`,
  /** The full VerificationResult with its trace (raw answer, trace messages), one per results row. */
  result: (run: RunRef, resultId: string) => `${runPrefix(run)}/results/${resultId}.json`,
  /** A built export of the run (src/exports/), and the bytes a builder step left for a later part (each under one part). */
  export: (run: RunRef, exportId: string, extension: string) => `${runPrefix(run)}/exports/${exportId}/export.${extension}`,
  exportSegment: (run: RunRef, exportId: string, step: number) => `${runPrefix(run)}/exports/${exportId}/segments/${step}`,
  /** An agentic question's workspace (src/adapters/workspace.ts). */
  workspace: (run: RunRef, questionId: string) => `${runPrefix(run)}/workspaces/${encodeURIComponent(questionId)}/`,
  /** A stored benchmark's body. */
  benchmark: (tenantId: string, benchmarkId: string) => `${tenantPrefix(tenantId)}benchmarks/${benchmarkId}/benchmark.json`,
  /** The response cache of a tenant (src/adapters/response-cache.ts); entries never cross tenants. */
  cachePrefix: (tenantId: string | undefined) => (tenantId ? `${tenantPrefix(tenantId)}cache/v1/` : "cache/v1/"),
} as const;
