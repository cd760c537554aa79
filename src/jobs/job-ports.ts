/**
 * The model ports one job uses: the batch's limited adapter in the one model-port chain
 * (adapters/model-chain.ts) with the job's retry ledger and, when the run asks for it, the cache.
 *
 * The ledger is checkpointed next to the answer when the job goes back to the queue
 * (storage/ledger-store.ts), so its per-class budgets carry over to the next delivery.
 */
import type { ModelPort } from "../llm/port";
import type { NonceFor } from "../llm/delimiting";
import type { RetryEnv, RetryLedger, RetryPolicy } from "../llm/retrying";
import { modelPortChain } from "../adapters/model-chain";
import type { ModelConfig } from "../schemas/model-config";
import { r2Keys, runPrefix } from "../storage/r2-keys";
import { modelRetryPolicy } from "../adapters/edge-models";
import { cacheModelScope, DEFAULT_CACHE_TTL_S, r2ResponseStore } from "../adapters/response-cache";
import type { JobRef } from "../submit/spec";
import type { RunSpec } from "../storage/run-spec";
import type { PartialLimits } from "../limiter/limiter-state";

/** What the edge needs of a run to build its ports: the tenant's keys, and the run's own limits for the model. */
export interface RunShareOf {
  run_id: string;
  tenant_id: string | undefined;
  limits: PartialLimits | undefined;
}

export interface JobPortDeps {
  blobs: R2Bucket;
  /**
   * The batch's adapter for a model, its calls through the key's shared limiter and, when the run
   * sets `limits` for it, the run's own; each call in the limiter's line from `lineSince`.
   */
  portFor: (model: ModelConfig, run: RunShareOf, lineSince: number) => ModelPort;
  clock: { now(): number };
  /** The answer-delimiting nonces of one result's calls (src/adapters/edge-models.ts nonceSource). */
  nonceFor: (identity: string) => NonceFor;
  retryPolicy: RetryPolicy;
  retryEnv: RetryEnv;
}

/**
 * `lineSince`: when the job began. Its calls all take their place in the key's limiter line from
 * then (src/limiter/limited.ts), so a job's later calls queue behind only the jobs begun before it.
 */
export function jobPorts(
  spec: RunSpec,
  job: JobRef,
  ledger: RetryLedger,
  deps: JobPortDeps,
  lineSince: number,
): (model: ModelConfig) => ModelPort {
  const ports = new Map<ModelConfig, ModelPort>();
  const cache = spec.cache;
  const store = cache?.enabled
    ? r2ResponseStore(deps.blobs, () => deps.clock.now(), r2Keys.cachePrefix(spec.tenant_id), `${runPrefix(spec)}/`)
    : null;
  const jobScope = JSON.stringify([job.question.id, job.answering.id, job.replicate]);
  return (model) => {
    let port = ports.get(model);
    if (port) return port;
    const limited = deps.portFor(model, { run_id: spec.run_id, tenant_id: spec.tenant_id, limits: spec.limits?.[model.id] }, lineSince);
    const cacheSetup = store
      ? { store, model: cacheModelScope(model), job: jobScope, ttlSeconds: cache?.ttl_s ?? DEFAULT_CACHE_TTL_S }
      : undefined;
    // The result's identity: the job (question, answering model, replicate) and the model called.
    const nonces = deps.nonceFor(`${jobScope}|${model.id}`);
    port = modelPortChain(
      limited,
      nonces,
      { ledger, retryPolicy: modelRetryPolicy(deps.retryPolicy, model), retryEnv: deps.retryEnv },
      cacheSetup,
    );
    ports.set(model, port);
    return port;
  };
}
