/**
 * One scheduled run (src/schedules/README.md), started by the cron tick through submitRun exactly
 * as POST /v1/runs starts one: the same validation, preset, plan, quotas and writes. There is no
 * caller to answer, so whatever would have been a 4xx or a 429 skips the run, its message kept on
 * the schedule's run row. The run is audited as submitted by `schedule:<id>`.
 */
import type { Env } from "../env";
import { scheduledRunBody } from "../schedules/run-body";
import type { ScheduleRecord } from "../schedules/schedules-repo";
import { getTenant } from "../tenants/tenants-repo";
import { storedOrigin } from "../webhooks/links";
import { ApiFailure } from "./errors";
import { type SubmitHost, submitRun } from "./submit-run";

/** Longest skip reason kept on the row. */
const REASON_CHARS = 500;

export async function startScheduledRun(env: Env, s: ScheduleRecord, minute: string): Promise<{ run_id: string } | { error: string }> {
  const tenant = await getTenant(env.DB, s.tenant_id);
  if (!tenant || tenant.disabled) return { error: "the tenant is disabled" };
  const host: SubmitHost = {
    env,
    origin: storedOrigin(env, s.api_origin),
    refuseOverQuota: (_state, _retryAfterS, message) => {
      throw new ApiFailure({ code: "quota_exceeded", message });
    },
  };
  try {
    const outcome = await submitRun(host, {
      tenant,
      actor: `schedule:${s.schedule_id}`,
      raw: scheduledRunBody(s, { run_name: `${s.name} ${minute}` }),
      idempotency: null,
    });
    if (outcome.kind === "estimate") return { error: "a scheduled run is never a dry run" };
    return { run_id: outcome.run_id };
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
    // The message names the first field; the rest follow it.
    const more = ("issues" in err.error ? (err.error.issues ?? []) : []).slice(1).map((i) => `${i.path}: ${i.message}`);
    return { error: [`${err.error.code}: ${err.error.message}`, ...more].join("; ").slice(0, REASON_CHARS) };
  }
}
