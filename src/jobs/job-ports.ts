/**
 * The model ports one job uses: the batch's limited adapter in the one model-port chain
 * (adapters/model-chain.ts) with the job's retry ledger and, when the run asks for it, the cache.
 *
 * The ledger is checkpointed next to the answer when the job goes back to the queue, so its
 * per-class budgets carry over to the next delivery.
 */
import type { ModelPort } from "../llm/port";
import { emptyLedger, type RetryEnv, type RetryLedger, type RetryPolicy, RETRY_CLASSES } from "../llm/retrying";
import { modelPortChain } from "../adapters/model-chain";
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
    const limited = deps.portFor(model, spec.limits?.[model.id], spec.tenant_id);
    const cacheSetup = store ? { store, model: cacheModelScope(model), job: jobScope, ttlSeconds: cache?.ttl_s ?? DEFAULT_CACHE_TTL_S } : undefined;
    port = modelPortChain(limited, { ledger, retryPolicy: deps.retryPolicy, retryEnv: deps.retryEnv }, cacheSetup);
    ports.set(model, port);
    return port;
  };
}
