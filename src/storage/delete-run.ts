/**
 * Deleting a finished run and everything it left: its R2 objects (spec, checkpoints, results with
 * their traces, workspaces), the response-cache entries it wrote, its D1 rows (results,
 * idempotency keys, the run) and its coordinator's storage. Used by DELETE /v1/runs/:id and the
 * retention sweep. The caller has checked the tenant; the run row names every key used here.
 *
 * The row is marked first (`deleting_at`) and deleted last, so a deletion that fails between the
 * two leaves a row that reads answer 410 run_deleting (src/http/runs.ts) and that a repeat, finding
 * it, finishes: each step removes what is still there, and the audit entry goes in the batch that
 * deletes the row, so it is written once. The usage ledger is not the run's: it stays.
 */
import type { Env } from "../env";
import { CACHE_REFS, r2Keys } from "./r2-keys";
import { deleteRunRows, markRunDeleting, type RunRecord } from "./runs-repo";

/** R2 deletes take at most 1,000 keys per call. */
const R2_DELETE_BATCH = 1000;

export interface RemovedOfRun {
  objects: number;
  cache_entries: number;
}

/**
 * `now`: the deletion's start (ISO), kept on the row while it goes on. `withRows`: statements that go
 * in the batch deleting the run's rows, after them (its audit entry, told what was removed).
 */
export async function deleteRun(
  env: Env,
  run: RunRecord,
  now: string,
  withRows: (removed: RemovedOfRun) => readonly D1PreparedStatement[] = () => [],
): Promise<RemovedOfRun> {
  if (!run.deleting_at) await markRunDeleting(env.DB, run.tenant_id, run.run_id, now);
  // Everything of a run sits under the prefix of its spec key (old runs: runs/{run}/; new: t/{tenant}/runs/{run}/).
  const prefix = run.spec_key.replace(/spec\.json$/, "");
  const cacheRefs = await listKeys(env.BLOBS, `${prefix}${CACHE_REFS}`);
  // Only runs since tenants record refs, so the tenant's cache prefix is the one they wrote to.
  const cachePrefix = r2Keys.cachePrefix(run.tenant_id);
  const cacheEntries = cacheRefs.map((k) => cachePrefix + k.slice(`${prefix}${CACHE_REFS}`.length));
  await deleteKeys(env.BLOBS, cacheEntries);
  const objects = await listKeys(env.BLOBS, prefix);
  await deleteKeys(env.BLOBS, objects);
  await env.RUNS.getByName(run.coordinator_name ?? run.run_id).purge();
  const removed = { objects: objects.length, cache_entries: cacheEntries.length };
  await deleteRunRows(env.DB, run.tenant_id, run.run_id, withRows(removed));
  return removed;
}

async function listKeys(bucket: R2Bucket, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys;
}

async function deleteKeys(bucket: R2Bucket, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += R2_DELETE_BATCH) await bucket.delete(keys.slice(i, i + R2_DELETE_BATCH));
}
