#!/usr/bin/env node
// check:core — the platform-free core must stay platform-free.
//
// Scans every source file under src/pipeline, src/templates, src/rubric, src/judges, src/core-shared and src/scenarios, follows
// their relative imports (transitively, wherever they lead), and fails if any file reached that way
//   - imports a forbidden package: cloudflare:*, openai, @anthropic-ai/sdk, hono (and subpaths),
//     a .wasm or */wasm specifier, or a QuickJS wasm variant (@jitl/quickjs-*, quickjs-emscripten);
//   - or reaches an edge module: src/{submit,jobs,coordinator,limiter,adapters,storage,http,run}/**,
//     src/index.*, or src/llm/** other than src/llm/port.ts and src/llm/prices.ts (pure data).
// Type-only imports (`import type …`, `export type … from`, `import { type A }`) are ignored: they
// are erased at compile time and load nothing, so they cannot tie the core to a platform.
//
// It also prints the folder import graph of src/ (a file's folder is its top folder under src/;
// type-only imports count) and fails on any cycle in it.
//
// Usage: node scripts/check-core.mjs [rootDir]   (rootDir defaults to the repository root)
// Exit 0 when clean, 1 with one "file:line: …" line per offending import otherwise.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const CORE_DIRS = ["src/pipeline", "src/templates", "src/rubric", "src/judges", "src/core-shared", "src/scenarios"];
const SOURCE_EXT = [".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".jsx"];

/** Why an import specifier is forbidden anywhere the core reaches, or null. */
export function forbiddenPackage(spec) {
  if (spec.startsWith("cloudflare:")) return "Cloudflare runtime module";
  if (/\.wasm(\?.*)?$/.test(spec) || /\/wasm$/.test(spec)) return "WebAssembly module";
  const pkg = (name) => spec === name || spec.startsWith(`${name}/`);
  if (pkg("openai")) return "OpenAI SDK";
  if (pkg("@anthropic-ai/sdk")) return "Anthropic SDK";
  if (pkg("hono")) return "Hono (HTTP edge)";
  if (spec.startsWith("@jitl/quickjs-") || pkg("quickjs-emscripten")) return "QuickJS wasm variant";
  return null;
}

/**
 * Modules of src/llm the core may import: the port contract and the price table (plain data
 * validated with zod). Everything else there talks to SDKs or bindings.
 */
const CORE_SAFE_LLM = new Set(["src/llm/port.ts", "src/llm/prices.ts"]);

/** Folders of edge code (bindings, SDKs, HTTP). src/run/ held all of it before the split by role. */
const EDGE_DIRS = [
  "src/submit/",
  "src/jobs/",
  "src/coordinator/",
  "src/limiter/",
  "src/adapters/",
  "src/storage/",
  "src/http/",
  "src/run/",
];

/** Why a repository-relative path is an edge module the core must not reach, or null. */
export function edgeModule(rel) {
  const p = rel.split(path.sep).join("/");
  for (const dir of EDGE_DIRS) if (p.startsWith(dir)) return `edge folder ${dir.slice(0, -1)}`;
  if (/^src\/index\.[cm]?[jt]sx?$/.test(p)) return "worker entry src/index";
  if (p.startsWith("src/llm/") && !CORE_SAFE_LLM.has(p)) return "LLM adapter (only src/llm/port.ts and prices.ts are allowed)";
  return null;
}

/** Blanks out comments (keeping newlines and string literals) so line numbers stay right. */
function stripComments(src) {
  let out = "";
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    const n = src[i + 1];
    if (c === "/" && n === "/") {
      while (i < src.length && src[i] !== "\n") (out += " "), i++;
    } else if (c === "/" && n === "*") {
      out += "  ";
      i += 2;
      while (i < src.length && !(src[i] === "*" && src[i + 1] === "/")) (out += src[i] === "\n" ? "\n" : " "), i++;
      out += "  ";
      i += 2;
    } else if (c === '"' || c === "'" || c === "`") {
      const q = c;
      out += c;
      i++;
      while (i < src.length && src[i] !== q) {
        if (src[i] === "\\") (out += src[i] + (src[i + 1] ?? "")), (i += 2);
        else if (q !== "`" && src[i] === "\n")
          break; // unterminated: give up on this literal
        else (out += src[i]), i++;
      }
      if (i < src.length) (out += src[i]), i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const lineOf = (text, index) => text.slice(0, index).split("\n").length;

/** @returns {{spec: string, line: number}[]} the runtime (non type-only) imports of a source text */
export function runtimeImports(source) {
  return imports(source, false);
}

/** @returns {{spec: string, line: number}[]} every import of a source text, type-only ones included */
export function allImports(source) {
  return imports(source, true);
}

function imports(source, withTypes) {
  const text = stripComments(source);
  const found = [];
  // import/export … from "x" — the clause may span lines but never holds `;`, `=`, quotes or another import/export
  const fromRe = /\b(import|export)\s+((?:(?!\b(?:import|export)\b)[^;='"`])*?)\s*\bfrom\s*(["'])([^"'\n]+)\3/g;
  for (const m of text.matchAll(fromRe)) {
    const clause = m[2].trim();
    if (withTypes) {
      found.push({ spec: m[4], index: m.index + m[0].lastIndexOf(m[4]) });
      continue;
    }
    if (/^type\b/.test(clause) && !/^type\s*,/.test(clause)) continue; // import type … / export type …
    const braces = clause.match(/^\{([^}]*)\}$/);
    if (braces) {
      const names = braces[1]
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      if (names.length > 0 && names.every((s) => /^type\s/.test(s))) continue; // import { type A, type B }
    }
    found.push({ spec: m[4], index: m.index + m[0].lastIndexOf(m[4]) });
  }
  for (const re of [
    /\bimport\s*(["'])([^"'\n]+)\1/g, // side-effect import
    /\bimport\s*\(\s*(["'])([^"'\n]+)\1/g, // dynamic import
    /\brequire\s*\(\s*(["'])([^"'\n]+)\1\s*\)/g,
  ]) {
    for (const m of text.matchAll(re)) found.push({ spec: m[2], index: m.index + m[0].lastIndexOf(m[2]) });
  }
  return found.map(({ spec, index }) => ({ spec, line: lineOf(text, index) }));
}

function listSources(dir) {
  if (!fs.existsSync(dir)) return [];
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listSources(full));
    else if (SOURCE_EXT.some((e) => entry.name.endsWith(e))) out.push(full);
  }
  return out.sort();
}

/** Resolves a relative specifier the way the bundler would (TS-style `./x.js` → x.ts included). */
function resolveRelative(fromFile, spec) {
  const base = path.resolve(path.dirname(fromFile), spec);
  const candidates = [base];
  const ext = path.extname(base);
  if ([".js", ".mjs", ".cjs", ".jsx"].includes(ext)) {
    const stem = base.slice(0, -ext.length);
    candidates.push(...[".ts", ".tsx", ".mts", ".cts"].map((e) => stem + e));
  }
  candidates.push(...SOURCE_EXT.map((e) => base + e), ...SOURCE_EXT.map((e) => path.join(base, `index${e}`)));
  return candidates.find((c) => fs.existsSync(c) && fs.statSync(c).isFile()) ?? null;
}

/**
 * @param {string} root repository root
 * @returns {{ violations: {file: string, line: number, spec: string, why: string, via: string[]}[], scanned: number, coreFiles: number }}
 */
export function checkCore(root) {
  const rel = (f) => path.relative(root, f).split(path.sep).join("/");
  const coreFiles = CORE_DIRS.flatMap((d) => listSources(path.join(root, d)));
  const violations = [];
  const seen = new Set();
  /** @type {{file: string, via: string[]}[]} */
  const queue = coreFiles.map((file) => ({ file, via: [] }));
  while (queue.length > 0) {
    const { file, via } = queue.shift();
    if (seen.has(file)) continue;
    seen.add(file);
    for (const { spec, line } of runtimeImports(fs.readFileSync(file, "utf8"))) {
      const where = `${rel(file)}:${line}`;
      const forbidden = forbiddenPackage(spec);
      if (forbidden) {
        violations.push({ file: rel(file), line, spec, why: forbidden, via });
      } else if (spec.startsWith(".")) {
        const target = resolveRelative(file, spec);
        if (!target) continue; // unresolved: the type checker reports that, not us
        const why = edgeModule(rel(target));
        if (why) violations.push({ file: rel(file), line, spec, why: `reaches ${why} (${rel(target)})`, via });
        else queue.push({ file: target, via: [...via, where] });
      }
    }
  }
  return { violations, scanned: seen.size, coreFiles: coreFiles.length };
}

/** The graph node of a file: its top folder under src/ (`src/pipeline`), or the file itself at src/'s top. */
export function folderOf(rel) {
  const parts = rel.split("/");
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : rel;
}

/**
 * src/env.ts types the bindings, and a binding's type names the Durable Object class it reaches,
 * whose constructor takes the bindings: a type-only loop that every Worker with Durable Objects
 * has and that loads nothing. Those references (`DurableObjectNamespace<import("…").Class>`) out
 * of src/env.ts are left out.
 */
const TYPE_EDGES_IGNORED_FROM = new Set(["src/env.ts"]);

/**
 * Folder edges that still close a cycle, each with what it would take to remove it (edge → reason).
 * Empty since issue 13 removed the last seven: any edge that closes a cycle fails the check. The
 * mechanism stays for an edge that must land before its fix, and it only shrinks: an entry whose
 * edge is gone is printed as stale.
 */
/** @type {Map<string, string>} */
export const KNOWN_BACK_EDGES = new Map();

/**
 * The folder import graph of src/ (every relative import, type-only ones included: a type import
 * ties folders together as much as a value import does) and its cycles.
 * @returns {{ edges: Map<string, Map<string, string>>, cycles: string[][], stale: string[] }} edges: from → (to → one
 *   file:line that makes the edge); cycles: those left with KNOWN_BACK_EDGES taken out; stale: known edges no longer there
 */
export function folderGraph(root) {
  const rel = (f) => path.relative(root, f).split(path.sep).join("/");
  /** @type {Map<string, Map<string, string>>} */
  const edges = new Map();
  for (const file of listSources(path.join(root, "src"))) {
    const from = folderOf(rel(file));
    if (!edges.has(from)) edges.set(from, new Map());
    const source = fs.readFileSync(file, "utf8");
    const lines = source.split("\n");
    for (const { spec, line } of allImports(source)) {
      if (!spec.startsWith(".")) continue;
      if (TYPE_EDGES_IGNORED_FROM.has(rel(file)) && /DurableObjectNamespace<import\(/.test(lines[line - 1] ?? "")) continue;
      const target = resolveRelative(file, spec);
      if (!target) continue;
      const to = folderOf(rel(target));
      if (to === from || !rel(target).startsWith("src/")) continue;
      if (!edges.get(from).has(to)) edges.get(from).set(to, `${rel(file)}:${line}`);
    }
  }
  const present = new Set([...edges].flatMap(([from, tos]) => [...tos.keys()].map((to) => `${from} → ${to}`)));
  const checked = new Map(
    [...edges].map(([from, tos]) => [from, new Map([...tos].filter(([to]) => !KNOWN_BACK_EDGES.has(`${from} → ${to}`)))]),
  );
  const stale = [...KNOWN_BACK_EDGES.keys()].filter((e) => !present.has(e));
  return { edges, cycles: stronglyConnected(checked).filter((c) => c.length > 1), stale };
}

/** Tarjan's strongly connected components; each component's members sorted. */
function stronglyConnected(edges) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      out.push(comp.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

function main() {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."));
  const { edges, cycles, stale } = folderGraph(root);
  console.log("check:core: folder import graph of src/ (type-only imports included; * = a known back edge, KNOWN_BACK_EDGES):");
  for (const [from, tos] of [...edges].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const targets = [...tos.keys()].sort().map((to) => (KNOWN_BACK_EDGES.has(`${from} → ${to}`) ? `${to}*` : to));
    if (targets.length > 0) console.log(`  ${from} → ${targets.join(", ")}`);
  }
  let code = 0;
  // Not fatal: a tree without one of the folders (a fixture, a partial checkout) has none of its edges.
  if (stale.length > 0) console.log(`check:core: KNOWN_BACK_EDGES lists edges that are gone; remove them: ${stale.join("; ")}`);
  if (cycles.length > 0) {
    console.error(`check:core: ${cycles.length} folder import cycle(s) in src/:`);
    for (const cycle of cycles) {
      console.error(`  ${cycle.join(" ↔ ")}`);
      for (const from of cycle) {
        for (const [to, where] of edges.get(from) ?? []) if (cycle.includes(to)) console.error(`    ${from} → ${to}  (${where})`);
      }
    }
    console.error("Move what both sides need to a folder both may import (src/lib/ for generic helpers).");
    code = 1;
  }
  const { violations, scanned, coreFiles } = checkCore(root);
  if (violations.length === 0) {
    console.log(
      `check:core: ok — ${coreFiles} core files, ${scanned} files scanned with their relative imports${code ? "" : "; no folder cycles"}`,
    );
    return code;
  }
  console.error(`check:core: ${violations.length} forbidden import(s) in the platform-free core (${CORE_DIRS.join(", ")}):`);
  for (const v of violations) {
    const chain = v.via.length > 0 ? `  [reached via ${v.via.join(" -> ")}]` : "";
    console.error(`  ${v.file}:${v.line}: import "${v.spec}" — ${v.why}${chain}`);
  }
  console.error("The core gets models, clock, ids and storage through ports; move platform code to the edges.");
  return 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();
