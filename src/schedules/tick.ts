/**
 * The scheduled-runs side of the Cron Trigger (`* * * * *`), once a minute (edge):
 *   1. every enabled schedule whose cron matches this UTC minute takes the minute's slot
 *      (`schedule_runs` primary key: at most one run per schedule per minute, however often the
 *      trigger fires) and starts its run (start.ts), recording the run id or why it was skipped;
 *   2. every scheduled run that has ended and is not compared yet is compared with the schedule's
 *      previous run (src/compare/); a model pair whose pass rate dropped with p < alpha is a
 *      regression and sends `run.regression` to the tenant's webhook endpoints that take it
 *      (event id `msg_regression_<run_id>`, so a comparison repeated after a crash sends nothing twice).
 * A minute whose trigger did not fire is not made up later (as cron). Runs start through `start`
 * (src/http/scheduled-run.ts, handed in by src/cron.ts): submitRun lives in http/, which imports
 * this folder for its routes.
 */
import { ALPHA, isRegression } from "../compare/compare-runs";
import { compareStoredRuns } from "../compare/compare-stored";
import type { Env } from "../env";
import { cronMatches, minuteOf, parseCron } from "../lib/cron";
import { log } from "../log";
import { deliverEvents, receives } from "../webhooks/emit";
import { listEndpoints } from "../webhooks/endpoints-repo";
import { apiLink, storedOrigin } from "../webhooks/links";
import {
  claimMinute,
  enabledSchedules,
  getSchedule,
  previousRun,
  recordComparison,
  recordStart,
  type ScheduleRecord,
  uncompared,
} from "./schedules-repo";

/** Starts one schedule's run for `minute`, or says why it was skipped (quotas, a deleted benchmark or preset…). */
export type StartScheduledRun = (env: Env, s: ScheduleRecord, minute: string) => Promise<{ run_id: string } | { error: string }>;

/** Ended runs compared per tick (each reads two runs' rows); the next tick continues. */
export const COMPARISONS_PER_TICK = 10;
const ACTIVE = new Set(["queued", "running"]);
/** A scheduled run names no endpoints: tenant-wide (all_runs) endpoints receive its regression. */
const NONE_NAMED: ReadonlySet<string> = new Set();

export async function scheduleTick(
  env: Env,
  scheduledTime: number,
  start: StartScheduledRun,
): Promise<{ started: string[]; compared: string[]; regressions: string[] }> {
  const minute = minuteOf(scheduledTime);
  const at = new Date(scheduledTime).toISOString();
  const started: string[] = [];
  for (const s of await enabledSchedules(env.DB)) {
    const cron = parseCron(s.cron);
    if (!cron.ok || !cronMatches(cron.cron, scheduledTime)) continue;
    if (!(await claimMinute(env.DB, s.tenant_id, s.schedule_id, minute, at))) continue;
    let outcome: { run_id: string } | { error: string };
    try {
      outcome = await start(env, s, minute);
    } catch (err) {
      outcome = { error: `the run could not be started: ${String(err).slice(0, 300)}` };
    }
    await recordStart(env.DB, s.tenant_id, s.schedule_id, minute, outcome);
    if ("run_id" in outcome) started.push(outcome.run_id);
    else log.warn("schedule_skipped", { tenant_id: s.tenant_id, schedule_id: s.schedule_id, minute, reason: outcome.error });
  }

  const compared: string[] = [];
  const regressions: string[] = [];
  for (const r of await uncompared(env.DB, COMPARISONS_PER_TICK)) {
    if (ACTIVE.has(r.status) || !r.run_id) continue;
    const previous = await previousRun(env.DB, r.tenant_id, r.schedule_id, r.minute);
    const pairs = previous
      ? (
          await compareStoredRuns(env.DB, { tenant_id: r.tenant_id, run_id: previous }, { tenant_id: r.tenant_id, run_id: r.run_id })
        ).modelPairs()
      : [];
    const regression = isRegression(pairs);
    if (regression && previous) {
      const receivers = (await listEndpoints(env.DB, r.tenant_id)).filter((e) => receives(e, "run.regression", NONE_NAMED));
      const schedule = await getSchedule(env.DB, r.tenant_id, r.schedule_id);
      const payload = JSON.stringify({
        type: "run.regression",
        timestamp: at,
        data: {
          schedule_id: r.schedule_id,
          schedule_name: schedule?.name ?? null,
          run_id: r.run_id,
          previous_run_id: previous,
          alpha: ALPHA,
          regressed_pairs: pairs.filter((p) => p.significant && p.delta !== null && p.delta < 0),
          links: regressionLinks(storedOrigin(env, schedule?.api_origin), previous, r.run_id),
        },
      });
      const event = {
        tenant_id: r.tenant_id,
        event_id: `msg_regression_${r.run_id}`,
        run_id: r.run_id,
        type: "run.regression" as const,
        payload,
        created_at: at,
      };
      await deliverEvents(env, [event], receivers);
      regressions.push(r.run_id);
    }
    await recordComparison(env.DB, r, { compared_with: previous, regression, comparison: pairs, at });
    compared.push(r.run_id);
  }
  return { started, compared, regressions };
}

/** A regression's links: both runs, their comparison, and the dashboard's view of it. */
function regressionLinks(origin: string | null, previous: string, runId: string) {
  return {
    run: apiLink(origin, `/v1/runs/${runId}`),
    previous_run: apiLink(origin, `/v1/runs/${previous}`),
    compare: apiLink(origin, `/v1/runs/compare?a=${previous}&b=${runId}`),
    dashboard: apiLink(origin, `/dashboard/runs/${runId}/compare?a=${previous}`),
  };
}
