/**
 * The D1 rows of live runs that GET /v1/runs/:id has read, kept per isolate. A client watching a
 * run polls it (the README's client every second, bench/throughput every 500 ms), and each poll
 * read the run and its children from D1: locally ~1 ms of workerd's CPU, more than the rest of the
 * poll's own work.
 *
 * Why serving the kept row is exact: the view takes a run's status, progress and finished_at from
 * its coordinator's snapshot, never from the row, and the row's other fields are written once, at
 * submit. What can change them needs the run finished first: a re-score (its child row) and a
 * delete both refuse a run whose row is queued or running, and the row says finished only after
 * the coordinator does. So the kept row serves only while the snapshot says the run is live; the
 * first snapshot that says otherwise drops it and the row is read again.
 */
import type { RunRecord, RunStatus } from "../storage/runs-repo";

export interface RunRow {
  run: RunRecord;
  /** The runs re-scored from it (none while it is live, but kept as read). */
  children: string[];
}

/** Rows kept at most (the oldest go first): bounded memory however many runs are watched. */
const MAX_ROWS = 500;

const rows = new Map<string, RunRow>();
const keyOf = (tenantId: string, runId: string) => `${tenantId}\u0000${runId}`;

export function isLive(status: RunStatus): boolean {
  return status === "queued" || status === "running";
}

/** The row kept for the tenant's run, if GET /v1/runs/:id last saw it live. */
export function keptRunRow(tenantId: string, runId: string): RunRow | undefined {
  return rows.get(keyOf(tenantId, runId));
}

export function keepRunRow(tenantId: string, row: RunRow): void {
  const key = keyOf(tenantId, row.run.run_id);
  rows.delete(key);
  rows.set(key, row);
  if (rows.size > MAX_ROWS) rows.delete(rows.keys().next().value!);
}

export function dropRunRow(tenantId: string, runId: string): void {
  rows.delete(keyOf(tenantId, runId));
}
