/** The subset's builtin functions (len, min, sorted, …) and type constructors (str, int, set, …). */
import { pyStrLen } from "../python";
import { methodOf } from "./methods";
import {
  hashable,
  isCallable,
  isTuple,
  type PyCallable,
  PyError,
  pyEq,
  pyLess,
  PyObject,
  pyRepr,
  pyStr,
  type PyValue,
  truthy,
  tuple,
  typeName,
} from "./values";

/** Guards memory: no builtin may build a sequence longer than this. */
export const MAX_SEQUENCE = 1_000_000;

export function iterate(v: PyValue): PyValue[] {
  if (typeof v === "string") return [...v];
  if (Array.isArray(v)) return v;
  if (v instanceof Map) return [...v.keys()];
  if (v instanceof Set) return [...v];
  throw new PyError("TypeError", `'${typeName(v)}' object is not iterable`);
}

export function num(v: PyValue, what: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  throw new PyError("TypeError", `${what}: expected a number, got '${typeName(v)}'`);
}

function fn(name: string, call: PyCallable["call"], typeNameOf?: string): PyCallable {
  return { callable: true, name, call, typeName: typeNameOf };
}

function noKwargs(name: string, kwargs: Map<string, PyValue>, allowed: string[] = []): void {
  for (const k of kwargs.keys())
    if (!allowed.includes(k)) throw new PyError("TypeError", `${name}() got an unexpected keyword argument '${k}'`);
}

/** `key=` of sorted/min/max: a callable applied to each item, or identity. */
function keyOf(name: string, kwargs: Map<string, PyValue>): (v: PyValue) => PyValue {
  const k = kwargs.get("key");
  if (k === undefined || k === null) return (v) => v;
  if (!isCallable(k)) throw new PyError("TypeError", `${name}() key must be callable, not '${typeName(k)}'`);
  return (v) => k.call([v], new Map());
}

function extreme(name: "min" | "max", args: PyValue[], kwargs: Map<string, PyValue>): PyValue {
  noKwargs(name, kwargs, ["default", "key"]);
  const key = keyOf(name, kwargs);
  const items = args.length === 1 ? iterate(args[0]!) : args;
  if (items.length === 0) {
    if (kwargs.has("default")) return kwargs.get("default")!;
    throw new PyError("ValueError", `${name}() arg is an empty sequence`);
  }
  let best: PyValue = items[0] as PyValue;
  let bestKey = key(best);
  for (const x of items.slice(1)) {
    const k = key(x);
    if (name === "min" ? pyLess(k, bestKey, null) : pyLess(bestKey, k, null)) [best, bestKey] = [x, k];
  }
  return best;
}

/** Python 3's round: half to even, decided on the float's exact decimal value (as CPython does). */
export function pyRound(x: number, ndigits: number | null): number {
  const digits = ndigits ?? 0;
  if (!Number.isFinite(x) || digits > 20 || Math.abs(x) >= 1e21) return x;
  if (digits < 0) return pyRound(x / 10 ** -digits, 0) * 10 ** -digits;
  // toFixed with many places spells out the binary value exactly, so ties are real ties.
  const exact = Math.abs(x).toFixed(Math.min(100, digits + 60));
  const cut = exact.indexOf(".") + (digits === 0 ? 0 : digits + 1);
  const kept = exact.slice(0, cut);
  const rest = exact.slice(cut).replace(".", "");
  const half = rest[0]! > "5" || (rest[0] === "5" && /[1-9]/.test(rest.slice(1)));
  const tie = rest[0] === "5" && !/[1-9]/.test(rest.slice(1));
  const lastDigit = Number(kept.replace(".", "").slice(-1));
  const up = half || (tie && lastDigit % 2 === 1);
  const magnitude = up ? Number((Number(kept) + 10 ** -digits).toFixed(digits)) : Number(kept);
  const r = x < 0 ? -magnitude : magnitude;
  return ndigits === null ? r + 0 : r;
}

function toInt(v: PyValue): number {
  if (typeof v === "string") {
    const t = v.trim().replace(/_/g, "");
    if (!/^[+-]?\d+$/.test(t)) throw new PyError("ValueError", `invalid literal for int() with base 10: ${pyRepr(v)}`);
    return parseInt(t, 10);
  }
  const n = num(v, "int()");
  if (!Number.isFinite(n)) throw new PyError("OverflowError", "cannot convert float infinity or nan to integer");
  return Math.trunc(n);
}

function toFloat(v: PyValue): number {
  if (typeof v === "string") {
    const t = v.trim().toLowerCase().replace(/_/g, "");
    if (/^[+-]?(inf|infinity)$/.test(t)) return t.startsWith("-") ? -Infinity : Infinity;
    if (/^[+-]?nan$/.test(t)) return NaN;
    if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t)) throw new PyError("ValueError", `could not convert string to float: ${pyRepr(v)}`);
    return Number(t);
  }
  return num(v, "float()");
}

/** Stable, as Python's sort: equal keys keep their order, also with reverse=True. */
function sortValues(items: PyValue[], kwargs: Map<string, PyValue>): PyValue[] {
  noKwargs("sorted", kwargs, ["reverse", "key"]);
  const key = keyOf("sorted", kwargs);
  const sign = truthy(kwargs.get("reverse") ?? false) ? -1 : 1;
  const keyed = items.map((v) => ({ k: key(v), v }));
  keyed.sort((a, b) => sign * (pyLess(a.k, b.k, null) ? -1 : pyLess(b.k, a.k, null) ? 1 : 0));
  return keyed.map((x) => x.v);
}
export { sortValues };

function isinstance(v: PyValue, types: PyValue): boolean {
  const list: PyValue[] = Array.isArray(types) && isTuple(types) ? types : [types];
  return list.some((t) => {
    if (!isCallable(t) || !t.typeName) throw new PyError("TypeError", "isinstance() arg 2 must be a type or tuple of types");
    const actual = typeName(v);
    if (t.typeName === "float") return actual === "float" || actual === "int";
    if (t.typeName === "int") return actual === "int" || actual === "bool";
    return actual === t.typeName;
  });
}

function range(args: PyValue[]): PyValue[] {
  const [a, b, c] = args.map((x) => toInt(x));
  const [start, stop, step] = b === undefined ? [0, a!, 1] : [a!, b, c ?? 1];
  if (step === 0) throw new PyError("ValueError", "range() arg 3 must not be zero");
  const n = Math.max(0, Math.ceil((stop - start) / step));
  if (n > MAX_SEQUENCE) throw new PyError("MemoryError", `range of ${n} items exceeds the subset's limit`);
  return Array.from({ length: n }, (_, i) => start + i * step);
}

const OTHER_TYPES = new Map<string, PyCallable>();

export const BUILTINS: Record<string, PyCallable> = {
  len: fn("len", ([v]) => {
    if (typeof v === "string") return pyStrLen(v);
    if (Array.isArray(v)) return v.length;
    if (v instanceof Map || v instanceof Set) return v.size;
    throw new PyError("TypeError", `object of type '${typeName(v ?? null)}' has no len()`);
  }),
  abs: fn("abs", ([v]) => Math.abs(num(v ?? null, "abs()"))),
  min: fn("min", (args, kw) => extreme("min", args, kw)),
  max: fn("max", (args, kw) => extreme("max", args, kw)),
  sum: fn("sum", ([it, start]) =>
    iterate(it ?? null).reduce<number>((s, x) => s + num(x, "sum()"), start == null ? 0 : num(start, "sum()")),
  ),
  round: fn("round", ([x, nd]) => pyRound(num(x ?? null, "round()"), nd == null ? null : toInt(nd))),
  float: fn("float", ([v]) => (v === undefined ? 0 : toFloat(v)), "float"),
  int: fn("int", ([v]) => (v === undefined ? 0 : toInt(v)), "int"),
  str: fn("str", ([v]) => (v === undefined ? "" : pyStr(v)), "str"),
  bool: fn("bool", ([v]) => (v === undefined ? false : truthy(v)), "bool"),
  repr: fn("repr", ([v]) => pyRepr(v ?? null)),
  list: fn("list", ([v]) => (v === undefined ? [] : [...iterate(v)]), "list"),
  tuple: fn("tuple", ([v]) => tuple(v === undefined ? [] : [...iterate(v)]), "tuple"),
  set: fn("set", ([v]) => new Set(v === undefined ? [] : iterate(v).map((x) => hashable(x))), "set"),
  dict: fn(
    "dict",
    ([v], kw) => {
      const out = new Map<PyValue, PyValue>(
        v instanceof Map
          ? v
          : (v === undefined ? [] : iterate(v)).map((pair) => {
              const p = iterate(pair);
              if (p.length !== 2) throw new PyError("ValueError", "dictionary update sequence element has wrong length");
              return [hashable(p[0]!), p[1]!] as [PyValue, PyValue];
            }),
      );
      for (const [k, x] of kw) out.set(k, x);
      return out;
    },
    "dict",
  ),
  sorted: fn("sorted", ([v], kw) => sortValues(iterate(v ?? null), kw)),
  reversed: fn("reversed", ([v]) => [...iterate(v ?? null)].reverse()),
  any: fn("any", ([v]) => iterate(v ?? null).some(truthy)),
  all: fn("all", ([v]) => iterate(v ?? null).every(truthy)),
  enumerate: fn("enumerate", ([v, start]) => iterate(v ?? null).map((x, i) => tuple([i + (start == null ? 0 : toInt(start)), x]))),
  zip: fn("zip", (args) => {
    const lists = args.map(iterate);
    const n = lists.length ? Math.min(...lists.map((l) => l.length)) : 0;
    return Array.from({ length: n }, (_, i) => tuple(lists.map((l) => l[i]!)));
  }),
  range: fn("range", (args) => range(args)),
  map: fn("map", ([f, ...its]) => {
    if (!f || !isCallable(f)) throw new PyError("TypeError", "map() needs a function");
    const lists = its.map(iterate);
    const n = lists.length ? Math.min(...lists.map((l) => l.length)) : 0;
    return Array.from({ length: n }, (_, i) =>
      f.call(
        lists.map((l) => l[i]!),
        new Map(),
      ),
    );
  }),
  filter: fn("filter", ([f, it]) => iterate(it ?? null).filter((x) => truthy(f == null ? x : isCallable(f) ? f.call([x], new Map()) : x))),
  isinstance: fn("isinstance", ([v, t]) => isinstance(v ?? null, t ?? null)),
  // Debug output has nowhere to go in a worker; templates often keep a print() or two.
  print: fn("print", () => null),
  type: fn("type", ([v]) => {
    const name = typeName(v ?? null);
    if (Object.hasOwn(BUILTINS, name) && BUILTINS[name]!.typeName) return BUILTINS[name]!;
    // One object per type name, so type(a) == type(b) compares as in Python.
    let t = OTHER_TYPES.get(name);
    if (!t) OTHER_TYPES.set(name, (t = fn(name, () => null, name)));
    return t;
  }),
  pow: fn("pow", ([a, b]) => num(a ?? null, "pow()") ** num(b ?? null, "pow()")),
  divmod: fn("divmod", ([a, b]) => {
    const [x, y] = [num(a ?? null, "divmod()"), num(b ?? null, "divmod()")];
    if (y === 0) throw new PyError("ZeroDivisionError", "integer division or modulo by zero");
    return tuple([Math.floor(x / y), ((x % y) + y) % y]);
  }),
  chr: fn("chr", ([n]) => String.fromCodePoint(num(n ?? null, "chr()"))),
  ord: fn("ord", ([c]) => {
    if (typeof c !== "string" || [...c].length !== 1) throw new PyError("TypeError", "ord() expected a character");
    return c.codePointAt(0)!;
  }),
  hasattr: fn("hasattr", ([o, name]) => o instanceof PyObject && typeof name === "string" && (o.attrs.has(name) || o.methods.has(name))),
  getattr: fn("getattr", ([o, name, dflt]) => {
    if (o instanceof PyObject && typeof name === "string" && o.attrs.has(name)) return o.attrs.get(name)!;
    if (dflt !== undefined) return dflt;
    throw new PyError("AttributeError", `object has no attribute ${pyRepr(name ?? null)}`);
  }),
};

/** `str.lower` and friends used unbound, e.g. `map` is out, but `str.lower(x)` reads naturally. */
export function unboundMethod(typeNameOf: string, name: string): PyCallable | null {
  return fn(`${typeNameOf}.${name}`, ([self, ...rest], kw) => {
    if (self === undefined || typeName(self) !== typeNameOf) throw new PyError("TypeError", `${typeNameOf}.${name} needs a ${typeNameOf}`);
    return methodOf(self, name).call(rest, kw);
  });
}

export { pyEq };
