/**
 * One page of a tenant's rows, newest first with the row's id breaking ties: a keyset page, stable
 * while rows are added or deleted between pages (an OFFSET would skip or repeat them). `after` is
 * the last row of the page before (src/http/cursor.ts carries it in the cursor). The lists of
 * stored judges, presets, triggers and schedules read through it, each over its
 * `(tenant_id, created_at DESC, <id> DESC)` index (migrations/0018_list_indexes.sql).
 */
export type PageAfter = { created_at: string; id: string } | null;

/** `table` and `idColumn` are names from our code, never from a request. */
export async function newestFirstPage<Row>(
  db: D1Database,
  table: string,
  idColumn: string,
  tenantId: string,
  limit: number,
  after: PageAfter,
): Promise<Row[]> {
  const { results } = await db
    .prepare(
      `SELECT * FROM ${table} WHERE tenant_id = ? ${after ? `AND (created_at, ${idColumn}) < (?, ?)` : ""}
       ORDER BY created_at DESC, ${idColumn} DESC LIMIT ?`,
    )
    .bind(tenantId, ...(after ? [after.created_at, after.id] : []), limit)
    .all<Row>();
  return results;
}
