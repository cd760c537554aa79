/**
 * Per-tenant quotas: documented defaults, which the operator overrides per tenant
 * (`PATCH /v1/admin/tenants/:id {limits}`); the row stores only the overrides.
 */
import { LimitOverrides, type LimitOverridesPatch } from "../schemas/tenants";

export interface TenantLimits {
  requests_per_minute: number;
  concurrent_runs: number;
  jobs_per_run: number;
  monthly_spend_usd: number | null;
}

export const DEFAULT_LIMITS: Readonly<TenantLimits> = {
  requests_per_minute: 600,
  concurrent_runs: 10,
  jobs_per_run: 100_000,
  monthly_spend_usd: null,
};

export function effectiveLimits(overrides: LimitOverrides): TenantLimits {
  return {
    requests_per_minute: overrides.requests_per_minute ?? DEFAULT_LIMITS.requests_per_minute,
    concurrent_runs: overrides.concurrent_runs ?? DEFAULT_LIMITS.concurrent_runs,
    jobs_per_run: overrides.jobs_per_run ?? DEFAULT_LIMITS.jobs_per_run,
    monthly_spend_usd: overrides.monthly_spend_usd === undefined ? DEFAULT_LIMITS.monthly_spend_usd : overrides.monthly_spend_usd,
  };
}

/**
 * The overrides after a PATCH's `limits` (a JSON merge patch, RFC 7396): a key sent replaces its
 * override, null removes it, a key not sent stays; `limits: null` removes them all. Before 8 Dec the body replaced every override,
 * so raising one quota silently dropped the others back to their defaults.
 */
export function mergeLimitOverrides(current: LimitOverrides, patch: LimitOverridesPatch | null): LimitOverrides {
  // The whole member null: every override removed, as RFC 7396 removes a member set to null.
  if (patch === null) return {};
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete next[key];
    else next[key] = value;
  }
  // Every value came from the two parsed shapes; the parse states it rather than a cast.
  return LimitOverrides.parse(next);
}
