/**
 * Karenina's RetryPolicy (karenina utils/retry_policy.py:197): per error class, `max_attempts`
 * (retries, not calls), `backoff_min` / `backoff_max` (seconds) and `backoff_multiplier`. A class
 * that is given takes CategoryRetryConfig's defaults for what it leaves out (0 retries, 1 s, 10 s,
 * ×2, retry_policy.py:150-153); a class that is left out keeps Karenina's default for it.
 * Accepted on a model config and on the run's config (the run's applies to models without one, as
 * Karenina's model_stamping does). `timeout_escalation` is refused: edgeval's calls have one
 * timeout each.
 */
import { z } from "zod";

export const CategoryRetry = z.strictObject({
  max_attempts: z
    .number()
    .int({ error: "max_attempts must be an integer ≥ 0" })
    .min(0, { error: "max_attempts must be an integer ≥ 0" })
    .default(0),
  backoff_min: z.number().min(0, { error: "backoff_min must be ≥ 0 (seconds)" }).default(1),
  backoff_max: z.number().min(0, { error: "backoff_max must be ≥ 0 (seconds)" }).default(10),
  backoff_multiplier: z.number().min(1, { error: "backoff_multiplier must be ≥ 1" }).default(2),
});
export type CategoryRetry = z.output<typeof CategoryRetry>;

export const RetryPolicyConfig = z.strictObject({
  connection: CategoryRetry.optional(),
  timeout: CategoryRetry.optional(),
  rate_limit: CategoryRetry.optional(),
  server_error: CategoryRetry.optional(),
  timeout_escalation: z
    .null({ error: "timeout_escalation is not supported: edgeval gives every call the same request_timeout; leave it null or omit it" })
    .optional(),
});
export type RetryPolicyConfig = z.output<typeof RetryPolicyConfig>;

/** Longest request_timeout: a call holds a limiter lease that expires after 150 s (src/limiter), 10 s spare. */
export const MAX_REQUEST_TIMEOUT_S = 140;

/** `request_timeout`: seconds one model call may take (Karenina's ModelConfig.request_timeout). */
export const RequestTimeout = z
  .number({ error: "request_timeout must be a number of seconds" })
  .positive({ error: "request_timeout must be > 0 (seconds)" })
  .max(MAX_REQUEST_TIMEOUT_S, {
    error: `request_timeout must be ≤ ${MAX_REQUEST_TIMEOUT_S} s: each call holds a rate-limiter lease that expires after 150 s`,
  });
