/**
 * POST /v1/runs/:id/cancel: stops a run (src/coordinator/cancel.ts). A first cancel is audited; a
 * repeat answers the same without a second effect; a run that ended before is a 409 naming how.
 */
import type { Context } from "hono";
import type { AppEnv } from "./auth";
import type { RunRecord } from "../storage/runs-repo";
import { actorOf, auditStatement } from "../tenants/audit";
import { ApiFailure } from "./errors";

export async function cancelRun(c: Context<AppEnv>, run: RunRecord): Promise<void> {
  const outcome = await c.env.RUNS.getByName(run.coordinator_name ?? run.run_id).cancel();
  if (outcome.kind === "unknown") throw new ApiFailure({ code: "internal", message: "run state is missing; contact the operator" });
  if (outcome.kind === "finished") {
    throw new ApiFailure({
      code: "run_finished",
      message: `run ${run.run_id} already ended ${outcome.status}; only a queued or running run can be cancelled`,
      status: outcome.status,
    });
  }
  if (outcome.first) {
    const principal = c.get("principal");
    await auditStatement(c.env.DB, {
      tenant_id: run.tenant_id,
      actor: actorOf(principal),
      action: "run.cancelled",
      target: run.run_id,
      detail: { cancelled_at: outcome.cancelled_at },
    }).run();
  }
}
