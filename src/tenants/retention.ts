/**
 * The retention sweep (a cron trigger, wrangler.toml): for every tenant with `retention_days`,
 * finished runs created more than that many days ago are deleted with everything they left
 * (results, traces, cache entries, coordinator state: src/storage/delete-run.ts). D1's 10 GB is shared
 * by every tenant, so old results must be reclaimable. Each sweep deletes at most RUNS_PER_SWEEP
 * runs per tenant (a cron invocation's subrequests are bounded); the next sweep continues.
 */
import type { Env } from "../env";
import { log } from "../log";
import { deleteRun } from "../storage/delete-run";
import { expiredRuns } from "../storage/runs-repo";
import { auditIfChanged, OPERATOR } from "./audit";

export const RUNS_PER_SWEEP = 25;
const DAY_MS = 86_400_000;

/**
 * `failed`: runs whose deletion threw (logged, left marked as being deleted: reads answer 410 and the
 * next sweep carries on). One run that cannot be deleted stops neither the tenant's other runs nor the
 * tenants after it: before 8 Dec the first error ended the sweep, and the tenants after it kept
 * their data past their retention for as long as it recurred.
 */
export async function sweepRetention(env: Env, now: number): Promise<{ tenant_id: string; deleted: number; failed: number }[]> {
  const { results: tenants } = await env.DB.prepare("SELECT tenant_id, retention_days FROM tenants WHERE retention_days IS NOT NULL").all<{
    tenant_id: string;
    retention_days: number;
  }>();
  const out: { tenant_id: string; deleted: number; failed: number }[] = [];
  for (const t of tenants) {
    const before = new Date(now - t.retention_days * DAY_MS).toISOString();
    const runs = await expiredRuns(env.DB, t.tenant_id, before, RUNS_PER_SWEEP);
    let deleted = 0;
    for (const run of runs) {
      // The tenant's audit log says where the run went, in the batch that deletes its row: a run
      // that vanished by policy is told from one a key deleted, and is never gone unrecorded.
      const audit = auditIfChanged(env.DB, {
        tenant_id: t.tenant_id,
        actor: OPERATOR,
        action: "run.deleted",
        target: run.run_id,
        detail: { reason: "retention", retention_days: t.retention_days, created_at: run.created_at },
      });
      try {
        await deleteRun(env, run, new Date(now).toISOString(), () => [audit]);
        deleted += 1;
      } catch (err) {
        log.warn("retention_run_failed", { tenant_id: t.tenant_id, run_id: run.run_id, error: String(err) });
      }
    }
    if (runs.length)
      log.info("retention_sweep", { tenant_id: t.tenant_id, deleted_runs: deleted, failed_runs: runs.length - deleted, before });
    out.push({ tenant_id: t.tenant_id, deleted, failed: runs.length - deleted });
  }
  return out;
}
