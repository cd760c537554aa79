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
