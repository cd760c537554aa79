#!/usr/bin/env node
// node bench/sandbox.mjs — cost and stopping times of the JavaScript custom-verify sandbox.
//
// Bundles src/sandbox (the same TS the Worker runs) with esbuild, loading QuickJS's wasm as a
// compiled module as workerd does, and times, with the default limits:
//   call        — one verify on a small answer: fresh runtime + context, JSON in, JSON out, dispose
//   call 100KB  — the same with a 100 KB raw trace
//   loop stop   — `for (;;) {}` stopped by the interrupt-count cap, with a frozen clock (the edge)
//   oom stop    — unbounded object allocation stopped by the heap cap
//   then, per program of the runaway corpus, the CPU until it was stopped and the message
// Figures are the median and p95 in ms over N calls after a warm-up. Node's V8 runs the wasm here,
// workerd's V8 on the edge: same engine, so the figures carry over roughly. Asserts nothing.
//
//   node bench/sandbox.mjs [--calls N (default 200)]
import { build } from "esbuild";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = path.resolve(import.meta.dirname, "..");
const calls = Number(process.argv[process.argv.indexOf("--calls") + 1]) || 200;

async function loadSandbox() {
  const wasmPath = createRequire(path.join(ROOT, "package.json")).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
  const dir = mkdtempSync(path.join(tmpdir(), "edgeval-bench-"));
  const outfile = path.join(dir, "sandbox.mjs");
  await build({
    stdin: {
      contents:
        'export { callInSandbox, DEFAULT_LIMITS } from "./src/sandbox/quickjs";\nexport { verifyJavaScript } from "./src/sandbox/js-verify";\nexport { RUNAWAY_PROGRAMS } from "./test/fixtures/runaway-programs";',
      resolveDir: ROOT,
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "node",
    outfile,
    logLevel: "warning",
    plugins: [
      {
        name: "wasm-as-module",
        setup(b) {
          b.onResolve({ filter: /quickjs-wasmfile-release-sync\/wasm$/ }, () => ({ path: wasmPath, namespace: "wasm-module" }));
          b.onLoad({ filter: /.*/, namespace: "wasm-module" }, () => ({
            contents: `import { readFileSync } from "node:fs"; export default new WebAssembly.Module(readFileSync(${JSON.stringify(wasmPath)}));`,
            resolveDir: ROOT,
            loader: "js",
          }));
        },
      },
    ],
  });
  try {
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function time(n, fn) {
  for (let i = 0; i < Math.min(10, n); i++) await fn();
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(n / 2)], p95: ms[Math.min(n - 1, Math.floor(n * 0.95))] };
}

const { callInSandbox, verifyJavaScript, DEFAULT_LIMITS, RUNAWAY_PROGRAMS } = await loadSandbox();
const frozen = { now: () => 0 };
const req = (source, raw_trace = "The gene is BCL2.") => ({
  language: "javascript",
  source,
  parsed: { gene: "BCL2", count: 3 },
  ground_truth: { gene: "bcl2", count: 3 },
  raw_trace,
});
const small =
  "function verify(a, gt, c) { return { verify_result: a.gene.toLowerCase() === gt.gene && c.raw_trace.includes('BCL2'), field_results: { gene: true } }; }";
const check = async (out, want) => {
  const r = await out;
  if (r.ok !== want) throw new Error(`unexpected outcome: ${JSON.stringify(r)}`);
};

const rows = [
  ["call", await time(calls, () => check(verifyJavaScript(req(small)), true))],
  ["call 100KB", await time(calls, () => check(verifyJavaScript(req(small, `BCL2 ${"x".repeat(100_000)}`)), true))],
  [
    "loop stop",
    await time(Math.max(3, calls / 40), () =>
      check(callInSandbox("function verify() { for (;;) {} }", "verify", [], { clock: frozen }), false),
    ),
  ],
  [
    "oom stop",
    await time(Math.max(3, calls / 40), () =>
      check(
        callInSandbox("function verify() { const xs = []; for (;;) xs.push({ n: xs.length, s: 'x' + xs.length }); }", "verify", [], {
          clock: frozen,
        }),
        false,
      ),
    ),
  ],
];
console.log(`limits: ${JSON.stringify(DEFAULT_LIMITS)}; node ${process.version}`);
console.log("what          median ms    p95 ms");
for (const [what, { median, p95 }] of rows)
  console.log(`${what.padEnd(12)} ${median.toFixed(2).padStart(10)} ${p95.toFixed(2).padStart(9)}`);

// The runaway corpus (test/fixtures/runaway-programs.ts) with the default limits and a frozen
// clock: how each program ends and the CPU it took (process.cpuUsage, one run each).
console.log("\nrunaway program                               CPU ms  how it ended");
for (const p of RUNAWAY_PROGRAMS) {
  const t0 = process.cpuUsage();
  const r = await callInSandbox(`function verify() { ${p.body} }`, "verify", [], { clock: frozen });
  const d = process.cpuUsage(t0);
  console.log(
    `${p.name.padEnd(44)} ${((d.user + d.system) / 1000).toFixed(0).padStart(7)}  ${r.ok ? "RETURNED " + JSON.stringify(r.value) : r.error}`,
  );
}
