/**
 * Values written the way Karenina's Python exporter writes them (pure): `json.dumps` with its
 * default separators (", " and ": ") and ensure_ascii, and `str()` of a cell (True / False, "" for
 * None). One difference stays: a float with no fraction is `2` here where Python writes `2.0`
 * (JSON does not tell 2 from 2.0), except in the fields known to be floats (`pyFloat`).
 */

/** Python's json.dumps(value) with default arguments. */
export function pyJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return asciiJson(value);
  if (typeof value === "number")
    return Number.isFinite(value) ? String(value) : value > 0 ? "Infinity" : Number.isNaN(value) ? "NaN" : "-Infinity";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map(pyJson).join(", ")}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${asciiJson(k)}: ${pyJson(v)}`).join(", ")}}`;
}

/** JSON string with every non-ASCII code unit as \uXXXX, as ensure_ascii=True writes it. */
function asciiJson(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Karenina's _safe_json_serialize: "" for any falsy value (None, {}, [], "", 0, False), else json.dumps. */
export function pySafeJson(value: unknown): string {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return "";
  if (Array.isArray(value) && value.length === 0) return "";
  if (typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 0) return "";
  return pyJson(value);
}

/** str() of a cell value: None → "", booleans as Python names, containers as JSON. */
export function pyCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  return pyJson(value);
}

/** A Python float's repr for a number JSON carried: 2 → "2.0". */
export function pyFloat(value: number | null | undefined): string {
  if (value === null || value === undefined) return "";
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

/** One CSV line as Python's csv.writer writes it (QUOTE_MINIMAL, "\r\n"). */
export function csvLine(cells: readonly string[]): string {
  return `${cells.map((c) => (/[",\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(",")}\r\n`;
}
