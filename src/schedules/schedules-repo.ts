/** D1 `schedules` and `schedule_runs` (migrations/0015_schedules.sql), parsed on read. */
import { z } from "zod";
import { newestFirstPage, type PageAfter } from "../storage/newest-first";

const ScheduleRow = z.object({
  tenant_id: z.string(),
  schedule_id: z.string(),
  name: z.string(),
  cron: z.string(),
  benchmark_id: z.string(),
  preset_id: z.string().nullable(),
  config_json: z.string(),
  enabled: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  /** The API origin the schedule was created or last changed through: its runs' webhook links (src/webhooks/links.ts). */
  api_origin: z.string().nullable().default(null),
});
export type ScheduleRecord = Omit<z.output<typeof ScheduleRow>, "config_json" | "enabled"> & {
  config: Record<string, unknown>;
  enabled: boolean;
};

const toRecord = (raw: unknown): ScheduleRecord => {
  const { config_json, enabled, ...row } = ScheduleRow.parse(raw);
  return { ...row, enabled: enabled === 1, config: z.record(z.string(), z.unknown()).parse(JSON.parse(config_json)) };
};

/** A statement, for the batch that writes the schedule with its audit entry. */
export function insertSchedule(db: D1Database, s: ScheduleRecord): D1PreparedStatement {
  return db
    .prepare(
      "INSERT INTO schedules (tenant_id, schedule_id, name, cron, benchmark_id, preset_id, config_json, enabled, created_at, updated_at, api_origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(
      s.tenant_id,
      s.schedule_id,
      s.name,
      s.cron,
      s.benchmark_id,
      s.preset_id,
      JSON.stringify(s.config),
      s.enabled ? 1 : 0,
      s.created_at,
      s.updated_at,
      s.api_origin,
    );
}

/**
 * A statement, for the batch that changes the schedule with its audit entry (auditIfChanged right
 * after it). It changes the row only if it is still as read (`readUpdatedAt`, src/lib/updated-at.ts):
 * a PATCH that read before another wrote would write back the other's fields as read (re-enable a
 * schedule just disabled). No row changed: read again and redo.
 */
export function updateSchedule(db: D1Database, s: ScheduleRecord, readUpdatedAt: string): D1PreparedStatement {
  return db
    .prepare(
      "UPDATE schedules SET name = ?, cron = ?, preset_id = ?, config_json = ?, enabled = ?, updated_at = ?, api_origin = ? WHERE tenant_id = ? AND schedule_id = ? AND updated_at = ?",
    )
    .bind(
      s.name,
      s.cron,
      s.preset_id,
      JSON.stringify(s.config),
      s.enabled ? 1 : 0,
      s.updated_at,
      s.api_origin,
      s.tenant_id,
      s.schedule_id,
      readUpdatedAt,
    );
}

export async function getSchedule(db: D1Database, tenantId: string, scheduleId: string): Promise<ScheduleRecord | null> {
  const raw = await db.prepare("SELECT * FROM schedules WHERE tenant_id = ? AND schedule_id = ?").bind(tenantId, scheduleId).first();
  return raw ? toRecord(raw) : null;
}

/** A page of the tenant's schedules, newest first (src/storage/newest-first.ts). */
export async function listSchedules(db: D1Database, tenantId: string, limit: number, after: PageAfter): Promise<ScheduleRecord[]> {
  return (
    await newestFirstPage<Record<string, unknown>>(
      db,
      { table: "schedules", idColumn: "schedule_id", owner: { tenant_id: tenantId } },
      limit,
      after,
    )
  ).map(toRecord);
}

/** Every tenant's enabled schedules (the cron handler). */
export async function enabledSchedules(db: D1Database): Promise<ScheduleRecord[]> {
  const { results } = await db.prepare("SELECT * FROM schedules WHERE enabled = 1 ORDER BY tenant_id, schedule_id").all();
  return results.map(toRecord);
}

/** `withRows` go in the batch right after the schedule's delete (its audit entry, by auditIfChanged); true if it was deleted. */
export async function deleteSchedule(
  db: D1Database,
  tenantId: string,
  scheduleId: string,
  withRows: readonly D1PreparedStatement[] = [],
): Promise<boolean> {
  const [, deleted] = await db.batch([
    db.prepare("DELETE FROM schedule_runs WHERE tenant_id = ? AND schedule_id = ?").bind(tenantId, scheduleId),
    db.prepare("DELETE FROM schedules WHERE tenant_id = ? AND schedule_id = ?").bind(tenantId, scheduleId),
    ...withRows,
  ]);
  return deleted!.meta.changes > 0;
}

export interface ScheduleRunRecord {
  tenant_id: string;
  schedule_id: string;
  minute: string;
  run_id: string | null;
  error: string | null;
  compared_with: string | null;
  compared_at: string | null;
  regression: number | null;
  comparison_json: string | null;
  created_at: string;
}

/** Takes the schedule's slot for this minute; false when it was already taken (one run per schedule per minute). */
export async function claimMinute(db: D1Database, tenantId: string, scheduleId: string, minute: string, at: string): Promise<boolean> {
  const r = await db
    .prepare("INSERT INTO schedule_runs (tenant_id, schedule_id, minute, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")
    .bind(tenantId, scheduleId, minute, at)
    .run();
  return r.meta.changes === 1;
}

export async function recordStart(
  db: D1Database,
  tenantId: string,
  scheduleId: string,
  minute: string,
  outcome: { run_id: string } | { error: string },
): Promise<void> {
  await db
    .prepare("UPDATE schedule_runs SET run_id = ?, error = ? WHERE tenant_id = ? AND schedule_id = ? AND minute = ?")
    .bind("run_id" in outcome ? outcome.run_id : null, "error" in outcome ? outcome.error : null, tenantId, scheduleId, minute)
    .run();
}

/**
 * Started scheduled runs that have ended and are not compared yet, with their run's status (oldest
 * first). Runs still queued or running are left out here, not skipped by the caller: otherwise the
 * oldest `limit` running runs (of any tenant) would fill every tick and no ended run would be compared.
 */
export async function uncompared(db: D1Database, limit: number): Promise<(ScheduleRunRecord & { status: string })[]> {
  const { results } = await db
    .prepare(
      `SELECT s.*, r.status FROM schedule_runs s JOIN runs r ON r.tenant_id = s.tenant_id AND r.run_id = s.run_id
       WHERE s.compared_at IS NULL AND s.run_id IS NOT NULL AND r.status NOT IN ('queued', 'running') ORDER BY s.created_at LIMIT ?`,
    )
    .bind(limit)
    .all<ScheduleRunRecord & { status: string }>();
  return results;
}

/**
 * The schedule's latest run before `minute` that started and still exists, not being deleted (the one
 * a new run is compared with). A run deleted since (by DELETE, or the retention sweep of a tenant
 * keeping a few days) is passed over: compared with it, a run found no results and no regression.
 */
export async function previousRun(db: D1Database, tenantId: string, scheduleId: string, minute: string): Promise<string | null> {
  const row = await db
    .prepare(
      `SELECT s.run_id FROM schedule_runs s JOIN runs r ON r.tenant_id = s.tenant_id AND r.run_id = s.run_id
       WHERE s.tenant_id = ? AND s.schedule_id = ? AND s.minute < ? AND r.deleting_at IS NULL ORDER BY s.minute DESC LIMIT 1`,
    )
    .bind(tenantId, scheduleId, minute)
    .first<{ run_id: string }>();
  return row?.run_id ?? null;
}

export async function recordComparison(
  db: D1Database,
  r: { tenant_id: string; schedule_id: string; minute: string },
  c: { compared_with: string | null; regression: boolean; comparison: unknown; at: string },
): Promise<void> {
  await db
    .prepare(
      "UPDATE schedule_runs SET compared_with = ?, compared_at = ?, regression = ?, comparison_json = ? WHERE tenant_id = ? AND schedule_id = ? AND minute = ?",
    )
    .bind(c.compared_with, c.at, c.regression ? 1 : 0, JSON.stringify(c.comparison), r.tenant_id, r.schedule_id, r.minute)
    .run();
}

export async function listScheduleRuns(db: D1Database, tenantId: string, scheduleId: string, limit: number): Promise<ScheduleRunRecord[]> {
  const { results } = await db
    .prepare("SELECT * FROM schedule_runs WHERE tenant_id = ? AND schedule_id = ? ORDER BY minute DESC LIMIT ?")
    .bind(tenantId, scheduleId, limit)
    .all<ScheduleRunRecord>();
  return results;
}
