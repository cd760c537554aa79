/**
 * Python value semantics the primitives depend on.
 *
 * Karenina's primitives call `str(x)`, `float(x)`, `bool(x)` and `set(x)` on whatever the judge
 * returned. To give the same verdicts on the same JSON, the TS port reproduces those conversions
 * here (and only here) instead of using JS's `String`/`Number`/truthiness, which differ on
 * null ("None" vs "null"), booleans ("True"), lists ("['a', 'b']"), numeric strings and "0".
 */

/** Python `repr` of a JSON value: strings single-quoted, lists bracketed, None/True/False. */
export function pyRepr(value: unknown): string {
  if (typeof value === "string") return quoteRepr(value);
  return pyStr(value);
}

/** Python `str` of a JSON value. */
export function pyStr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return pyNumber(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  if (typeof value === "object") {
    const items = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${quoteRepr(k)}: ${pyRepr(v)}`);
    return `{${items.join(", ")}}`;
  }
  return String(value);
}

function pyNumber(n: number): string {
  if (Number.isNaN(n)) return "nan";
  if (n === Infinity) return "inf";
  if (n === -Infinity) return "-inf";
  // JSON cannot tell 37 from 37.0; both sides of a comparison go through the same rule, so the
  // integer spelling is used for both and equality is preserved.
  return String(n);
}

function quoteRepr(s: string): string {
  // Python prefers single quotes and switches to double quotes when the text holds a single quote.
  const useDouble = s.includes("'") && !s.includes('"');
  const q = useDouble ? '"' : "'";
  const body = s
    .replace(/\\/g, "\\\\")
    .replace(/\n/g, "\\n")
    .replace(/\r/g, "\\r")
    .replace(/\t/g, "\\t");
  return q + (useDouble ? body : body.replace(/'/g, "\\'")) + q;
}

/** Python float literal grammar accepted by `float(str)`: digits with `_`, exponents, inf/nan. */
const DIGITS = String.raw`\d(?:_?\d)*`;
const FLOAT_LITERAL = new RegExp(
  String.raw`^[+-]?(?:(?:${DIGITS}(?:\.(?:${DIGITS})?)?|\.${DIGITS})(?:[eE][+-]?${DIGITS})?|inf(?:inity)?|nan)$`,
  "i",
);

/** Python `float(x)`; throws the way Python raises TypeError/ValueError. */
export function pyFloat(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "string") {
    const text = value.trim();
    if (!FLOAT_LITERAL.test(text)) throw new Error(`could not convert string to float: ${quoteRepr(value)}`);
    const lower = text.toLowerCase().replace(/_/g, "");
    if (/^[+-]?inf(inity)?$/.test(lower)) return lower.startsWith("-") ? -Infinity : Infinity;
    if (/^[+-]?nan$/.test(lower)) return NaN;
    return Number(lower);
  }
  const typeName = value === null || value === undefined ? "NoneType" : Array.isArray(value) ? "list" : "dict";
  throw new Error(`float() argument must be a string or a real number, not '${typeName}'`);
}

/** Python truthiness (`bool(x)`): empty string, 0, empty list/dict and None are false. */
export function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === "string") return value.length > 0;
  if (typeof value === "number") return value !== 0; // NaN is truthy in Python too
  if (typeof value === "boolean") return value;
  if (Array.isArray(value)) return value.length > 0;
  return Object.keys(value as object).length > 0;
}

/**
 * The elements of Python `set(x)` as comparable keys. Lists give their items, strings give their
 * characters; None, numbers and nested lists/dicts raise as in Python (not iterable / unhashable).
 * Python treats `1`, `1.0` and `True` as the same set element, so numbers and booleans share keys.
 */
export function pySetKeys(value: unknown): Set<string> {
  if (typeof value === "string") return new Set([...value].map((c) => `s:${c}`));
  if (!Array.isArray(value)) {
    const typeName = value === null || value === undefined ? "NoneType" : typeof value === "number" ? "float" : typeof value === "boolean" ? "bool" : "dict";
    throw new Error(`'${typeName}' object is not iterable`);
  }
  return new Set(value.map(hashKey));
}

function hashKey(item: unknown): string {
  if (typeof item === "string") return `s:${item}`;
  if (typeof item === "number") return `n:${item}`;
  if (typeof item === "boolean") return `n:${item ? 1 : 0}`;
  if (item === null || item === undefined) return "None";
  throw new Error(`unhashable type: '${Array.isArray(item) ? "list" : "dict"}'`);
}

/** Pydantic's default property title: Python `str.title()` of the name with `_` as spaces. */
export function pyTitle(name: string): string {
  let out = "";
  let prevCased = false;
  for (const ch of name) {
    const cased = ch.toLowerCase() !== ch.toUpperCase();
    out += cased ? (prevCased ? ch.toLowerCase() : ch.toUpperCase()) : ch;
    prevCased = cased;
  }
  return out.replace(/_/g, " ");
}
