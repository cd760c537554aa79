/** Opaque pagination cursors: base64url of a JSON array of the sort-key values of the last row. */
import { invalidQuery } from "./errors";

export function encodeCursor(values: string[]): string {
  return btoa(JSON.stringify(values)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeCursor(cursor: string, names: string[]): string[] {
  try {
    const json = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    const values = JSON.parse(json) as unknown;
    if (Array.isArray(values) && values.length === names.length && values.every((v) => typeof v === "string")) {
      return values;
    }
  } catch {
    // fall through to the 400 below
  }
  throw invalidQuery([{ path: "query cursor", message: "not a cursor this API returned; start again without one" }]);
}

/** Where a newest-first page of a tenant's rows starts: after the row with this `created_at` and id. */
export interface CreatedAfter {
  created_at: string;
  id: string;
}

/** `?cursor=` of a list ordered by (created_at, id), both descending; null for the first page. */
export function decodeCreatedCursor(cursor: string | undefined): CreatedAfter | null {
  if (!cursor) return null;
  const [created_at, id] = decodeCursor(cursor, ["created_at", "id"]);
  return { created_at: created_at!, id: id! };
}

/**
 * The next page's cursor: the last row's (created_at, id) when the page came back full, since more
 * rows may follow; null when it did not (a full last page costs the caller one more, empty, page).
 */
export function nextCreatedCursor<R extends { created_at: string }>(
  rows: readonly R[],
  limit: number,
  id: (row: R) => string,
): string | null {
  const last = rows.length === limit ? rows[rows.length - 1] : undefined;
  return last ? encodeCursor([last.created_at, id(last)]) : null;
}
