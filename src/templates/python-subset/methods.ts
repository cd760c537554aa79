/** Methods of builtin values: the common str methods, and list / dict / set basics. */
import { PY_WHITESPACE, pySplit } from "../python";
import { iterate, MAX_SEQUENCE, num, sortValues } from "./builtins";
import { formatValue } from "./format-spec";
import { hashable, type PyCallable, PyError, pyEq, pyRepr, pyStr, type PyValue, tuple, typeName } from "./values";

type Impl<T> = (self: T, args: PyValue[], kwargs: Map<string, PyValue>) => PyValue;

const str = (v: PyValue | undefined, what: string): string => {
  if (typeof v !== "string") throw new PyError("TypeError", `${what} expects a str, got '${typeName(v ?? null)}'`);
  return v;
};
const escapeClass = (chars: string) => chars.replace(/[\\\]^-]/g, "\\$&");
/** Python's whitespace set, shared with the normalizers (not JS's `\s`). */
const WS = PY_WHITESPACE;

function stripper(side: "both" | "l" | "r"): Impl<string> {
  return (s, [chars]) => {
    const set = chars == null ? WS : escapeClass(str(chars, "strip()"));
    if (!set) return s;
    const l = side === "r" ? "" : `^[${set}]+`;
    const r = side === "l" ? "" : `[${set}]+$`;
    return s.replace(new RegExp([l, r].filter(Boolean).join("|"), "gu"), "");
  };
}

function prefixTest(kind: "start" | "end"): Impl<string> {
  return (s, [arg]) => {
    const options = Array.isArray(arg) ? arg.map((a) => str(a, `${kind}swith()`)) : [str(arg, `${kind}swith()`)];
    return options.some((o) => (kind === "start" ? s.startsWith(o) : s.endsWith(o)));
  };
}

function split(s: string, [sep, maxsplit]: PyValue[]): PyValue[] {
  const limit = maxsplit == null ? -1 : num(maxsplit, "split()");
  if (sep == null) {
    const parts = pySplit(s);
    if (limit < 0 || parts.length <= limit + 1) return parts;
    // Re-split keeping the remainder intact after `limit` splits.
    const out: string[] = [];
    let rest = s.replace(new RegExp(`^[${WS}]+`), "");
    for (let i = 0; i < limit; i++) {
      const m = new RegExp(`[${WS}]+`).exec(rest);
      if (!m) break;
      out.push(rest.slice(0, m.index));
      rest = rest.slice(m.index + m[0].length);
    }
    return [...out, rest];
  }
  const d = str(sep, "split()");
  if (!d) throw new PyError("ValueError", "empty separator");
  const parts = s.split(d);
  return limit < 0 || parts.length <= limit + 1 ? parts : [...parts.slice(0, limit), parts.slice(limit).join(d)];
}

const STR_METHODS: Record<string, Impl<string>> = {
  lower: (s) => s.toLowerCase(),
  upper: (s) => s.toUpperCase(),
  casefold: (s) => s.toLowerCase(),
  strip: stripper("both"),
  lstrip: stripper("l"),
  rstrip: stripper("r"),
  split: (s, args) => split(s, args),
  splitlines: (s) => s.split(/\r\n|\r|\n/).filter((_, i, a) => i < a.length - 1 || a[i] !== ""),
  join: (s, [it]) =>
    iterate(it ?? null)
      .map((x) => str(x, "join()"))
      .join(s),
  replace: (s, [a, b, count]) => {
    const from = str(a, "replace()");
    const to = str(b, "replace()");
    let n = count == null ? Infinity : num(count, "replace()");
    if (n < 0) n = Infinity;
    let out = "";
    let rest = s;
    while (n-- > 0) {
      const at = rest.indexOf(from);
      if (at < 0) break;
      out += rest.slice(0, at) + to;
      rest = rest.slice(at + from.length);
      if (from === "") {
        out += rest.slice(0, 1);
        rest = rest.slice(1);
        if (!rest) break;
      }
    }
    return out + rest;
  },
  startswith: prefixTest("start"),
  endswith: prefixTest("end"),
  find: (s, [sub]) => s.indexOf(str(sub, "find()")),
  rfind: (s, [sub]) => s.lastIndexOf(str(sub, "rfind()")),
  index: (s, [sub]) => {
    const at = s.indexOf(str(sub, "index()"));
    if (at < 0) throw new PyError("ValueError", "substring not found");
    return at;
  },
  count: (s, [sub]) => {
    const t = str(sub, "count()");
    return t === "" ? s.length + 1 : s.split(t).length - 1;
  },
  isdigit: (s) => /^\d+$/u.test(s),
  isnumeric: (s) => /^\p{N}+$/u.test(s),
  isdecimal: (s) => /^\d+$/u.test(s),
  isalpha: (s) => /^\p{L}+$/u.test(s),
  isalnum: (s) => /^[\p{L}\p{N}]+$/u.test(s),
  isspace: (s) => new RegExp(`^[${WS}]+$`, "u").test(s),
  islower: (s) => /\p{Ll}/u.test(s) && s === s.toLowerCase(),
  isupper: (s) => /\p{Lu}/u.test(s) && s === s.toUpperCase(),
  title: (s) => s.toLowerCase().replace(/(^|[^\p{L}])(\p{L})/gu, (_, a: string, b: string) => a + b.toUpperCase()),
  capitalize: (s) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase(),
  zfill: (s, [w]) => s.padStart(num(w ?? null, "zfill()"), "0"),
  format: (s, args, kwargs) => formatString(s, args, kwargs),
  removeprefix: (s, [p]) => (s.startsWith(str(p, "removeprefix()")) ? s.slice((p as string).length) : s),
  removesuffix: (s, [p]) => (str(p, "removesuffix()") && s.endsWith(p as string) ? s.slice(0, s.length - (p as string).length) : s),
  partition: (s, [sep]) => {
    const at = s.indexOf(str(sep, "partition()"));
    return at < 0 ? tuple([s, "", ""]) : tuple([s.slice(0, at), sep as string, s.slice(at + (sep as string).length)]);
  },
  ljust: (s, [w, fill]) => s.padEnd(num(w ?? null, "ljust()"), fill == null ? " " : str(fill, "ljust()")),
  rjust: (s, [w, fill]) => s.padStart(num(w ?? null, "rjust()"), fill == null ? " " : str(fill, "rjust()")),
};

/** `str.format` with `{}`, `{0}`, `{name}`, `!r` / `!s`, format specs (format-spec.ts) and `{{ }}`. */
function formatString(s: string, args: PyValue[], kwargs: Map<string, PyValue>): string {
  let auto = 0;
  return s.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (m, field: string | undefined) => {
    if (m === "{{") return "{";
    if (m === "}}") return "}";
    const [, name, conv, spec] = /^([^!:]*)(?:!([rs]))?(?::(.*))?$/s.exec(field!) ?? [];
    if (name === undefined) throw new PyError("ValueError", `format field {${field}} is outside the subset`);
    const v = name === "" ? args[auto++] : /^\d+$/.test(name) ? args[Number(name)] : kwargs.get(name);
    if (v === undefined)
      throw new PyError(name === "" || /^\d+$/.test(name) ? "IndexError" : "KeyError", `format field {${field}} has no value`);
    return formatValue(conv === "r" ? pyRepr(v) : conv === "s" ? pyStr(v) : v, spec ?? "");
  });
}

const LIST_METHODS: Record<string, Impl<PyValue[]>> = {
  append: (l, [x]) => {
    if (l.length >= MAX_SEQUENCE) throw new PyError("MemoryError", "list exceeds the subset's size limit");
    l.push(x ?? null);
    return null;
  },
  extend: (l, [it]) => {
    l.push(...iterate(it ?? null));
    return null;
  },
  pop: (l, [i]) => {
    if (!l.length) throw new PyError("IndexError", "pop from empty list");
    const at = i == null ? l.length - 1 : (num(i, "pop()") + l.length) % l.length;
    return l.splice(at, 1)[0]!;
  },
  insert: (l, [i, x]) => {
    l.splice(num(i ?? null, "insert()"), 0, x ?? null);
    return null;
  },
  remove: (l, [x]) => {
    const at = l.findIndex((y) => pyEq(y, x ?? null));
    if (at < 0) throw new PyError("ValueError", "list.remove(x): x not in list");
    l.splice(at, 1);
    return null;
  },
  index: (l, [x]) => {
    const at = l.findIndex((y) => pyEq(y, x ?? null));
    if (at < 0) throw new PyError("ValueError", `${pyStr(x ?? null)} is not in list`);
    return at;
  },
  count: (l, [x]) => l.filter((y) => pyEq(y, x ?? null)).length,
  copy: (l) => [...l],
  sort: (l, _args, kw) => {
    const sorted = sortValues(l, kw);
    l.splice(0, l.length, ...sorted);
    return null;
  },
  reverse: (l) => {
    l.reverse();
    return null;
  },
  clear: (l) => {
    l.length = 0;
    return null;
  },
};

const DICT_METHODS: Record<string, Impl<Map<PyValue, PyValue>>> = {
  get: (d, [k, dflt]) => (d.has(hashable(k ?? null)) ? d.get(k ?? null)! : (dflt ?? null)),
  pop: (d, [k, dflt]) => {
    const key = hashable(k ?? null);
    if (!d.has(key)) {
      if (dflt === undefined) throw new PyError("KeyError", pyStr(key));
      return dflt;
    }
    const v = d.get(key)!;
    d.delete(key);
    return v;
  },
  setdefault: (d, [k, dflt]) => {
    const key = hashable(k ?? null);
    if (!d.has(key)) d.set(key, dflt ?? null);
    return d.get(key)!;
  },
  update: (d, [o], kw) => {
    if (o instanceof Map) for (const [k, v] of o) d.set(k, v);
    else if (o != null) throw new PyError("TypeError", "dict.update() takes a dict in the subset");
    for (const [k, v] of kw) d.set(k, v);
    return null;
  },
  keys: (d) => [...d.keys()],
  values: (d) => [...d.values()],
  items: (d) => [...d].map(([k, v]) => tuple([k, v])),
  copy: (d) => new Map(d),
};

const SET_METHODS: Record<string, Impl<Set<PyValue>>> = {
  union: (s, args) => new Set([...s, ...args.flatMap((a) => iterate(a).map((x) => hashable(x)))]),
  intersection: (s, [o]) => {
    const other = new Set(iterate(o ?? null));
    return new Set([...s].filter((x) => other.has(x)));
  },
  difference: (s, [o]) => {
    const other = new Set(iterate(o ?? null));
    return new Set([...s].filter((x) => !other.has(x)));
  },
  issubset: (s, [o]) => {
    const other = new Set(iterate(o ?? null));
    return [...s].every((x) => other.has(x));
  },
  issuperset: (s, [o]) => iterate(o ?? null).every((x) => s.has(x)),
  isdisjoint: (s, [o]) => !iterate(o ?? null).some((x) => s.has(x)),
  add: (s, [x]) => {
    s.add(hashable(x ?? null));
    return null;
  },
  copy: (s) => new Set(s),
};

export function methodOf(self: PyValue, name: string): PyCallable {
  const table: Record<string, Impl<never>> | null =
    typeof self === "string"
      ? STR_METHODS
      : Array.isArray(self) && !Object.isFrozen(self)
        ? LIST_METHODS
        : self instanceof Map
          ? DICT_METHODS
          : self instanceof Set
            ? SET_METHODS
            : null;
  const impl = table && Object.hasOwn(table, name) ? (table[name] as Impl<PyValue>) : null;
  if (!impl) {
    if (Array.isArray(self) && Object.isFrozen(self) && (name === "index" || name === "count")) {
      return { callable: true, name, call: (args, kw) => LIST_METHODS[name]!(self as PyValue[], args, kw) };
    }
    throw new PyError("AttributeError", `'${typeName(self)}' object has no attribute '${name}' in the subset`);
  }
  return { callable: true, name, call: (args, kw) => impl(self, args, kw) };
}
