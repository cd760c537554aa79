/**
 * A tenant's quotas on submitting a run (src/tenants/limits.ts): the monthly spend quota caps the
 * run's budget at what is left of the month and refuses it once spent; the concurrent-runs quota
 * refuses it while that many runs are queued or running. Refusals are 429 quota_exceeded with
 * Retry-After and the quota's RateLimit policy (src/http/request-rate.ts).
 */
import type { CreateRunBody } from "../schemas/api";
import { countActiveRuns } from "../storage/runs-repo";
import type { TenantLimits } from "../tenants/limits";
import { monthOf, monthSpend, secondsToNextMonth } from "../tenants/usage";
import type { SubmitHost } from "./submit-run";

/** A run takes seconds to minutes; a client refused for concurrency retries after this. */
const CONCURRENT_RUNS_RETRY_S = 30;

export interface SpendAllowance {
  month: string;
  quota: number;
  left: number;
}

/** What is left of the tenant's monthly spend quota (null: no quota). */
export async function spendAllowance(db: D1Database, tenantId: string, limits: TenantLimits): Promise<SpendAllowance | null> {
  if (limits.monthly_spend_usd === null) return null;
  const month = monthOf(Date.now());
  const spent = await monthSpend(db, tenantId, month);
  return { month, quota: limits.monthly_spend_usd, left: limits.monthly_spend_usd - spent };
}

/**
 * Under a spend quota every run is capped at what is left of it, as its budget_usd: so only priced
 * models may run (as with any budget), and a running run ends budget_exceeded when it reaches it.
 */
export function withinAllowance(body: CreateRunBody, allowance: SpendAllowance | null): CreateRunBody {
  if (!allowance || allowance.left <= 0) return body;
  return { ...body, budget_usd: Math.min(body.budget_usd ?? Infinity, allowance.left) };
}

/** Refuses (over HTTP: the 429) when the month's spend is used up or the tenant runs its limit of runs already. */
export async function admitRun(host: SubmitHost, tenantId: string, limits: TenantLimits, allowance: SpendAllowance | null): Promise<void> {
  if (allowance && allowance.left <= 0) {
    const untilNextMonth = secondsToNextMonth(Date.now());
    host.refuseOverQuota(
      { policy: "monthly_spend_usd", quota: allowance.quota, remaining: 0, resetS: untilNextMonth },
      untilNextMonth,
      `this tenant has spent its ${allowance.quota} USD for ${allowance.month}; runs start again next month (or the operator raises limits.monthly_spend_usd)`,
    );
  }
  const active = await countActiveRuns(host.env.DB, tenantId);
  if (active >= limits.concurrent_runs) {
    host.refuseOverQuota(
      { policy: "concurrent_runs", quota: limits.concurrent_runs, remaining: 0 },
      CONCURRENT_RUNS_RETRY_S,
      `this tenant has ${active} runs queued or running, its limit; submit again when one finishes`,
    );
  }
}
