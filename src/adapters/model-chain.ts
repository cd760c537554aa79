/**
 * The one chain every model call goes through, for queue jobs (jobs/job-ports.ts) and
 * POST /v1/judge alike: the limited adapter (edge-models.ts: the SDK adapter, its calls drawn
 * from the key's shared ProviderLimiter), the answer-delimiting nonces, retries by error class against a ledger, one repair
 * retry for structured output, and, when a cache is given, the response cache outermost, so a hit
 * costs no lease, no retry and no call.
 */
import { cachingPort, type ResponseStore } from "../llm/caching";
import { delimitingPort, type NonceFor } from "../llm/delimiting";
import type { ModelPort } from "../llm/port";
import { repairingPort } from "../llm/repairing";
import { type RetryEnv, type RetryLedger, type RetryPolicy, retryingPort } from "../llm/retrying";

export interface RetrySetup {
  /** Retries used so far, shared by every port of the job (or request) and mutated in place. */
  ledger: RetryLedger;
  retryPolicy: RetryPolicy;
  retryEnv: RetryEnv;
}

export interface CacheSetup {
  store: ResponseStore;
  /** What in the model config changes its answers (response-cache.ts cacheModelScope). */
  model: Record<string, unknown>;
  /** The job's identity, so replicates each make their own call. */
  job: string;
  ttlSeconds: number;
}

/**
 * `nonceFor`: the nonce of each call's answer-delimiting block (src/llm/delimiting.ts). It sits
 * under the retries (a retry repeats the call with the same nonce) and the cache (which keys on the
 * prompt before delimiting, so cached calls hit whatever the nonce).
 */
export function modelPortChain(limited: ModelPort, nonceFor: NonceFor, retry: RetrySetup, cache?: CacheSetup): ModelPort {
  const port = repairingPort(retryingPort(delimitingPort(limited, nonceFor), retry.ledger, retry.retryPolicy, retry.retryEnv));
  return cache ? cachingPort(port, cache.store, { model: cache.model, job: cache.job, ttlSeconds: cache.ttlSeconds }) : port;
}
