/**
 * The `re` module, as classic verify() code uses it: search, match, fullmatch, findall, sub,
 * split, compile, and the flag constants. Patterns go through the core's Python-regex translation,
 * so they mean what they mean in Python, or are refused (a `re.error`) — never approximated.
 */
import { compilePythonRegex } from "../python-regex";
import { num } from "./builtins";
import { type PyCallable, PyError, PyObject, type PyValue, tuple } from "./values";

const FLAGS: Record<string, [number, string]> = {
  IGNORECASE: [2, "i"],
  I: [2, "i"],
  MULTILINE: [8, "m"],
  M: [8, "m"],
  DOTALL: [16, "s"],
  S: [16, "s"],
  VERBOSE: [64, "x"],
  X: [64, "x"],
  ASCII: [256, "a"],
  A: [256, "a"],
};

function str(v: PyValue | undefined, what: string): string {
  if (typeof v !== "string") throw new PyError("TypeError", `${what}: expected a str`);
  return v;
}

/** A pattern with the flags argument folded in as leading inline flags, compiled once. */
function compile(pattern: PyValue | undefined, flags: PyValue | undefined, wrap?: (p: string) => string) {
  let p = str(pattern, "re pattern");
  const bits = flags == null ? 0 : num(flags, "re flags");
  const letters = [...new Set(Object.values(FLAGS).filter(([b]) => bits & b).map(([, l]) => l))].join("");
  if (wrap) {
    // Keep leading inline flags in front: Python only accepts them at the start.
    const lead = /^(\(\?[a-zA-Z]+\))*/.exec(p)![0];
    p = lead + wrap(p.slice(lead.length));
  }
  const t = compilePythonRegex((letters ? `(?${letters})` : "") + p);
  if (!t.ok) throw new PyError("re.error", t.error);
  return t;
}

function matchObject(m: RegExpExecArray): PyObject {
  const o = new PyObject("re.Match", new Map());
  const groups = (): PyValue[] => m.slice(1).map((g) => g ?? null);
  const fn = (name: string, call: PyCallable["call"]): PyCallable => ({ callable: true, name, call });
  o.attrs.set("group", fn("group", (args) => {
    const pick = (i: PyValue) => {
      const g = typeof i === "string" ? m.groups?.[i] : m[num(i, "group()")];
      if (g === undefined && (typeof i !== "number" || i > m.length - 1)) throw new PyError("IndexError", "no such group");
      return g ?? null;
    };
    return args.length <= 1 ? pick(args[0] ?? 0) : tuple(args.map(pick));
  }));
  o.attrs.set("groups", fn("groups", () => tuple(groups())));
  o.attrs.set("start", fn("start", () => m.index));
  o.attrs.set("end", fn("end", () => m.index + m[0].length));
  return o;
}

/** First match at or after `from` (search) or exactly at 0 (match), through the shared RegExp. */
function exec(regex: RegExp, text: string, sticky: boolean): RegExpExecArray | null {
  const r = new RegExp(regex.source, regex.flags.replace("g", "") + (sticky ? "y" : ""));
  return r.exec(text);
}

function findall(pattern: PyValue | undefined, text: PyValue | undefined, flags: PyValue | undefined): PyValue {
  const t = compile(pattern, flags);
  const out: PyValue[] = [];
  for (const m of str(text, "findall()").matchAll(t.regex)) {
    if (t.groupCount === 0) out.push(m[0]);
    else if (t.groupCount === 1) out.push(m[1] ?? "");
    else out.push(tuple(m.slice(1).map((g) => g ?? "")));
  }
  return out;
}

/** Python replacement templates (`\1`, `\g<1>`, `\g<name>`) → JS ones; `$` is literal in Python. */
function jsReplacement(repl: string): string {
  return repl
    .replace(/\$/g, "$$$$")
    .replace(/\\g<(\d+)>/g, "$$$1")
    .replace(/\\g<([A-Za-z_]\w*)>/g, "$$<$1>")
    .replace(/\\(\d{1,2})/g, "$$$1")
    .replace(/\\n/g, "\n")
    .replace(/\\t/g, "\t")
    .replace(/\\\\/g, "\\");
}

function sub(pattern: PyValue | undefined, repl: PyValue | undefined, text: PyValue | undefined, count: PyValue | undefined, flags: PyValue | undefined): PyValue {
  const t = compile(pattern, flags);
  const replacement = jsReplacement(str(repl, "sub() replacement (functions are outside the subset)"));
  let left = count == null || num(count, "count") === 0 ? Infinity : num(count, "count");
  return str(text, "sub()").replace(t.regex, (...m: unknown[]) => {
    if (left-- <= 0) return m[0] as string;
    const groups = m.slice(1, t.groupCount + 1) as (string | undefined)[];
    const named = typeof m[m.length - 1] === "object" ? (m[m.length - 1] as Record<string, string | undefined>) : {};
    return replacement.replace(/\$(\$|\d{1,2}|<([A-Za-z_]\w*)>)/g, (_, what: string, name?: string) =>
      what === "$" ? "$" : name ? (named[name] ?? "") : (groups[Number(what) - 1] ?? ""),
    );
  });
}

function api(kwargs: Map<string, PyValue>, args: PyValue[], names: string[]): (PyValue | undefined)[] {
  return names.map((n, i) => (kwargs.has(n) ? kwargs.get(n) : args[i]));
}

export function reModule(): PyObject {
  const mod = new PyObject("module", new Map());
  const fn = (name: string, call: PyCallable["call"]): PyCallable => ({ callable: true, name: `re.${name}`, call });
  const search = (sticky: boolean, full: boolean) => (args: PyValue[], kw: Map<string, PyValue>) => {
    const [p, s, f] = api(kw, args, ["pattern", "string", "flags"]);
    const t = compile(p, f, full ? (x) => `(?:${x})\\Z` : undefined);
    const m = exec(t.regex, str(s, "string"), sticky);
    return m ? matchObject(m) : null;
  };
  mod.attrs.set("search", fn("search", search(false, false)));
  mod.attrs.set("match", fn("match", search(true, false)));
  mod.attrs.set("fullmatch", fn("fullmatch", search(true, true)));
  mod.attrs.set("findall", fn("findall", (args, kw) => findall(...(api(kw, args, ["pattern", "string", "flags"]) as [PyValue, PyValue, PyValue]))));
  mod.attrs.set("sub", fn("sub", (args, kw) => sub(...(api(kw, args, ["pattern", "repl", "string", "count", "flags"]) as [PyValue, PyValue, PyValue, PyValue, PyValue]))));
  mod.attrs.set("split", fn("split", (args, kw) => {
    const [p, s, , f] = api(kw, args, ["pattern", "string", "maxsplit", "flags"]);
    return str(s, "split()").split(compile(p, f).regex).map((x) => x ?? null);
  }));
  mod.attrs.set("escape", fn("escape", ([s]) => str(s, "escape()").replace(/[^A-Za-z0-9_]/gu, (c) => `\\${c}`)));
  mod.attrs.set("compile", fn("compile", (args, kw) => {
    const [p, f] = api(kw, args, ["pattern", "flags"]);
    compile(p, f);
    const pat = new PyObject("re.Pattern", new Map());
    const bound = (name: string, positions: number) =>
      fn(name, (a, k) => (mod.attrs.get(name) as PyCallable).call([p!, ...a.slice(0, positions), ...Array(Math.max(0, positions - a.length)).fill(null), ...(f === undefined ? [] : [f])], k));
    pat.attrs.set("search", bound("search", 1));
    pat.attrs.set("match", bound("match", 1));
    pat.attrs.set("fullmatch", bound("fullmatch", 1));
    pat.attrs.set("findall", bound("findall", 1));
    pat.attrs.set("split", fn("split", (a) => (mod.attrs.get("split") as PyCallable).call([p!, a[0] ?? null, 0, f ?? 0], new Map())));
    pat.attrs.set("sub", fn("sub", (a) => (mod.attrs.get("sub") as PyCallable).call([p!, a[0] ?? null, a[1] ?? null, a[2] ?? 0, f ?? 0], new Map())));
    return pat;
  }));
  for (const [name, [bit]] of Object.entries(FLAGS)) mod.attrs.set(name, bit);
  return mod;
}
