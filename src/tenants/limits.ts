/**
 * Per-tenant quotas: documented defaults, which the operator overrides per tenant
 * (`PATCH /v1/admin/tenants/:id {limits}`); the row stores only the overrides.
 */
import type { LimitOverrides } from "../schemas/tenants";

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
