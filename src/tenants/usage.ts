/**
 * The per-tenant usage ledger: written as results are recorded (the queue consumer, batched),
 * read by GET /v1/usage and by the monthly spend quota at submit. Rows are keyed by run and the
 * coordinator's usage-row key and inserted only once, so redeliveries never count twice.
 */
import type { UsageRow } from "../coordinator/cost";
import { jsonRowsInsert } from "../storage/d1-batch";

export interface LedgerRow {
  tenant_id: string;
  run_id: string;
  row_key: string;
  month: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  cached: boolean;
}

const COLUMNS = ["tenant_id", "run_id", "row_key", "month", "model", "input_tokens", "output_tokens", "cost_usd", "cached"] as const;

/** UTC calendar month of a time, `YYYY-MM`. */
export const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

export function ledgerRows(
  tenantId: string,
  runId: string,
  rows: readonly UsageRow[],
  cachedKeys: ReadonlySet<string>,
  at: number,
): LedgerRow[] {
  return rows.map((r) => ({
    tenant_id: tenantId,
    run_id: runId,
    row_key: r.key,
    month: monthOf(at),
    model: r.model,
    input_tokens: r.input_tokens,
    output_tokens: r.output_tokens,
    cost_usd: r.cost_usd,
    cached: cachedKeys.has(r.key),
  }));
}

export async function insertLedgerRows(db: D1Database, rows: readonly LedgerRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.batch(ledgerInsertStatements(db, rows));
}

/** The insert-once statements of ledger rows, for a `batch()` of the caller's (the results' own, in the consumer). */
export function ledgerInsertStatements(db: D1Database, rows: readonly LedgerRow[]): D1PreparedStatement[] {
  const values = rows.map((r) => [
    r.tenant_id,
    r.run_id,
    r.row_key,
    r.month,
    r.model,
    r.input_tokens,
    r.output_tokens,
    r.cost_usd,
    r.cached ? 1 : 0,
  ]);
  return jsonRowsInsert(db, "usage_ledger", COLUMNS, values, "ON CONFLICT DO NOTHING");
}

export interface ModelUsage {
  model: string;
  calls: number;
  cached_calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  unpriced_calls: number;
}

export async function monthUsage(db: D1Database, tenantId: string, month: string): Promise<ModelUsage[]> {
  const { results } = await db
    .prepare(
      `SELECT model, SUM(cached = 0) AS calls, SUM(cached) AS cached_calls, SUM(input_tokens) AS input_tokens,
         SUM(output_tokens) AS output_tokens, COALESCE(SUM(cost_usd), 0) AS cost_usd,
         SUM(cost_usd IS NULL AND cached = 0) AS unpriced_calls
       FROM usage_ledger WHERE tenant_id = ? AND month = ? GROUP BY model ORDER BY model`,
    )
    .bind(tenantId, month)
    .all<ModelUsage>();
  return results;
}

export async function monthSpend(db: D1Database, tenantId: string, month: string): Promise<number> {
  const row = await db
    .prepare("SELECT COALESCE(SUM(cost_usd), 0) AS spent FROM usage_ledger WHERE tenant_id = ? AND month = ?")
    .bind(tenantId, month)
    .first<{ spent: number }>();
  return row?.spent ?? 0;
}

/** Seconds from `now` to the start of the next UTC month (Retry-After at the spend quota). */
export function secondsToNextMonth(now: number): number {
  const d = new Date(now);
  return Math.max(1, Math.ceil((Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - now) / 1000));
}

/**
 * Deletes a run's ledger rows whose key starts with one of `owners` and a "|" (a result id, or a
 * job id for its answer's row: cost.ts), except the keys in `keep`: the usage of a dead job's
 * results its run never recorded (src/jobs/dead-letter.ts). Returns how many rows went.
 */
export async function deleteLedgerRowsOf(
  db: D1Database,
  run: { tenant_id: string; run_id: string },
  owners: readonly string[],
  keep: ReadonlySet<string>,
): Promise<number> {
  const gone: string[] = [];
  for (const owner of owners) {
    const { results } = await db
      .prepare("SELECT row_key FROM usage_ledger WHERE tenant_id = ? AND run_id = ? AND substr(row_key, 1, ?) = ?")
      .bind(run.tenant_id, run.run_id, owner.length + 1, `${owner}|`)
      .all<{ row_key: string }>();
    gone.push(...results.map((r) => r.row_key).filter((k) => !keep.has(k)));
  }
  const remove = db.prepare("DELETE FROM usage_ledger WHERE tenant_id = ? AND run_id = ? AND row_key = ?");
  if (gone.length > 0) await db.batch(gone.map((k) => remove.bind(run.tenant_id, run.run_id, k)));
  return gone.length;
}
