// What a `perf record` sample of workerd was doing, from its DSO and symbol (bench/floor-perf.mjs).
// workerd's binary carries V8's builtins and bytecode handlers, so JavaScript that has not been
// optimised shows as `Builtins_*` in the workerd DSO; only optimised code is in the `[JIT]` map that
// `--perf-basic-prof` writes. The groups are coarse on purpose: they say where a gap between two
// workers lies (more compiling, more GC, more I/O plumbing), not which function to change.

/** The groups, in the order the bench prints them. */
export const PERF_GROUPS = [
  "V8 runtime and workerd's bindings",
  "V8 builtins and interpreter",
  "parsing and compiling",
  "allocator and other native code",
  "kernel",
  "libc",
  "workerd I/O",
  "GC",
  "KJ event loop",
  "optimised JavaScript",
  "SQLite",
  "Cap'n Proto",
];

const GC = /Scaveng|MarkCompact|Marking|Sweep|Heap::|Evacuat|RememberedSet|MinorMS|ConcurrentMark|cppgc::internal::(Marker|Sweeper)/;
const COMPILE =
  /Parser|Parse[A-Z]|Compiler|compiler::|maglev|Maglev|Bytecode(Generator|Array)|Sparkplug|baseline::|Scanner|Preparse|AstNode|AstValue|turboshaft/;

/** The group of one sample, from `perf report`'s dso and symbol columns. */
export function perfGroup(dso, sym) {
  if (dso.startsWith("[JIT]")) return "optimised JavaScript";
  if (dso.startsWith("[kernel")) return "kernel";
  if (/^libc[.-]/.test(dso)) return "libc";
  if (sym.startsWith("Builtins_")) return "V8 builtins and interpreter";
  if (/sqlite3/i.test(sym)) return "SQLite";
  if (GC.test(sym)) return "GC";
  if (COMPILE.test(sym)) return "parsing and compiling";
  if (/v8::|Runtime_|jsg::/.test(sym)) return "V8 runtime and workerd's bindings";
  if (/capnp::/.test(sym)) return "Cap'n Proto";
  if (/kj::/.test(sym)) return "KJ event loop";
  if (/workerd::/.test(sym)) return "workerd I/O";
  return "allocator and other native code";
}

/**
 * `perf report -q -F sample,dso,sym --sort dso,sym` lines → samples per group and per symbol.
 * A line reads `  <samples>  <dso>  [<k or .>]  <symbol>`; the `[JIT] tid N` dso holds a space.
 */
export function groupReport(text) {
  const groups = new Map(PERF_GROUPS.map((g) => [g, 0]));
  const symbols = new Map();
  let total = 0;
  for (const line of text.split("\n")) {
    const m = /^\s*(\d+)\s+(\[JIT\] tid \d+|\S+)\s+\[.\]\s+(.*)$/.exec(line);
    if (!m) continue;
    const n = Number(m[1]);
    const sym = m[3].trim();
    const group = perfGroup(m[2], sym);
    groups.set(group, groups.get(group) + n);
    // One key per symbol whatever the thread: a [JIT] dso is named by its thread id.
    const key = `${group}\t${sym}`;
    symbols.set(key, (symbols.get(key) ?? 0) + n);
    total += n;
  }
  return { total, groups, symbols };
}
