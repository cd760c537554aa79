/**
 * One page of a tenant's rows, newest first with the row's id breaking ties: a keyset page, stable
 * while rows are added or deleted between pages (an OFFSET would skip or repeat them). `after` is
 * the last row of the page before (src/http/cursor.ts carries it in the cursor). The lists of
 * stored judges, presets, triggers, schedules, API keys and secrets read through it, each over its
 * `(tenant_id, created_at DESC, <id> DESC)` index (migrations/0018_list_indexes.sql,
 * 0003_tenants.sql, 0019_secret_token_list_indexes.sql), and a judge's tokens over
 * `(tenant_id, judge_id, created_at DESC, token_id DESC)`; a run's exports over exports_by_run
 * `(tenant_id, run_id, created_at DESC)` (0014_exports.sql). The operator's list of the tenants
 * themselves (GET /v1/admin/tenants) is the one list no tenant owns: `owner: EVERY_TENANT`, over
 * `(created_at DESC, tenant_id DESC)` (0022_tenants_list_index.sql).
 */
export type PageAfter = { created_at: string; id: string } | null;

/** The owner of the operator's list of tenants: the rows are the tenants, so no tenant owns them. */
export const EVERY_TENANT = "every tenant";

/** Where the rows are: the table, its id column, and the columns every row of the list equals. */
export interface PageSource {
  table: string;
  idColumn: string;
  /** The tenant, and for a judge's tokens its judge: `{ tenant_id, judge_id }`; `EVERY_TENANT` for the `tenants` table only. */
  owner: ({ tenant_id: string } & Readonly<Record<string, string>>) | typeof EVERY_TENANT;
}

/** Table and column names are from our code, never from a request; only values are bound. */
export async function newestFirstPage<Row>(db: D1Database, source: PageSource, limit: number, after: PageAfter): Promise<Row[]> {
  const { table, idColumn, owner } = source;
  if (owner === EVERY_TENANT && table !== "tenants") throw new Error(`${table} rows belong to a tenant: name it as the list's owner`);
  const ownerValues: Readonly<Record<string, string>> = owner === EVERY_TENANT ? {} : owner;
  const columns = Object.keys(ownerValues);
  const conditions = [...columns.map((c) => `${c} = ?`), ...(after ? [`(created_at, ${idColumn}) < (?, ?)`] : [])];
  const { results } = await db
    .prepare(
      `SELECT * FROM ${table} ${conditions.length ? `WHERE ${conditions.join(" AND ")}` : ""}
       ORDER BY created_at DESC, ${idColumn} DESC LIMIT ?`,
    )
    .bind(...columns.map((c) => ownerValues[c]), ...(after ? [after.created_at, after.id] : []), limit)
    .all<Row>();
  return results;
}
