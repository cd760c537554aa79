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
  const body = s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
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
    const typeName =
      value === null || value === undefined
        ? "NoneType"
        : typeof value === "number"
          ? "float"
          : typeof value === "boolean"
            ? "bool"
            : "dict";
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

/** Python's whitespace (`str.isspace`, `str.split()`, `str.strip()`, `re`'s `\s` on str): JS `\s` minus U+FEFF plus \x1c-\x1f and \x85. */
export const PY_WHITESPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_SPLIT = new RegExp(`[${PY_WHITESPACE}]+`);
const PY_STRIP = new RegExp(`^[${PY_WHITESPACE}]+|[${PY_WHITESPACE}]+$`, "g");

/** Python `s.strip()` with no argument. */
export function pyStrip(s: string): string {
  return s.replace(PY_STRIP, "");
}

/** Python `s.split()` with no argument: runs of whitespace separate, no empty items. */
export function pySplit(s: string): string[] {
  const t = pyStrip(s);
  return t === "" ? [] : t.split(PY_SPLIT);
}

/** Python `len(s)` of a str: code points, not UTF-16 units. */
export function pyStrLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** The items Python iterates over for `len(x)` / `zip(x, …)`: a list's items, a string's characters; anything else raises. */
export function pySequence(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return [...value];
  throw new Error(`object of type '${pyTypeName(value)}' has no len()`);
}

export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "string") return "str";
  return Array.isArray(value) ? "list" : "dict";
}

/** Python `a == b` on JSON values: `1 == 1.0 == True`, lists and dicts compared deeply, no coercion from strings. */
export function pyEquals(a: unknown, b: unknown): boolean {
  const num = (v: unknown) => (typeof v === "boolean" ? (v ? 1 : 0) : v);
  const x = num(a);
  const y = num(b);
  if (typeof x === "number" && typeof y === "number") return x === y;
  if (x === null || x === undefined || y === null || y === undefined) return (x ?? null) === (y ?? null);
  if (typeof x !== "object" || typeof y !== "object") return x === y;
  if (Array.isArray(x) !== Array.isArray(y)) return false;
  if (Array.isArray(x)) {
    const ys = y as unknown[];
    return x.length === ys.length && x.every((v, i) => pyEquals(v, ys[i]));
  }
  const xo = x as Record<string, unknown>;
  const yo = y as Record<string, unknown>;
  const keys = Object.keys(xo);
  return keys.length === Object.keys(yo).length && keys.every((k) => Object.hasOwn(yo, k) && pyEquals(xo[k], yo[k]));
}
