/**
 * How the edge turns a model config into a port, in one place for the queue consumer and the
 * synchronous /v1/judge endpoint: the SDK adapter (keys from worker secrets), every call through
 * the shared ProviderLimiter of its key, and the per-class retry policy (Karenina's budgets).
 */
import type { Env } from "../env";
import { createModelPort, NO_KEY_PLACEHOLDER, requiredSecretName } from "../llm/factory";
import { limitedPort } from "../limiter/limited";
import type { ModelPort } from "../llm/port";
import { DEFAULT_RETRY_POLICY, type RetryEnv, type RetryPolicy, scaledPolicy } from "../llm/retrying";
import type { AiBinding } from "../llm/workers-ai";
import type { ModelConfig } from "../schemas/model-config";
import type { KeyRing } from "../tenants/key-ring";
import { limiterClient, type poolRegistry } from "../limiter/limiter-client";
import type { PartialLimits } from "../limiter/limiter-state";


const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A model's adapter with its calls drawn from the shared limiter (manual models make no calls).
 * `pools`: the invocation's lease pools (a queue batch passes one; a single request needs none).
 */
export function limitedAdapter(
  env: Env,
  ring: KeyRing,
  model: ModelConfig,
  limits?: PartialLimits,
  pools?: ReturnType<typeof poolRegistry>,
): ModelPort {
  // The AI binding is optional: absent locally (it only runs remotely), workers_ai models then fail as bad_request.
  const port = createModelPort(model, ring.secret, {
    timeoutMs: modelTimeoutMs(env),
    ai: env.AI as AiBinding | undefined,
    // Checked at submit too; here again because a queued spec may predate a change of the var or secret.
    keyDestination: ring.destinationIssue,
  });
  if (model.interface === "manual") return port;
  const name = requiredSecretName(model);
  const key = (name === null ? NO_KEY_PLACEHOLDER : ring.secret(name)) ?? "";
  // The limiter stays keyed by the key's fingerprint, origin and model: tenants sharing a key share its limit.
  const merged = lowerLimits(ring.limits(name), limits);
  const client = pools ? pools(model, key, merged) : limiterClient(env.LIMITER, model, key, merged);
  return limitedPort(port, client, { sleep, now: Date.now });
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

/** How long one model call may take (MODEL_TIMEOUT_MS, default 120 s). */
export const modelTimeoutMs = (env: Env) => positiveInt(env.MODEL_TIMEOUT_MS, 120_000);

export function retrySettings(env: Env): { retryPolicy: RetryPolicy; retryEnv: RetryEnv } {
  return {
    retryPolicy: scaledPolicy(DEFAULT_RETRY_POLICY, nonNegativeNumber(env.RETRY_DELAY_SCALE, 1)),
    retryEnv: { sleep, random: Math.random },
  };
}

export function positiveInt(raw: unknown, fallback: number): number {
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

function nonNegativeNumber(raw: unknown, fallback: number): number {
  const n = Number(raw);
  return raw !== undefined && Number.isFinite(n) && n >= 0 ? n : fallback;
}
