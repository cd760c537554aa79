/**
 * The `re` module, as classic verify() code uses it: search, match, fullmatch, findall, sub,
 * split, compile, escape and the flag constants. Patterns compile with Python's rules through the
 * core's regex engine (`../regex/`), so they mean what they mean in Python or raise `re.error`.
 * All calls of one run share one step budget (`CHECK_STEP_BUDGET`); running out raises the
 * uncatchable `StepLimitExceeded`, so a catastrophic pattern ends the run instead of hanging it.
 */
import { compilePythonRegex, RegexBudgetExceeded, Subject } from "../python-regex";
import { type Budget, type CompiledRegex, newBudget, type RegexMatchResult } from "../regex";
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
function compile(pattern: PyValue | undefined, flags: PyValue | undefined): CompiledRegex {
  const p = str(pattern, "re pattern");
  const bits = flags == null ? 0 : num(flags, "re flags");
  const letters = [
    ...new Set(
      Object.values(FLAGS)
        .filter(([b]) => bits & b)
        .map(([, l]) => l),
    ),
  ].join("");
  const t = compilePythonRegex((letters ? `(?${letters})` : "") + p);
  if (!t.ok) throw new PyError("re.error", t.error);
  return t.regex;
}

function subject(v: PyValue | undefined, what: string): Subject {
  return bounded(() => new Subject(str(v, what)));
}

/** Runs a match under the run's budget; an exhausted budget is the subset's uncatchable limit. */
function bounded<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof RegexBudgetExceeded) throw new PyError("StepLimitExceeded", `re: ${e.message}`);
    throw e;
  }
}

function matchObject(m: RegexMatchResult): PyObject {
  const o = new PyObject("re.Match", new Map());
  const fn = (name: string, call: PyCallable["call"]): PyCallable => ({ callable: true, name, call });
  const pick = (i: PyValue): PyValue => {
    const g = typeof i === "string" ? m.names.get(i) : num(i, "group()");
    if (g === undefined || g < 0 || 2 * g >= m.caps.length) throw new PyError("IndexError", "no such group");
    return m.group(g);
  };
  o.attrs.set(
    "group",
    fn("group", (args) => (args.length <= 1 ? pick(args[0] ?? 0) : tuple(args.map(pick)))),
  );
  o.attrs.set(
    "groups",
    fn("groups", () => tuple(m.groups())),
  );
  o.attrs.set(
    "start",
    fn("start", () => m.start),
  );
  o.attrs.set(
    "end",
    fn("end", () => m.end),
  );
  return o;
}

/** Python replacement templates: `\1`, `\g<1>`, `\g<name>`, character escapes; refused like Python. */
function expandTemplate(repl: string, regex: CompiledRegex): (m: RegexMatchResult) => string {
  const parts: (string | number)[] = [];
  let lit = "";
  for (let i = 0; i < repl.length; i++) {
    const c = repl[i]!;
    if (c !== "\\") {
      lit += c;
      continue;
    }
    const e = repl[++i];
    const at = i - 1;
    let group: number | undefined;
    if (e === undefined) throw new PyError("re.error", `bad escape (end of pattern) at position ${at}`);
    else if (e === "g") {
      const m = /^<([^>]*)>/.exec(repl.slice(i + 1));
      if (!m) throw new PyError("re.error", `missing < at position ${i + 1}`);
      group = /^\d+$/.test(m[1]!) ? Number(m[1]) : regex.names.get(m[1]!);
      if (group === undefined) throw new PyError("IndexError", `unknown group name '${m[1]}'`);
      i += m[0].length;
    } else if (/\d/.test(e)) {
      const d = /^\d{1,2}/.exec(repl.slice(i))![0];
      group = Number(d);
      i += d.length - 1;
    } else if (e in ESCAPES) lit += ESCAPES[e];
    else if (/[a-zA-Z]/.test(e)) throw new PyError("re.error", `bad escape \\${e} at position ${at}`);
    else lit += `\\${e}`;
    if (group !== undefined) {
      if (group > regex.groupCount) throw new PyError("re.error", `invalid group reference ${group} at position ${at + 1}`);
      parts.push(lit, group);
      lit = "";
    }
  }
  parts.push(lit);
  return (m) => parts.map((p) => (typeof p === "number" ? (m.group(p) ?? "") : p)).join("");
}
const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", f: "\f", v: "\v", a: "\x07", b: "\b", "\\": "\\" };

function findall(regex: CompiledRegex, text: Subject, budget: Budget): PyValue {
  return bounded(() => regex.findall(text, budget).map((x) => (Array.isArray(x) ? tuple(x) : x)));
}

function sub(regex: CompiledRegex, repl: string, text: Subject, count: number, budget: Budget): string {
  const expand = expandTemplate(repl, regex);
  return bounded(() => {
    let out = "";
    let last = 0;
    let n = 0;
    for (const m of regex.finditer(text, budget)) {
      if (count > 0 && n++ >= count) break;
      out += text.slice(last, m.start) + expand(m);
      last = m.end;
    }
    return out + text.slice(last, text.length);
  });
}

function split(regex: CompiledRegex, text: Subject, maxsplit: number, budget: Budget): PyValue {
  return bounded(() => {
    const out: PyValue[] = [];
    let last = 0;
    let n = 0;
    for (const m of regex.finditer(text, budget)) {
      if (maxsplit > 0 && n++ >= maxsplit) break;
      out.push(text.slice(last, m.start), ...m.groups());
      last = m.end;
    }
    out.push(text.slice(last, text.length));
    return out;
  });
}

function api(kwargs: Map<string, PyValue>, args: PyValue[], names: string[]): (PyValue | undefined)[] {
  return names.map((n, i) => (kwargs.has(n) ? kwargs.get(n) : args[i]));
}

/** A fresh `re` module for one run; its calls share `budget`. */
export function reModule(budget: Budget = newBudget()): PyObject {
  const mod = new PyObject("module", new Map());
  const fn = (name: string, call: PyCallable["call"]): PyCallable => ({ callable: true, name: `re.${name}`, call });
  const search = (kind: "search" | "match" | "fullmatch") => (args: PyValue[], kw: Map<string, PyValue>) => {
    const [p, s, f] = api(kw, args, ["pattern", "string", "flags"]);
    const regex = compile(p, f);
    const text = subject(s, "string");
    const m = bounded(() => regex[kind](text, budget));
    return m ? matchObject(m) : null;
  };
  mod.attrs.set("search", fn("search", search("search")));
  mod.attrs.set("match", fn("match", search("match")));
  mod.attrs.set("fullmatch", fn("fullmatch", search("fullmatch")));
  mod.attrs.set(
    "findall",
    fn("findall", (args, kw) => {
      const [p, s, f] = api(kw, args, ["pattern", "string", "flags"]);
      return findall(compile(p, f), subject(s, "findall()"), budget);
    }),
  );
  mod.attrs.set(
    "sub",
    fn("sub", (args, kw) => {
      const [p, r, s, c, f] = api(kw, args, ["pattern", "repl", "string", "count", "flags"]);
      const repl = str(r, "sub() replacement (functions are outside the subset)");
      return sub(compile(p, f), repl, subject(s, "sub()"), c == null ? 0 : num(c, "count"), budget);
    }),
  );
  mod.attrs.set(
    "split",
    fn("split", (args, kw) => {
      const [p, s, m, f] = api(kw, args, ["pattern", "string", "maxsplit", "flags"]);
      return split(compile(p, f), subject(s, "split()"), m == null ? 0 : num(m, "maxsplit"), budget);
    }),
  );
  mod.attrs.set(
    "escape",
    fn("escape", ([s]) => str(s, "escape()").replace(/[^A-Za-z0-9_]/gu, (c) => `\\${c}`)),
  );
  mod.attrs.set(
    "compile",
    fn("compile", (args, kw) => {
      const [p, f] = api(kw, args, ["pattern", "flags"]);
      compile(p, f);
      const pat = new PyObject("re.Pattern", new Map());
      const bound = (name: string, positions: number) =>
        fn(name, (a, k) =>
          (mod.attrs.get(name) as PyCallable).call(
            [p!, ...a.slice(0, positions), ...Array(Math.max(0, positions - a.length)).fill(null), ...(f === undefined ? [] : [f])],
            k,
          ),
        );
      pat.attrs.set("search", bound("search", 1));
      pat.attrs.set("match", bound("match", 1));
      pat.attrs.set("fullmatch", bound("fullmatch", 1));
      pat.attrs.set("findall", bound("findall", 1));
      pat.attrs.set(
        "split",
        fn("split", (a) => (mod.attrs.get("split") as PyCallable).call([p!, a[0] ?? null, a[1] ?? 0, f ?? 0], new Map())),
      );
      pat.attrs.set(
        "sub",
        fn("sub", (a) => (mod.attrs.get("sub") as PyCallable).call([p!, a[0] ?? null, a[1] ?? null, a[2] ?? 0, f ?? 0], new Map())),
      );
      return pat;
    }),
  );
  for (const [name, [bit]] of Object.entries(FLAGS)) mod.attrs.set(name, bit);
  return mod;
}
