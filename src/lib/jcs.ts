/**
 * RFC 8785 JSON Canonicalization Scheme (JCS) for values that came from `JSON.parse`: object keys
 * sorted by UTF-16 code units, no whitespace, numbers and strings serialised as ECMAScript's
 * JSON.stringify does (which is what RFC 8785 §3.2.2 prescribes). Two JSON texts that differ only
 * in whitespace, key order, escapes or number spelling (`4.50`, `2e-3`) canonicalise the same.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) throw new TypeError("JCS has no form for NaN or Infinity");
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`JCS has no form for ${typeof value}`);
    return text;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  // Default sort compares UTF-16 code units, as RFC 8785 §3.2.3 asks.
  const keys = Object.keys(value).sort();
  const record = value as Record<string, unknown>;
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(",")}}`;
}
