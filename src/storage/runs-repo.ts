/**
 * D1 access to `runs` and `idempotency_keys`; rows are mapped to domain records here only. Every
 * query names the tenant, so another tenant's run is not found.
 */
import { z } from "zod";
import { RescoreCaveats } from "../schemas/rescore-caveats";
import { RunStatusName } from "../schemas/run-views";

// The status names are a wire shape (src/schemas/run-views.ts); the rows store them as they are.
export const RunStatus = RunStatusName;
export type RunStatus = z.infer<typeof RunStatusName>;

export interface RunRecord {
  run_id: string;
  tenant_id: string;
  /** Null on runs from before tenants: their coordinator is named by run_id. */
  coordinator_name: string | null;
  run_name: string | null;
  benchmark_name: string;
  status: RunStatus;
  total_results: number;
  total_jobs: number;
  spec_key: string;
  created_at: string;
  finished_at: string | null;
  /** A re-scored run's parent (src/rescore/); null or absent for every other run. */
  parent_run_id?: string | null;
  /** What a re-scored run does without (its 202's `left_out`, `graded_afresh`); null or absent for every other run. */
  rescore_caveats?: RescoreCaveats | null;
  /** The API origin the run was submitted through (its webhook events' links); null on runs from before. */
  api_origin?: string | null;
  /** When a DELETE began removing the run (markRunDeleting); null or absent for a run not being deleted. */
  deleting_at?: string | null;
}

const RunRow = z.object({
  run_id: z.string(),
  tenant_id: z.string(),
  coordinator_name: z.string().nullable(),
  run_name: z.string().nullable(),
  benchmark_name: z.string(),
  status: RunStatus,
  total_results: z.number(),
  total_jobs: z.number(),
  spec_key: z.string(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  parent_run_id: z.string().nullable().default(null),
  rescore_caveats_json: z.string().nullable().default(null),
  deleting_at: z.string().nullable().default(null),
});

/** A row as the domain record: the caveats' JSON parsed (migrations/0024_rescore_caveats.sql). */
function runRecord(row: unknown): RunRecord {
  const { rescore_caveats_json: caveats, ...run } = RunRow.parse(row);
  return { ...run, rescore_caveats: caveats === null ? null : RescoreCaveats.parse(JSON.parse(caveats)) };
}

export function insertRun(db: D1Database, run: RunRecord): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO runs (run_id, tenant_id, coordinator_name, run_name, benchmark_name, status, total_results, total_jobs, spec_key, created_at, finished_at, parent_run_id, rescore_caveats_json, api_origin)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      run.run_id,
      run.tenant_id,
      run.coordinator_name,
      run.run_name,
      run.benchmark_name,
      run.status,
      run.total_results,
      run.total_jobs,
      run.spec_key,
      run.created_at,
      run.finished_at,
      run.parent_run_id ?? null,
      run.rescore_caveats ? JSON.stringify(run.rescore_caveats) : null,
      run.api_origin ?? null,
    );
}

/**
 * The run and the runs re-scored from it (oldest first) in one D1 round trip: GET /v1/runs/:id
 * needs both, and a status poll read them in two. The children come as [created_at, run_id]
 * pairs and are sorted here, so their order does not rest on how SQLite feeds an aggregate.
 */
export async function getRunWithChildren(
  db: D1Database,
  tenantId: string,
  runId: string,
): Promise<{ run: RunRecord; children: string[] } | null> {
  const row = await db
    .prepare(
      `SELECT r.*, (SELECT json_group_array(json_array(c.created_at, c.run_id)) FROM runs c
         WHERE c.tenant_id = r.tenant_id AND c.parent_run_id = r.run_id) AS children_json
       FROM runs r WHERE r.tenant_id = ? AND r.run_id = ?`,
    )
    .bind(tenantId, runId)
    .first<Record<string, unknown> & { children_json: string }>();
  if (!row) return null;
  const pairs = JSON.parse(row.children_json) as [string, string][];
  pairs.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return { run: runRecord(row), children: pairs.map(([, id]) => id) };
}

export async function getRun(db: D1Database, tenantId: string, runId: string): Promise<RunRecord | null> {
  const row = await db.prepare("SELECT * FROM runs WHERE tenant_id = ? AND run_id = ?").bind(tenantId, runId).first();
  return row ? runRecord(row) : null;
}

/** Newest first; the cursor is the last row's `created_at|run_id`. */
/** Which runs a list keeps: any of `statuses` (all when absent), of `benchmark_name` when given. */
export interface RunListFilter {
  statuses?: readonly RunStatus[];
  benchmark_name?: string;
}

export async function listRuns(
  db: D1Database,
  tenantId: string,
  limit: number,
  cursor: { created_at: string; run_id: string } | null,
  filter: RunListFilter = {},
): Promise<RunRecord[]> {
  const where = ["tenant_id = ?"];
  const binds: unknown[] = [tenantId];
  if (filter.statuses?.length) {
    where.push(`status IN (${filter.statuses.map(() => "?").join(", ")})`);
    binds.push(...filter.statuses);
  }
  if (filter.benchmark_name !== undefined) {
    where.push("benchmark_name = ?");
    binds.push(filter.benchmark_name);
  }
  if (cursor) {
    where.push("(created_at, run_id) < (?, ?)");
    binds.push(cursor.created_at, cursor.run_id);
  }
  const { results } = await db
    .prepare(`SELECT * FROM runs WHERE ${where.join(" AND ")} ORDER BY created_at DESC, run_id DESC LIMIT ?`)
    .bind(...binds, limit)
    .all();
  return results.map((r) => runRecord(r));
}

export async function setRunStatus(
  db: D1Database,
  tenantId: string,
  runId: string,
  status: RunStatus,
  finishedAt: string | null,
): Promise<void> {
  await db
    .prepare("UPDATE runs SET status = ?, finished_at = COALESCE(?, finished_at) WHERE tenant_id = ? AND run_id = ?")
    .bind(status, finishedAt, tenantId, runId)
    .run();
}

export interface IdempotencyRecord {
  key: string;
  body_hash: string;
  run_id: string;
}

/** The key as stored, with when its holder took it. */
export interface HeldIdempotencyKey extends IdempotencyRecord {
  created_at: string;
}

/**
 * Reserves `key` for `run_id`. Returns the record that holds the key afterwards: ours if the
 * key was free, the earlier one otherwise (same body → same run; other body → the caller's 409).
 */
export async function reserveIdempotencyKey(
  db: D1Database,
  tenantId: string,
  rec: IdempotencyRecord,
  now: string,
): Promise<HeldIdempotencyKey> {
  await db
    .prepare(
      "INSERT INTO idempotency_keys (tenant_id, key, body_hash, run_id, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(tenant_id, key) DO NOTHING",
    )
    .bind(tenantId, rec.key, rec.body_hash, rec.run_id, now)
    .run();
  const row = await db
    .prepare("SELECT key, body_hash, run_id, created_at FROM idempotency_keys WHERE tenant_id = ? AND key = ?")
    .bind(tenantId, rec.key)
    .first<HeldIdempotencyKey>();
  if (!row) throw new Error("idempotency key vanished right after insert");
  return row;
}

/**
 * Moves a key from a holder that never wrote its run to `runId`, only if that holder still has it
 * (two repeats taking over at once: one wins). True if this call took it.
 */
export async function takeOverIdempotencyKey(
  db: D1Database,
  tenantId: string,
  held: HeldIdempotencyKey,
  runId: string,
  now: string,
): Promise<boolean> {
  const res = await db
    .prepare("UPDATE idempotency_keys SET run_id = ?, created_at = ? WHERE tenant_id = ? AND key = ? AND run_id = ?")
    .bind(runId, now, tenantId, held.key, held.run_id)
    .run();
  return res.meta.changes > 0;
}

export async function releaseIdempotencyKey(db: D1Database, tenantId: string, key: string, runId: string): Promise<void> {
  await db.prepare("DELETE FROM idempotency_keys WHERE tenant_id = ? AND key = ? AND run_id = ?").bind(tenantId, key, runId).run();
}

/**
 * Marks the run as being deleted, before anything of it is removed: a deletion that stops half-way
 * leaves a row every read answers with 410 run_deleting rather than with state that is gone. A
 * repeat keeps the first mark.
 */
export async function markRunDeleting(db: D1Database, tenantId: string, runId: string, now: string): Promise<void> {
  await db
    .prepare("UPDATE runs SET deleting_at = COALESCE(deleting_at, ?) WHERE tenant_id = ? AND run_id = ?")
    .bind(now, tenantId, runId)
    .run();
}

/** A run's D1 rows, in one batch: its results, its idempotency keys, the run. */
/** `withRows` go in the same batch, right after the run's row is deleted (`changes()` is that delete's). */
export async function deleteRunRows(
  db: D1Database,
  tenantId: string,
  runId: string,
  withRows: readonly D1PreparedStatement[] = [],
): Promise<void> {
  // The run's webhook events hold its name and pair summaries (src/webhooks): they go with it,
  // with their deliveries and attempts (a dispatcher still pending finds its delivery gone and stops).
  const events = "SELECT event_id FROM webhook_events WHERE tenant_id = ? AND run_id = ?";
  const deliveries = `SELECT delivery_id FROM webhook_deliveries WHERE tenant_id = ? AND event_id IN (${events})`;
  await db.batch([
    db
      .prepare(`DELETE FROM webhook_attempts WHERE tenant_id = ? AND delivery_id IN (${deliveries})`)
      .bind(tenantId, tenantId, tenantId, runId),
    db.prepare(`DELETE FROM webhook_deliveries WHERE tenant_id = ? AND event_id IN (${events})`).bind(tenantId, tenantId, runId),
    db.prepare("DELETE FROM webhook_events WHERE tenant_id = ? AND run_id = ?").bind(tenantId, runId),
    db.prepare("DELETE FROM results WHERE tenant_id = ? AND run_id = ?").bind(tenantId, runId),
    db.prepare("DELETE FROM idempotency_keys WHERE tenant_id = ? AND run_id = ?").bind(tenantId, runId),
    // Their objects sit under the run's prefix and go with the run's other objects.
    db.prepare("DELETE FROM exports WHERE tenant_id = ? AND run_id = ?").bind(tenantId, runId),
    db.prepare("DELETE FROM runs WHERE tenant_id = ? AND run_id = ?").bind(tenantId, runId),
    ...withRows,
  ]);
}

/**
 * Finished runs of a tenant created before `before`, oldest first (the retention sweep). Finished:
 * `finished_at` set, not only an ended status: a cancelled run's started calls record their results
 * until then, and deleted before that, they landed behind the run.
 */
export async function expiredRuns(db: D1Database, tenantId: string, before: string, limit: number): Promise<RunRecord[]> {
  const { results } = await db
    .prepare(
      "SELECT * FROM runs WHERE tenant_id = ? AND created_at < ? AND status NOT IN ('queued', 'running') AND finished_at IS NOT NULL ORDER BY created_at LIMIT ?",
    )
    .bind(tenantId, before, limit)
    .all();
  return results.map((r) => runRecord(r));
}

/** Runs of the tenant still queued or running (the concurrent-runs quota). */
export async function countActiveRuns(db: D1Database, tenantId: string): Promise<number> {
  const row = await db
    .prepare("SELECT COUNT(*) AS n FROM runs WHERE tenant_id = ? AND status IN ('queued', 'running')")
    .bind(tenantId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/**
 * Runs still queued or running, every tenant's, oldest first (after `after`), with their
 * coordinators' names: what a restarted local runtime wakes (src/coordinator/volatile-queue.ts `wakeActiveRuns`).
 */
export async function activeRunCoordinators(
  db: D1Database,
  limit: number,
  after: { created_at: string; run_id: string } | null = null,
): Promise<{ created_at: string; run_id: string; coordinator_name: string }[]> {
  const { results } = await db
    .prepare(
      `SELECT created_at, run_id, coordinator_name FROM runs WHERE status IN ('queued', 'running') AND (? IS NULL OR (created_at, run_id) > (?, ?))
       ORDER BY created_at, run_id LIMIT ?`,
    )
    .bind(after?.created_at ?? null, after?.created_at ?? null, after?.run_id ?? null, limit)
    .all<{ created_at: string; run_id: string; coordinator_name: string | null }>();
  return results.map((r) => ({ created_at: r.created_at, run_id: r.run_id, coordinator_name: r.coordinator_name ?? r.run_id }));
}
