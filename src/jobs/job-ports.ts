/**
 * The model ports one job uses: the batch's limited adapter, wrapped per job in retries (against
 * the job's retry ledger), one repair retry for structured output, and, when the run asks for
 * it, the response cache (outermost, so a hit costs no lease, no retry and no call).
 *
 * The ledger is checkpointed next to the answer when the job goes back to the queue, so its
 * per-class budgets carry over to the next delivery.
 */
import { cachingPort } from "../llm/caching";
import type { ModelPort } from "../llm/port";
import { repairingPort } from "../llm/repairing";
import { emptyLedger, type RetryEnv, type RetryLedger, type RetryPolicy, retryingPort, RETRY_CLASSES } from "../llm/retrying";
import type { ModelConfig } from "../schemas/model-config";
import { r2Keys, runPrefix, type RunRef } from "../storage/r2-keys";
import { cacheModelScope, DEFAULT_CACHE_TTL_S, r2ResponseStore } from "../adapters/response-cache";
import type { JobRef, RunSpec } from "../submit/spec";
import type { PartialLimits } from "../limiter/limiter-state";

export interface JobPortDeps {
  blobs: R2Bucket;
  /** The batch's adapter for a model, its calls through the shared limiter (with the run's limits). */
  portFor: (model: ModelConfig, limits: PartialLimits | undefined, tenantId: string | undefined) => ModelPort;
  clock: { now(): number };
  retryPolicy: RetryPolicy;
  retryEnv: RetryEnv;
}

/** The retries a job has used on earlier deliveries (none on its first). */
export async function loadLedger(blobs: R2Bucket, run: RunRef, jobId: string, attempts: number): Promise<RetryLedger> {
  const ledger = emptyLedger();
  if (attempts <= 1) return ledger;
  const obj = await blobs.get(r2Keys.retryLedger(run, jobId));
  if (!obj) return ledger;
  const saved = (await obj.json()) as Partial<RetryLedger>;
  for (const c of RETRY_CLASSES) if (Number.isInteger(saved[c]) && saved[c]! >= 0) ledger[c] = saved[c]!;
  return ledger;
}

export async function saveLedger(blobs: R2Bucket, run: RunRef, jobId: string, ledger: RetryLedger): Promise<void> {
  await blobs.put(r2Keys.retryLedger(run, jobId), JSON.stringify(ledger));
}

export function jobPorts(spec: RunSpec, job: JobRef, ledger: RetryLedger, deps: JobPortDeps): (model: ModelConfig) => ModelPort {
  const ports = new Map<ModelConfig, ModelPort>();
  const cache = spec.cache;
  const store = cache?.enabled ? r2ResponseStore(deps.blobs, () => deps.clock.now(), r2Keys.cachePrefix(spec.tenant_id), `${runPrefix(spec)}/`) : null;
  const jobScope = JSON.stringify([job.question.id, job.answering.id, job.replicate]);
  return (model) => {
    let port = ports.get(model);
    if (port) return port;
    port = repairingPort(retryingPort(deps.portFor(model, spec.limits?.[model.id], spec.tenant_id), ledger, deps.retryPolicy, deps.retryEnv));
    if (store) {
      port = cachingPort(port, store, {
        model: cacheModelScope(model),
        job: jobScope,
        ttlSeconds: cache?.ttl_s ?? DEFAULT_CACHE_TTL_S,
      });
    }
    ports.set(model, port);
    return port;
  };
}
