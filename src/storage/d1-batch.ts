/**
 * D1 allows at most 100 bound parameters per statement: multi-row statements are cut into
 * chunks of floor(100 / columns) rows and sent in one `batch()` (one transaction).
 */
export const D1_MAX_BOUND_PARAMS = 100;

export function rowsPerStatement(columnCount: number): number {
  if (columnCount < 1 || columnCount > D1_MAX_BOUND_PARAMS) {
    throw new RangeError(`a row needs 1..${D1_MAX_BOUND_PARAMS} columns, got ${columnCount}`);
  }
  return Math.floor(D1_MAX_BOUND_PARAMS / columnCount);
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Builds the statements for `INSERT … VALUES (…),(…) <conflict clause>` over many rows.
 * `columns` and `table` are code constants, never user input.
 */
export function multiRowInsert(
  db: D1Database,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  conflictClause: string,
): D1PreparedStatement[] {
  const per = rowsPerStatement(columns.length);
  const rowSql = `(${columns.map(() => "?").join(", ")})`;
  return chunk(rows, per).map((group) =>
    db
      .prepare(`INSERT INTO ${table} (${columns.join(", ")}) VALUES ${group.map(() => rowSql).join(", ")} ${conflictClause}`)
      .bind(...group.flat()),
  );
}
