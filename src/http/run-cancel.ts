/**
 * POST /v1/runs/:id/cancel: stops a run (src/coordinator/cancel.ts). A cancel is audited once (a
 * repeat writes the entry only if none was); a repeat answers the same without a second effect; a
 * run that ended before is a 409 naming how.
 */
import type { Context } from "hono";
import type { AppEnv } from "./auth";
import type { RunRecord } from "../storage/runs-repo";
import { actorOf, auditOnce } from "../tenants/audit";
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
  // Every cancelled answer, the repeats too: a first cancel whose entry failed is audited by its repeat, once.
  await auditOnce(
    c.env.DB,
    {
      tenant_id: run.tenant_id,
      actor: actorOf(c.get("principal")),
      action: "run.cancelled",
      target: run.run_id,
      detail: { cancelled_at: outcome.cancelled_at },
    },
    outcome.cancelled_at,
  ).run();
}
