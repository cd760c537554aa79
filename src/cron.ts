/**
 * The worker's Cron Triggers (wrangler.toml `[triggers] crons`), told apart by the expression that
 * fired: every minute the scheduled runs (src/schedules/tick.ts; locally, first, the runs a restart
 * left, src/coordinator/volatile-queue.ts); hourly the retention sweep
 * (src/tenants/retention.ts).
 */
import { wakeActiveRuns } from "./coordinator/volatile-queue";
import type { Env } from "./env";
import { startScheduledRun } from "./http/scheduled-run";
import { scheduleTick } from "./schedules/tick";
import { sweepRetention } from "./tenants/retention";

export const SCHEDULES_CRON = "* * * * *";
export const RETENTION_CRON = "17 * * * *";

export async function onCron(controller: { cron: string; scheduledTime: number }, env: Env): Promise<void> {
  if (controller.cron === RETENTION_CRON) await sweepRetention(env, controller.scheduledTime);
  else {
    // Locally, the first tick after a restart resumes runs nobody is watching (volatile-queue.ts).
    await wakeActiveRuns(env);
    await scheduleTick(env, controller.scheduledTime, startScheduledRun);
  }
}
