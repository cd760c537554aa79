/**
 * One page of a tenant's rows, newest first with the row's id breaking ties: a keyset page, stable
 * while rows are added or deleted between pages (an OFFSET would skip or repeat them). `after` is
 * the last row of the page before (src/http/cursor.ts carries it in the cursor). The lists of
 * stored judges, presets, triggers, schedules, API keys and secrets read through it, each over its
 * `(tenant_id, created_at DESC, <id> DESC)` index (migrations/0018_list_indexes.sql,
 * 0003_tenants.sql, 0019_secret_token_list_indexes.sql), and a judge's tokens over
 * `(tenant_id, judge_id, created_at DESC, token_id DESC)`; a run's exports over exports_by_run
 * `(tenant_id, run_id, created_at DESC)` (0014_exports.sql).
 */
export type PageAfter = { created_at: string; id: string } | null;

/** Where the rows are: the table, its id column, and the columns every row of the list equals. */
export interface PageSource {
  table: string;
  idColumn: string;
  /** The tenant, and for a judge's tokens its judge: `{ tenant_id, judge_id }`. */
  owner: { tenant_id: string } & Readonly<Record<string, string>>;
}

/** Table and column names are from our code, never from a request; only values are bound. */
export async function newestFirstPage<Row>(db: D1Database, source: PageSource, limit: number, after: PageAfter): Promise<Row[]> {
  const { table, idColumn, owner } = source;
  const columns = Object.keys(owner);
  const { results } = await db
    .prepare(
      `SELECT * FROM ${table} WHERE ${columns.map((c) => `${c} = ?`).join(" AND ")}
       ${after ? `AND (created_at, ${idColumn}) < (?, ?)` : ""}
       ORDER BY created_at DESC, ${idColumn} DESC LIMIT ?`,
    )
    .bind(...columns.map((c) => owner[c]), ...(after ? [after.created_at, after.id] : []), limit)
    .all<Row>();
  return results;
}
