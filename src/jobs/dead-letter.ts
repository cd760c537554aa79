/**
 * The dead-letter queue's consumer: a job whose message exhausted its deliveries is marked dead in
 * its run's coordinator, so the run can finish (as `partial`).
 *
 * What the coordinator never recorded is not a result of the run. A dead job may have left a
 * result in D1 (and its usage in the tenant ledger, an R2 object for a large one) whose record the
 * coordinator refused or never heard of: the run's totals, its summary and its events do not count
 * it, so it is removed here and its tokens are not charged — the run, its results listing and the
 * tenant's usage then tell the same story. Counting it instead would need the coordinator to take
 * the very record it refused on every delivery. Results the coordinator did record stay.
 */
import type { Env } from "../env";
import { log } from "../log";
import { JobMessage } from "../schemas/queue";
import { DEFAULT_TENANT, r2Keys } from "../storage/r2-keys";
import { coordinatorOfJob } from "../coordinator/shards";
import { loadSpec } from "../storage/spec-store";
import { resolveJob } from "../submit/spec";
import { jobResultId } from "./save-step";
import { deleteResultRows } from "../storage/results-repo";
import { deleteLedgerRowsOf } from "../tenants/usage";
import { guardOn } from "../lib/guards";

export async function handleDeadLetter(msg: Message<unknown>, env: Env): Promise<void> {
  const parsed = JobMessage.safeParse(msg.body);
  try {
    if (parsed.success && guardOn("dead_letter_marks_dead")) {
      const mark = await env.RUNS.getByName(coordinatorOfJob(parsed.data)).markDead(parsed.data.job_id);
      if (mark.kind === "busy") {
        // A copy of the job is running under its lease: it may still record; ask again once the lease is out.
        log.info("job_dead_busy", { ...parsed.data, retry_in_seconds: mark.retry_in_seconds });
        msg.retry({ delaySeconds: mark.retry_in_seconds });
        return;
      }
      const removed = await dropUnrecorded(env, parsed.data, new Set(mark.recorded), new Set(mark.usage_keys));
      log.warn("job_dead", { ...parsed.data, recorded: mark.recorded.length, ...removed });
    }
    msg.ack();
  } catch (err) {
    log.warn("dead_letter_threw", { error: String(err) });
    msg.retry();
  }
}

/** Deletes the dead job's results the coordinator did not record: D1 rows, R2 objects, ledger rows. */
async function dropUnrecorded(env: Env, msg: JobMessage, recorded: ReadonlySet<string>, usageKeys: ReadonlySet<string>) {
  const spec = await loadSpec(env.BLOBS, msg);
  const job = spec ? resolveJob(spec, msg.job_id) : null;
  if (!spec || !job) return { results_removed: 0, ledger_rows_removed: 0 };
  const ids: string[] = [];
  for (const parsing of spec.parsing_models) {
    const id = await jobResultId(spec, job, parsing);
    if (!recorded.has(id)) ids.push(id);
  }
  const run = { tenant_id: spec.tenant_id ?? DEFAULT_TENANT, run_id: spec.run_id };
  const rows = await deleteResultRows(env.DB, run, ids);
  // R2 is written before D1: an object may be there without its row.
  const objects = new Set([...rows.r2_keys, ...ids.map((id) => r2Keys.result(spec, id))]);
  if (objects.size > 0) await env.BLOBS.delete([...objects]);
  // The answer's row is keyed by the job; it stays if a recorded result carried it.
  const ledger = await deleteLedgerRowsOf(env.DB, run, [...ids, job.job_id], usageKeys);
  return { results_removed: rows.deleted, ledger_rows_removed: ledger };
}
