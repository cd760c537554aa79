/**
 * Retries by error class, as a decorator around any `ModelPort`.
 *
 * Budgets are Karenina's (connection 3, timeout 3, rate_limit 5, server_error 2) and belong to a
 * job, not to a call: the `RetryLedger` is shared by every port of the job and persisted when the
 * job goes back to the queue, so a redelivery continues with what is left instead of starting
 * over.
 *
 * A short wait (backoff, or a provider retry-after of a few seconds) is slept in place. A longer
 * one is not worth holding a consumer for: the error is returned with `retryAfterMs` set to the
 * wait, and the job runner hands the job back to the queue with that delay. An exhausted class
 * returns the error marked `exhausted`, which becomes Karenina's `retry` failure group.
 *
 * Time and randomness are injected (no Date.now / Math.random here) so tests are exact.
 */
import type { RetryPolicyConfig } from "../schemas/retry-policy";
import { isTransientKind, TRANSIENT_KINDS, type LlmError, type LlmResult, type ModelPort, type TransientKind, wrapEveryCall } from "./port";

/** Every transient kind is a retry class with its own budget. */
export type RetryClass = TransientKind;
export const RETRY_CLASSES: readonly RetryClass[] = TRANSIENT_KINDS;

/** Karenina's per-class retry budgets. */
export const KARENINA_BUDGETS: Readonly<Record<RetryClass, number>> = {
  connection: 3,
  timeout: 3,
  rate_limit: 5,
  server_error: 2,
};

/** Karenina's backoff range per class: delay = min(min × 2^n, max), then jittered. */
export const KARENINA_DELAYS: Readonly<Record<RetryClass, { minMs: number; maxMs: number }>> = {
  connection: { minMs: 1_000, maxMs: 10_000 },
  timeout: { minMs: 5_000, maxMs: 30_000 },
  rate_limit: { minMs: 5_000, maxMs: 30_000 },
  server_error: { minMs: 2_000, maxMs: 15_000 },
};

export interface RetryPolicy {
  budgets: Readonly<Record<RetryClass, number>>;
  /** Backoff range per class; delay n = min(minMs × multiplier^n, maxMs), multiplier 2 unless set. */
  delays: Readonly<Record<RetryClass, { minMs: number; maxMs: number; multiplier?: number }>>;
  /** Waits up to this long happen in place; longer ones hand the job back to the queue. */
  maxInPlaceWaitMs: number;
  /** The factor `scaledPolicy` applied to the delays (so a model's own delays get it too). */
  scale?: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  budgets: KARENINA_BUDGETS,
  delays: KARENINA_DELAYS,
  maxInPlaceWaitMs: 5_000,
};

/** The policy with every backoff multiplied by `factor` (tests and benchmarks run faster clocks). */
export function scaledPolicy(policy: RetryPolicy, factor: number): RetryPolicy {
  const delays = Object.fromEntries(
    RETRY_CLASSES.map((c) => [c, { ...policy.delays[c], minMs: policy.delays[c].minMs * factor, maxMs: policy.delays[c].maxMs * factor }]),
  ) as RetryPolicy["delays"];
  return { ...policy, delays, scale: (policy.scale ?? 1) * factor };
}

/**
 * The policy with a Karenina `retry_policy` (a model's, else the run's) laid over it: each class it
 * names gets that budget (`max_attempts` retries), backoff range (seconds, times the policy's
 * scale) and multiplier; classes it leaves out keep the policy's.
 */
export function withRetryPolicyConfig(policy: RetryPolicy, config: RetryPolicyConfig | null | undefined): RetryPolicy {
  if (!config) return policy;
  const scale = policy.scale ?? 1;
  const budgets = { ...policy.budgets };
  const delays = { ...policy.delays };
  for (const c of RETRY_CLASSES) {
    const own = config[c];
    if (!own) continue;
    budgets[c] = own.max_attempts;
    delays[c] = { minMs: own.backoff_min * 1000 * scale, maxMs: own.backoff_max * 1000 * scale, multiplier: own.backoff_multiplier };
  }
  return { ...policy, budgets, delays };
}

export interface RetryEnv {
  sleep(ms: number): Promise<void>;
  /** Uniform in [0, 1). */
  random(): number;
}

/** Retries used so far by one job, per class. Mutated in place; persisted between deliveries. */
export type RetryLedger = Record<RetryClass, number>;

export const emptyLedger = (): RetryLedger => Object.fromEntries(RETRY_CLASSES.map((c) => [c, 0])) as RetryLedger;

export function retryClass(error: LlmError): RetryClass | null {
  return isTransientKind(error.kind) ? error.kind : null;
}

/** Exponential backoff for the n-th retry of a class, jittered into [50 %, 100 %). */
export function backoffMs(cls: RetryClass, retryIndex: number, policy: RetryPolicy, random: () => number): number {
  const { minMs, maxMs, multiplier = 2 } = policy.delays[cls];
  return Math.round(Math.min(maxMs, minMs * multiplier ** retryIndex) * (0.5 + 0.5 * random()));
}

export type RetryDecision =
  | { action: "retry_now"; waitMs: number }
  | { action: "hand_back"; waitMs: number }
  | { action: "give_up"; exhausted: boolean };

/**
 * What to do about a failed call. Consumes one retry of the error's class from the ledger when it
 * decides to retry (now or later). The provider's retry-after wins over a shorter backoff.
 */
export function decide(error: LlmError, ledger: RetryLedger, policy: RetryPolicy, random: () => number): RetryDecision {
  const cls = retryClass(error);
  if (cls === null) return { action: "give_up", exhausted: false };
  if (error.deferred) return { action: "hand_back", waitMs: error.retryAfterMs ?? policy.delays[cls].minMs };
  if (ledger[cls] >= policy.budgets[cls]) return { action: "give_up", exhausted: true };
  const waitMs = Math.max(backoffMs(cls, ledger[cls], policy, random), error.retryAfterMs ?? 0);
  ledger[cls] += 1;
  return waitMs > policy.maxInPlaceWaitMs ? { action: "hand_back", waitMs } : { action: "retry_now", waitMs };
}

/** Runs `call` until it succeeds, fails for good, or needs a wait too long to hold the consumer. */
export async function withRetry<T>(
  call: () => Promise<LlmResult<T>>,
  ledger: RetryLedger,
  policy: RetryPolicy,
  env: RetryEnv,
): Promise<LlmResult<T>> {
  for (;;) {
    const result = await call();
    if (result.ok) return result;
    const d = decide(result.error, ledger, policy, env.random);
    if (d.action === "give_up") {
      if (!d.exhausted) return result;
      const cls = retryClass(result.error)!;
      return {
        ok: false,
        error: {
          ...result.error,
          exhausted: true,
          message: `${result.error.message} (${cls} retries exhausted: ${policy.budgets[cls]})`,
        },
      };
    }
    if (d.action === "hand_back") return { ok: false, error: { ...result.error, retryAfterMs: d.waitMs } };
    await env.sleep(d.waitMs);
  }
}

/** The port with every operation retried by class against the job's shared ledger. */
export function retryingPort(inner: ModelPort, ledger: RetryLedger, policy: RetryPolicy, env: RetryEnv): ModelPort {
  return wrapEveryCall(inner, (call) => withRetry(call, ledger, policy, env));
}

/** Total retries in a ledger (for the `retries_used` caveat). */
export const retriesUsed = (ledger: RetryLedger): number => RETRY_CLASSES.reduce((n, c) => n + ledger[c], 0);
