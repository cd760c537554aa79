/** D1 allows at most 100 bound parameters per statement (IN lists are cut to fit: `chunk`). */
export const D1_MAX_BOUND_PARAMS = 100;

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * A UTF-16 length that keeps a statement's one bound value under D1's 2,000,000 bytes a value,
 * whatever the text (a UTF-16 unit is at most 3 UTF-8 bytes).
 */
export const JSON_ROWS_MAX_CHARS = 600_000;

/**
 * `INSERT … SELECT … FROM json_each(?) <conflict clause>`: many rows in one bound value (a JSON
 * array of rows), where VALUES (?, …), (?, …) needed a statement per floor(100 / columns) rows.
 * A batch of 20 results and their 40 ledger rows was 8 statements, each parsed and planned on its
 * own (D1, and locally miniflare's D1 in the worker's thread); it is 2. Rows are cut into
 * statements of at most `maxChars` of JSON (a longer row goes alone). Values must be strings,
 * finite numbers or null (no booleans: bind 0/1); SQLite reads each back with `->>`, as the
 * column's affinity would take a bound value. `columns`, `table` and the clause are code
 * constants, never user input.
 */
export function jsonRowsInsert(
  db: D1Database,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  conflictClause: string,
  maxChars = JSON_ROWS_MAX_CHARS,
): D1PreparedStatement[] {
  // WHERE true: without it SQLite reads the ON of ON CONFLICT as the join's (sqlite.org/lang_upsert.html).
  const sql = `INSERT INTO ${table} (${columns.join(", ")}) SELECT ${columns.map((_, i) => `value ->> ${i}`).join(", ")} FROM json_each(?) WHERE true ${conflictClause}`;
  const statements: D1PreparedStatement[] = [];
  let group: string[] = [];
  let chars = 2;
  const flush = () => {
    if (group.length > 0) statements.push(db.prepare(sql).bind(`[${group.join(",")}]`));
    group = [];
    chars = 2;
  };
  for (const row of rows) {
    const text = JSON.stringify(row);
    if (chars + text.length + 1 > maxChars) flush();
    group.push(text);
    chars += text.length + 1;
  }
  flush();
  return statements;
}
