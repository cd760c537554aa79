/** D1 access to `results`: indexed columns for filtering plus the compact result JSON. */
import { chunk, D1_MAX_BOUND_PARAMS, jsonRowsInsert } from "./d1-batch";

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
  /** A scenario turn's (src/scenarios); null for every other result. `scenario_path` is JSON. */
  scenario_id?: string | null;
  scenario_node?: string | null;
  scenario_turn?: number | null;
  scenario_path?: string | null;
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
  "scenario_id",
  "scenario_node",
  "scenario_turn",
  "scenario_path",
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
    r.scenario_id ?? null,
    r.scenario_node ?? null,
    r.scenario_turn ?? null,
    r.scenario_path ?? null,
  ]);
  const conflict = `ON CONFLICT(result_id) DO UPDATE SET verdict = excluded.verdict,
    verify_result = excluded.verify_result, failure_category = excluded.failure_category,
    r2_key = excluded.r2_key, compact_json = excluded.compact_json, trace_json = excluded.trace_json`;
  return jsonRowsInsert(db, "results", COLUMNS, values, conflict);
}

/** Which of a run's results a listing, summary or export reads; every field AND-ed, absent = any. */
export interface ResultFilter {
  answering_model?: string | undefined;
  parsing_model?: string | undefined;
  question_id?: string | undefined;
  verdict?: import("../pipeline/verdict").Verdict | undefined;
  /** The failure categories of the requested failure group (schemas/result.ts FAILURE_GROUP). */
  failure_categories?: readonly string[] | undefined;
}

/** `AND …` clauses and their binds for a filter (column names are fixed here, values are bound). */
function filterClauses(f: ResultFilter, table = ""): { sql: string; binds: unknown[] } {
  const parts: string[] = [];
  const binds: unknown[] = [];
  for (const col of ["answering_model", "parsing_model", "question_id", "verdict"] as const) {
    if (f[col] === undefined) continue;
    parts.push(` AND ${table}${col} = ?`);
    binds.push(f[col]);
  }
  if (f.failure_categories) {
    parts.push(` AND ${table}failure_category IN (${f.failure_categories.map(() => "?").join(", ")})`);
    binds.push(...f.failure_categories);
  }
  return { sql: parts.join(""), binds };
}

/**
 * A page of a run's rows in result_id order, after `afterResultId`; `columns` is a fixed SELECT
 * list from this module's callers, never user input.
 */
export async function pageResultRows<T>(
  db: D1Database,
  columns: string,
  run: { tenant_id: string; run_id: string },
  page: { limit: number; after: string | null },
  filter: ResultFilter = {},
): Promise<T[]> {
  const f = filterClauses(filter);
  const after = page.after === null ? "" : " AND result_id > ?";
  const { results } = await db
    .prepare(`SELECT ${columns} FROM results WHERE tenant_id = ? AND run_id = ?${after}${f.sql} ORDER BY result_id LIMIT ?`)
    .bind(run.tenant_id, run.run_id, ...(page.after === null ? [] : [page.after]), ...f.binds, page.limit)
    .all<T>();
  return results;
}

/** Results of a run in result_id order; the cursor is the last result_id returned. */
export function listResultJson(
  db: D1Database,
  tenantId: string,
  runId: string,
  limit: number,
  afterResultId: string | null,
  filter: ResultFilter = {},
): Promise<{ result_id: string; compact_json: string }[]> {
  return pageResultRows(db, "result_id, compact_json", { tenant_id: tenantId, run_id: runId }, { limit, after: afterResultId }, filter);
}

/** How many of a run's results a filter keeps, and how many of those are `error` results. */
export async function countResults(
  db: D1Database,
  run: { tenant_id: string; run_id: string },
  filter: ResultFilter = {},
): Promise<{ total: number; errored: number }> {
  const f = filterClauses(filter);
  const row = await db
    .prepare(
      `SELECT COUNT(*) AS total, COALESCE(SUM(verdict = 'error'), 0) AS errored FROM results WHERE tenant_id = ? AND run_id = ?${f.sql}`,
    )
    .bind(run.tenant_id, run.run_id, ...f.binds)
    .first<{ total: number; errored: number }>();
  return row ?? { total: 0, errored: 0 };
}

/** Every trait name in the given rubric score maps of the filtered results (the CSV's rubric columns). */
export async function distinctTraitNames(
  db: D1Database,
  run: { tenant_id: string; run_id: string },
  maps: readonly string[],
  filter: ResultFilter = {},
): Promise<string[]> {
  const f = filterClauses(filter, "r.");
  // One SELECT per map (names fixed by the caller's constant list), UNIONed: SQLite walks each JSON object once.
  const selects = maps.map(
    (m) =>
      `SELECT j.key AS name FROM results r, json_each(r.compact_json, '$.rubric.${m}') j WHERE r.tenant_id = ? AND r.run_id = ?${f.sql} AND j.key IS NOT NULL`,
  );
  const binds = maps.flatMap(() => [run.tenant_id, run.run_id, ...f.binds]);
  const { results } = await db
    .prepare(selects.join(" UNION "))
    .bind(...binds)
    .all<{ name: string }>();
  return results.map((r) => r.name);
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

/**
 * A job's stored results in a run (one per parsing model): what a re-scored child reuses
 * (src/rescore/). Found through the natural-key index (run, question, answering model, …).
 */
export async function jobResultRows(
  db: D1Database,
  run: { tenant_id: string; run_id: string },
  job: { question_id: string; answering_id: string; replicate: number },
): Promise<(StoredResultRow & { result_id: string; parsing_model: string })[]> {
  const { results } = await db
    .prepare(
      "SELECT result_id, parsing_model, r2_key, compact_json, trace_json FROM results WHERE run_id = ? AND question_id = ? AND answering_model = ? AND replicate = ? AND tenant_id = ?",
    )
    .bind(run.run_id, job.question_id, job.answering_id, job.replicate, run.tenant_id)
    .all<StoredResultRow & { result_id: string; parsing_model: string }>();
  return results;
}

/** One row of a filtered results page: the indexed columns, without the result JSON. */
export interface ResultListRow {
  result_id: string;
  question_id: string;
  answering_model: string;
  parsing_model: string;
  replicate: number;
  verdict: string;
  failure_category: string | null;
}

/** A run's verdict counts per (question, answering model), over parsing models and replicates. */
export interface QuestionModelCounts {
  question_id: string;
  answering_model: string;
  passed: number;
  failed: number;
  errored: number;
}

/** The first `limit` (question, answering model) cells in question order (the dashboard's heatmap). */
export async function questionModelCounts(
  db: D1Database,
  run: { tenant_id: string; run_id: string },
  limit: number,
): Promise<QuestionModelCounts[]> {
  const { results } = await db
    .prepare(
      `SELECT question_id, answering_model, SUM(verdict = 'pass') AS passed, SUM(verdict = 'fail') AS failed, SUM(verdict = 'error') AS errored
       FROM results WHERE tenant_id = ? AND run_id = ? GROUP BY question_id, answering_model ORDER BY question_id, answering_model LIMIT ?`,
    )
    .bind(run.tenant_id, run.run_id, limit)
    .all<QuestionModelCounts>();
  return results;
}

/**
 * Deletes results of a run by id (a dead job's results its run never recorded, src/jobs/dead-letter.ts).
 * Answers how many rows went and the R2 keys they named (a large result's object), for the caller to delete.
 */
export async function deleteResultRows(
  db: D1Database,
  run: { tenant_id: string; run_id: string },
  resultIds: readonly string[],
): Promise<{ deleted: number; r2_keys: string[] }> {
  const out = { deleted: 0, r2_keys: [] as string[] };
  // Two parameters name the run; the rest of D1's 100 are ids.
  for (const ids of chunk(resultIds, D1_MAX_BOUND_PARAMS - 2)) {
    const { results } = await db
      .prepare(
        `DELETE FROM results WHERE tenant_id = ? AND run_id = ? AND result_id IN (${ids.map(() => "?").join(", ")}) RETURNING r2_key`,
      )
      .bind(run.tenant_id, run.run_id, ...ids)
      .all<{ r2_key: string }>();
    out.deleted += results.length;
    out.r2_keys.push(...results.map((r) => r.r2_key).filter((k) => k !== ""));
  }
  return out;
}
