/**
 * How the edge turns a model config into a port, in one place for the queue consumer and the
 * synchronous /v1/judge endpoint: the SDK adapter (keys from worker secrets), every call through
 * the shared ProviderLimiter of its key, and the per-class retry policy (Karenina's budgets).
 */
import type { Env } from "../env";
import { createModelPort, NO_KEY_PLACEHOLDER, requiredSecretName } from "../llm/factory";
import { allowedKeyOrigins, KEY_ORIGINS_VAR } from "../llm/key-origins";
import { limitedPort } from "../llm/limited";
import type { ModelPort } from "../llm/port";
import { DEFAULT_RETRY_POLICY, type RetryEnv, type RetryPolicy, scaledPolicy } from "../llm/retrying";
import type { AiBinding } from "../llm/workers-ai";
import type { ModelConfig } from "../schemas/model-config";
import { limiterClient, type poolRegistry } from "./limiter-client";
import type { PartialLimits } from "./limiter-state";

export const secretReader = (env: Env) => (name: string) => (typeof env[name] === "string" ? (env[name] as string) : undefined);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A model's adapter with its calls drawn from the shared limiter (manual models make no calls).
 * `pools`: the invocation's lease pools (a queue batch passes one; a single request needs none).
 */
export function limitedAdapter(env: Env, model: ModelConfig, limits?: PartialLimits, pools?: ReturnType<typeof poolRegistry>): ModelPort {
  const secret = secretReader(env);
  // The AI binding is optional: absent locally (it only runs remotely), workers_ai models then fail as bad_request.
  const port = createModelPort(model, secret, {
    timeoutMs: modelTimeoutMs(env),
    ai: env.AI as AiBinding | undefined,
    // Checked at submit too; here again because a queued spec may predate a change of the var.
    keyOrigins: allowedKeyOrigins(env[KEY_ORIGINS_VAR]),
  });
  if (model.interface === "manual") return port;
  const name = requiredSecretName(model);
  const key = (name === null ? NO_KEY_PLACEHOLDER : secret(name)) ?? "";
  const client = pools ? pools(model, key, limits) : limiterClient(env.LIMITER, model, key, limits);
  return limitedPort(port, client, { sleep, now: Date.now });
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
