/**
 * How the edge turns a model config into a port, in one place for the queue consumer and the
 * synchronous /v1/judge endpoint: the SDK adapter (keys from worker secrets), every call through
 * the shared ProviderLimiter of its key, and the per-class retry policy (Karenina's budgets).
 */
import { type Env, isLocalMode } from "../env";
import type { EmbeddingPlace } from "../llm/embedding-model";
import { edgeConfig } from "../config";
import { createModelPort, NO_KEY_PLACEHOLDER, requiredSecretName } from "../llm/factory";
import { limitedPort } from "../limiter/limited";
import { guardedFetch } from "../outbound/guarded-fetch";
import type { ModelPort } from "../llm/port";
import { DEFAULT_RETRY_POLICY, type RetryEnv, type RetryPolicy, scaledPolicy, withRetryPolicyConfig } from "../llm/retrying";
import type { ModelConfig } from "../schemas/model-config";
import type { KeyRing } from "../tenants/key-ring";
import { limiterClient, parkingLimiterClient, type poolRegistry } from "../limiter/limiter-client";
import { withOwnShare } from "../limiter/own-share";
import { scrubbingPort } from "../llm/scrubbing";
import type { NonceFor } from "../llm/delimiting";
import { promptNonce } from "../lib/untrusted";
import type { PartialLimits } from "../limiter/limiter-state";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A run's share: its id names its own limiter, where its `limits` for the model apply (src/limiter/own-share.ts). */
export interface RunShare {
  run_id: string;
  limits?: PartialLimits;
}

/**
 * A model's adapter with its calls drawn from the shared limiter (manual models make no calls).
 * `pools`: the invocation's lease pools (a queue batch passes one; a single request needs none).
 * `gate`: wraps the bare adapter, inside the limiter (the queue consumer's cancel check).
 * `settleLater`: a request's waitUntil, so its answer need not wait for the limiter's release.
 */
export function limitedAdapter(
  env: Env,
  ring: KeyRing,
  model: ModelConfig,
  opts: {
    run?: RunShare;
    pools?: ReturnType<typeof poolRegistry>;
    gate?: (port: ModelPort) => ModelPort;
    settleLater?: (release: Promise<unknown>) => void;
  } = {},
): ModelPort {
  // The AI binding is optional: absent locally (it only runs remotely), workers_ai models then fail as bad_request.
  const port = createModelPort(model, ring.secret, {
    timeoutMs: callTimeoutMs(env, model),
    ai: env.AI,
    // Checked at submit too; here again because a queued spec may predate a change of the var or secret.
    keyDestination: ring.destinationIssue,
    // Every request is checked against the outbound policy again, redirects are not followed and a
    // non-provider origin's error text is not passed on (src/outbound/guarded-fetch.ts).
    fetch: guardedFetch(edgeConfig(env).outbound),
  });
  if (model.interface === "manual") return port;
  const name = requiredSecretName(model);
  const key = (name === null ? NO_KEY_PLACEHOLDER : ring.secret(name)) ?? "";
  // A server that echoes the key it was sent (or any key the run could send) gets it scrubbed from the
  // output before the retries, the cache, the result or a log see it (src/llm/scrubbing.ts).
  const scrubbed = scrubbingPort(port, [name === null ? undefined : key, ...ring.knownSecrets()]);
  // The shared limiter is keyed by the key's fingerprint, origin and model (tenants sharing a key
  // share its limit) and takes only the key's own limits, never a run's.
  // A tenant secret's limits, else the operator's for the model's origin or interface (EDGEVAL_PROVIDER_LIMITS).
  const keyLimits = ring.limits(name) ?? operatorLimits(edgeConfig(env).providerLimits, model);
  const { pools, run } = opts;
  // A request (settleLater: its waitUntil) keeps its lease in the isolate for the next request (src/limiter/parked-lease.ts).
  const shared = pools
    ? pools(model, key, keyLimits, callTimeoutMs(env, model))
    : opts.settleLater && !run
      ? parkingLimiterClient(env.LIMITER, model, key, keyLimits, {
          settleLater: opts.settleLater,
          sleep,
          modelTimeoutMs: callTimeoutMs(env, model),
        })
      : limiterClient(env.LIMITER, model, key, keyLimits);
  const client = run?.limits
    ? withOwnShare(limiterClient(env.LIMITER, model, key, lowerLimits(keyLimits, run.limits), `run:${run.run_id}`), shared)
    : shared;
  // The gate (a queued run's cancel check) sits inside the limiter: a call is checked when it would start.
  const limitedEnv = opts.settleLater ? { sleep, now: Date.now, settleLater: opts.settleLater } : { sleep, now: Date.now };
  return limitedPort(opts.gate ? opts.gate(scrubbed) : scrubbed, client, limitedEnv);
}

/** EDGEVAL_PROVIDER_LIMITS for a model: its base_url's origin first, then its interface. */
function operatorLimits(
  table: ReadonlyMap<string, PartialLimits>,
  model: Pick<ModelConfig, "interface" | "base_url">,
): PartialLimits | undefined {
  if (table.size === 0) return undefined;
  let origin: string | undefined;
  try {
    origin = model.base_url ? new URL(model.base_url).origin : undefined;
  } catch {
    origin = undefined;
  }
  return (origin !== undefined ? table.get(origin) : undefined) ?? table.get(model.interface);
}

/** A key's own limits (from its tenant secret) and a run's: each the lower of the two. */
function lowerLimits(key: PartialLimits | undefined, run: PartialLimits | undefined): PartialLimits | undefined {
  if (!key) return run;
  if (!run) return key;
  const lower = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));
  const out: PartialLimits = {};
  for (const k of ["rpm", "tpm", "concurrency"] as const) {
    const v = lower(key[k], run[k]);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/**
 * How long one call to this model may take: its request_timeout (a run's is stamped onto its
 * models at submit, Karenina's 120 s by default), else 120 s, never past the deployment's ceiling
 * (MODEL_TIMEOUT_MS, default 140 s: a call holds a 150 s limiter lease).
 */
export function callTimeoutMs(env: Env, model: Pick<ModelConfig, "request_timeout">): number {
  return Math.min(
    model.request_timeout !== undefined ? model.request_timeout * 1000 : DEFAULT_REQUEST_TIMEOUT_MS,
    edgeConfig(env).modelTimeoutMs,
  );
}
const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

/** The retry policy for one model: the job's, with the model's (or its run's) Karenina retry_policy laid over it. */
export const modelRetryPolicy = (policy: RetryPolicy, model: Pick<ModelConfig, "retry_policy">) =>
  withRetryPolicyConfig(policy, model.retry_policy);

export function retrySettings(env: Env): { retryPolicy: RetryPolicy; retryEnv: RetryEnv } {
  return {
    retryPolicy: scaledPolicy(DEFAULT_RETRY_POLICY, edgeConfig(env).retryDelayScale),
    retryEnv: { sleep, random: Math.random },
  };
}

/** Where the embedding check's default model runs: Workers AI deployed, EDGEVAL_EMBEDDING_BASE_URL (or Ollama) locally. */
export function embeddingPlace(env: Env): EmbeddingPlace {
  const base = edgeConfig(env).embeddingBaseUrl;
  return { local: isLocalMode(env), ...(base ? { localBaseUrl: base } : {}) };
}

/**
 * Used when EDGEVAL_PROMPT_NONCE_KEY is unset: unpredictable, but a re-run in another isolate gets
 * other nonces. Made on first use: a Worker may not generate random values at global scope.
 */
let isolateNonceKey: string | undefined;

/**
 * The nonces of one graded result's calls (src/lib/untrusted.ts promptNonce): `identity` names the
 * result (a job's question, answering model, replicate and judge), so a re-run reproduces them.
 */
export function nonceSource(env: Env, identity: string): NonceFor {
  const key = env.EDGEVAL_PROMPT_NONCE_KEY || (isolateNonceKey ??= crypto.randomUUID());
  return (callSite) => promptNonce(key, identity, callSite);
}
