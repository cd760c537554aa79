/** D1 access to `results`: indexed columns for filtering plus the compact result JSON. */
import { multiRowInsert } from "./d1-batch";

export interface ResultRowRecord {
  result_id: string;
  tenant_id: string;
  run_id: string;
  question_id: string;
  answering_model: string;
  parsing_model: string;
  replicate: number;
  verdict: import("../pipeline/verdict").Verdict;
  verify_result: boolean | null;
  failure_category: string | null;
  /** Where the full result is in R2; '' when the row holds it whole (`trace_json` set). */
  r2_key: string;
  compact_json: string;
  /** The result's `template.trace_messages` (JSON) when the row holds it whole; null when R2 has it. */
  trace_json: string | null;
  created_at: string;
}

const COLUMNS = [
  "result_id",
  "tenant_id",
  "run_id",
  "question_id",
  "answering_model",
  "parsing_model",
  "replicate",
  "verdict",
  "verify_result",
  "failure_category",
  "r2_key",
  "compact_json",
  "trace_json",
  "created_at",
] as const;

/**
 * Upserts on the deterministic result_id: a redelivered job rewrites its row, never adds one.
 * `created_at` keeps the first write's time.
 */
export async function upsertResults(db: D1Database, rows: readonly ResultRowRecord[]): Promise<void> {
  if (rows.length === 0) return;
  await db.batch(resultUpsertStatements(db, rows));
}

/** upsertResults' statements, for a `batch()` of the caller's (the consumer adds the ledger's). */
export function resultUpsertStatements(db: D1Database, rows: readonly ResultRowRecord[]): D1PreparedStatement[] {
  const values = rows.map((r) => [
    r.result_id,
    r.tenant_id,
    r.run_id,
    r.question_id,
    r.answering_model,
    r.parsing_model,
    r.replicate,
    r.verdict,
    r.verify_result === null ? null : r.verify_result ? 1 : 0,
    r.failure_category,
    r.r2_key,
    r.compact_json,
    r.trace_json,
    r.created_at,
  ]);
  const conflict = `ON CONFLICT(result_id) DO UPDATE SET verdict = excluded.verdict,
    verify_result = excluded.verify_result, failure_category = excluded.failure_category,
    r2_key = excluded.r2_key, compact_json = excluded.compact_json, trace_json = excluded.trace_json`;
  return multiRowInsert(db, "results", COLUMNS, values, conflict);
}

/** Results of a run in result_id order; the cursor is the last result_id returned. */
export async function listResultJson(
  db: D1Database,
  tenantId: string,
  runId: string,
  limit: number,
  afterResultId: string | null,
): Promise<{ result_id: string; compact_json: string }[]> {
  const stmt = afterResultId
    ? db
        .prepare(
          "SELECT result_id, compact_json FROM results WHERE tenant_id = ? AND run_id = ? AND result_id > ? ORDER BY result_id LIMIT ?",
        )
        .bind(tenantId, runId, afterResultId, limit)
    : db
        .prepare("SELECT result_id, compact_json FROM results WHERE tenant_id = ? AND run_id = ? ORDER BY result_id LIMIT ?")
        .bind(tenantId, runId, limit);
  const { results } = await stmt.all<{ result_id: string; compact_json: string }>();
  return results;
}

/** Where a result's full form is: the row itself (compact_json + trace_json) or its R2 object. */
export interface StoredResultRow {
  r2_key: string;
  compact_json: string;
  trace_json: string | null;
}

export async function getStoredResult(db: D1Database, tenantId: string, runId: string, resultId: string): Promise<StoredResultRow | null> {
  return db
    .prepare("SELECT r2_key, compact_json, trace_json FROM results WHERE tenant_id = ? AND run_id = ? AND result_id = ?")
    .bind(tenantId, runId, resultId)
    .first<StoredResultRow>();
}
