/**
 * Python values in JS. None → null, bool → boolean, int and float → number (one JS number: the
 * subset does not tell 1 from 1.0, see README), str → string, list → array, tuple → frozen array,
 * dict → Map, set → Set (of hashable scalars), the template instance → `PyObject`.
 */
import type { FunctionDef } from "./ast";

export type PyValue = null | boolean | number | string | PyValue[] | Map<PyValue, PyValue> | Set<PyValue> | PyObject | PyCallable;

export class PyObject {
  readonly attrs = new Map<string, PyValue>();
  constructor(
    readonly className: string,
    readonly methods: Map<string, FunctionDef>,
  ) {}
}

/** A builtin function, a bound method of a builtin value, or a bound template method. */
export interface PyCallable {
  callable: true;
  name: string;
  call(args: PyValue[], kwargs: Map<string, PyValue>): PyValue;
  /** Set for the builtin type constructors, so isinstance(x, str) works. */
  typeName?: string;
}

/** A Python exception raised while running: the verify outcome's error names its type and line. */
export class PyError extends Error {
  constructor(
    readonly pyType: string,
    message: string,
    public line: number | null = null,
  ) {
    super(message);
  }
  describe(): string {
    return `${this.pyType}: ${this.message}${this.line !== null ? ` (line ${this.line})` : ""}`;
  }
}

export const isCallable = (v: PyValue): v is PyCallable => typeof v === "object" && v !== null && (v as PyCallable).callable === true;
export const isTuple = (v: PyValue): boolean => Array.isArray(v) && Object.isFrozen(v);
export const tuple = (items: PyValue[]): PyValue[] => Object.freeze(items) as PyValue[];

export function typeName(v: PyValue): string {
  if (v === null) return "NoneType";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (typeof v === "string") return "str";
  if (Array.isArray(v)) return isTuple(v) ? "tuple" : "list";
  if (v instanceof Map) return "dict";
  if (v instanceof Set) return "set";
  if (v instanceof PyObject) return v.className;
  return "function";
}

export function truthy(v: PyValue): boolean {
  if (v === null) return false;
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v !== 0;
  if (typeof v === "string" || Array.isArray(v)) return v.length > 0;
  if (v instanceof Map || v instanceof Set) return v.size > 0;
  return true;
}

/** Only scalars are hashable in the subset (dict keys, set members). */
export function hashable(v: PyValue, line: number | null = null): PyValue {
  if (v === null || typeof v === "boolean" || typeof v === "number" || typeof v === "string") return v;
  throw new PyError("TypeError", `unhashable type: '${typeName(v)}' (the subset hashes only None, bool, numbers and str)`, line);
}

export function pyEq(a: PyValue, b: PyValue): boolean {
  if (a === b) return true;
  if ((typeof a === "number" || typeof a === "boolean") && (typeof b === "number" || typeof b === "boolean"))
    return Number(a) === Number(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    return isTuple(a) === isTuple(b) && a.length === b.length && a.every((x, i) => pyEq(x, b[i]!));
  }
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !pyEq(v, b.get(k)!)) return false;
    return true;
  }
  if (a instanceof Set && b instanceof Set) return a.size === b.size && [...a].every((x) => b.has(x));
  return false;
}

/** `<` for numbers, strings and sequences (lexicographic), as Python orders them. */
export function pyLess(a: PyValue, b: PyValue, line: number | null): boolean {
  const num = (x: PyValue) => typeof x === "number" || typeof x === "boolean";
  if (num(a) && num(b)) return Number(a) < Number(b);
  if (typeof a === "string" && typeof b === "string") return a < b;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (!pyEq(a[i]!, b[i]!)) return pyLess(a[i]!, b[i]!, line);
    }
    return a.length < b.length;
  }
  if (a instanceof Set && b instanceof Set) return a.size < b.size && [...a].every((x) => b.has(x));
  throw new PyError("TypeError", `'<' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`, line);
}

function formatFloat(n: number): string {
  if (Number.isNaN(n)) return "nan";
  if (!Number.isFinite(n)) return n > 0 ? "inf" : "-inf";
  const s = String(n);
  return s.replace(/e([+-])(\d)$/, "e$10$2");
}

export function pyRepr(v: PyValue): string {
  if (typeof v === "string") {
    const q = v.includes("'") && !v.includes('"') ? '"' : "'";
    const body = v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
    return q + (q === "'" ? body.replace(/'/g, "\\'") : body) + q;
  }
  return pyStr(v);
}

export function pyStr(v: PyValue): string {
  if (v === null) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 1e16 ? String(v) : formatFloat(v);
  if (typeof v === "string") return v;
  if (Array.isArray(v)) {
    const inner = v.map(pyRepr).join(", ");
    return isTuple(v) ? `(${inner}${v.length === 1 ? "," : ""})` : `[${inner}]`;
  }
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(", ")}}`;
  if (v instanceof Set) return v.size ? `{${[...v].map(pyRepr).join(", ")}}` : "set()";
  if (v instanceof PyObject) {
    // An exception object: str(e) is its message, as in Python.
    const args = v.attrs.get("args");
    if (Array.isArray(args) && /(Error|Exception)$/.test(v.className))
      return args.length === 1 ? pyStr(args[0]!) : args.length ? pyStr(args) : "";
    return `${v.className}(...)`;
  }
  return `<built-in function ${v.name}>`;
}

/** JSON (the judge's parsed answer) → Python values: objects become dicts. */
export function fromJson(v: unknown): PyValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "boolean" || typeof v === "number" || typeof v === "string") return v;
  if (Array.isArray(v)) return v.map(fromJson);
  if (typeof v === "object") return new Map(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromJson(x)]));
  return null;
}

/** Python values → JSON; tuples and sets become lists, dict keys strings. */
export function toJson(v: PyValue): unknown {
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof Set) return [...v].map(toJson);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [pyStr(k), toJson(x)]));
  return null;
}
