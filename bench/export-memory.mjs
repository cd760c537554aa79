#!/usr/bin/env node
// bench/export-memory — workerd's memory while exporting a 1,000- and a 10,000-result run, in
// all three formats (src/exports/README.md), through the local stack.
//
// Two runs of `manual` answers judged by a scripted model on the fake LLM (bench/lib/manual-run.mjs,
// as bench/submit.mjs): N/4 questions × 2 answering models × 2 replicates each. Then, format by format, the smaller run's export and straight after it the larger one's:
// csv and ndjson streamed by GET /v1/runs/:id/export, karenina built by POST …/exports (the queue,
// 500 results a step, 5 MiB parts) and downloaded. workerd's RSS (every workerd process of the local
// stack, summed; /proc, Linux only) is sampled every 50 ms during each export; the table shows
// the peak, and the last lines compare the peaks at 10,000 with those at 1,000. Beside it, the
// worker isolate's own heap (V8 heap + ArrayBuffers, over the inspector): RSS also holds the
// D1/R2/queue simulators, which grow with the data they read whatever reads it (see --control).
// Target (issue 21): peak at 10,000 ≤ peak at 1,000 + 64 MB. Exit 1 if a format misses it.
//
// --control: instead of exporting, read the same data without the export code — page every result
// through GET …/results (the D1 reads of csv/ndjson) and GET each result's full object (the R2
// reads of the Karenina build) — to tell the export's memory from the local storage simulators'.
//
// --repeat N: each export N times in a row (the target compares the first of each); the lines of the
// repeats show how much RSS every further, identical export keeps (a ratchet, not a working set).
// --formats csv,ndjson,karenina: only those.
// After each export it says where workerd's memory is (bench/lib/workerd-memory.mjs: proxy and
// runtime RSS, anonymous vs file-backed; the V8 heaps of the worker's isolate and of miniflare's
// simulator isolates); --allocator adds tcmalloc's and SQLite's counters (gdb attaches to workerd),
// --release also hands tcmalloc's free pages back and says how much RSS that returned.
//
//   node bench/export-memory.mjs [--small 1000] [--large 10000] [--timeout 1800] [--control] [--repeat N] [--formats F,…]
//                                [--allocator] [--release]
import fs from "node:fs";
import { startLocalStack } from "../scripts/lib/local-stack.mjs";
import { workerdRssMb } from "./lib/proc-cpu.mjs";
import { apiClient } from "../scripts/lib/runs.mjs";
import { OUR_TARGET } from "./lib/inspector.mjs";
import { inspectorCall, inspectorTargets } from "../scripts/lib/workerd-gc.mjs";
import { JUDGE_SCRIPT, manualRun } from "./lib/manual-run.mjs";
import { allocatorStats, formatAllocator, formatMemory, workerdMemory, workerdProcesses } from "./lib/workerd-memory.mjs";

const LIMIT_MB = 64;

function parseArgs(argv) {
  const o = { small: 1000, large: 10000, timeoutS: 1800, control: false, repeat: 1, formats: null, allocator: false, release: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = () => Number(inline ?? argv[++i]);
    if (flag === "--small") o.small = value();
    else if (flag === "--large") o.large = value();
    else if (flag === "--timeout") o.timeoutS = value();
    else if (flag === "--control") o.control = true;
    else if (flag === "--allocator") o.allocator = true;
    else if (flag === "--release") o.allocator = o.release = true;
    else if (flag === "--repeat") o.repeat = value();
    else if (flag === "--formats") o.formats = (inline ?? argv[++i]).split(",");
    else
      throw new Error(
        `unknown option ${argv[i]} (use --small N, --large N, --timeout S, --control, --repeat N, --formats F,…, --allocator, --release)`,
      );
  }
  if (!Number.isInteger(o.repeat) || o.repeat < 1) throw new Error("--repeat needs a whole number ≥ 1");
  for (const f of o.formats ?? [])
    if (!["csv", "ndjson", "karenina"].includes(f)) throw new Error(`--formats: no format ${f} (csv, ndjson, karenina)`);
  for (const n of [o.small, o.large])
    if (!Number.isInteger(n) || n < 4 || n % 4)
      throw new Error("--small / --large need a multiple of 4 (questions × 2 models × 2 replicates)");
  return o;
}

/**
 * The worker isolate's own memory (MB) over the inspector: V8 heap in use plus ArrayBuffer backing
 * stores where V8 reports them. The storage simulators (other isolates) are not in it.
 */
async function isolateMb(inspector) {
  const u = await inspector.send("Runtime.getHeapUsage");
  return (u.usedSize + (u.backingStorageSize ?? 0)) / 1024 / 1024;
}

/** Runs `work` while sampling RSS (50 ms) and the isolate's heap (200 ms); returns its result, the peaks and the values before. */
async function sampled(pgid, inspector, work) {
  const before = workerdRssMb(pgid);
  const heapBefore = await isolateMb(inspector);
  let peak = before;
  let heapPeak = heapBefore;
  let sampling = true;
  const timer = setInterval(() => (peak = Math.max(peak, workerdRssMb(pgid))), 50);
  const heapLoop = (async () => {
    while (sampling) {
      // A sample the pacer's session crowded out is skipped.
      heapPeak = Math.max(heapPeak, await isolateMb(inspector).catch(() => 0));
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  try {
    const t0 = Date.now();
    const out = await work();
    return { ...out, ms: Date.now() - t0, before, peak: Math.max(peak, workerdRssMb(pgid)), heapBefore, heapPeak };
  } finally {
    clearInterval(timer);
    sampling = false;
    await heapLoop;
  }
}

/** Reads a response body to the end, counting bytes and newlines without keeping it. */
async function drain(res) {
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body) {
    bytes += chunk.byteLength;
    for (const b of chunk) if (b === 10) lines++;
  }
  return { bytes, lines };
}

/** One export; karenina is built first (sampled as `build`), then downloaded. */
async function exportOnce(stack, runId, format, phases) {
  const auth = { authorization: `Bearer ${stack.token}` };
  if (format !== "karenina") return drain(await fetch(`${stack.url}/v1/runs/${runId}/export?format=${format}`, { headers: auth }));
  const built = await sampled(stack.pid, stack.heap, async () => {
    const created = await (
      await fetch(`${stack.url}/v1/runs/${runId}/exports`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ format }),
      })
    ).json();
    for (;;) {
      const view = await (await fetch(`${stack.url}${created.status_url}`, { headers: auth })).json();
      if (view.status === "failed") throw new Error(`export failed: ${view.error}`);
      if (view.status === "ready") return { created };
      await new Promise((r) => setTimeout(r, 200));
    }
  });
  phases.build = built;
  return drain(await fetch(`${stack.url}${built.created.download_url}`, { headers: auth }));
}

/** The control: the same D1 pages and R2 objects read through the results routes, no export code. */
async function readOnce(stack, runId, what) {
  const auth = { authorization: `Bearer ${stack.token}` };
  let bytes = 0;
  let lines = 0;
  let cursor = null;
  const ids = [];
  do {
    const res = await fetch(`${stack.url}/v1/runs/${runId}/results?limit=500${cursor ? `&cursor=${cursor}` : ""}`, { headers: auth });
    const text = await res.text();
    const page = JSON.parse(text);
    if (what === "d1-pages") bytes += text.length;
    for (const r of page.results) ids.push(r.metadata.result_id);
    cursor = page.next_cursor;
  } while (cursor);
  if (what === "d1-pages") return { bytes, lines: ids.length };
  for (let i = 0; i < ids.length; i += 8) {
    const texts = await Promise.all(
      ids.slice(i, i + 8).map(async (id) => (await fetch(`${stack.url}/v1/runs/${runId}/results/${id}`, { headers: auth })).text()),
    );
    for (const t of texts) bytes += t.length;
    lines += texts.length;
  }
  return { bytes, lines };
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!fs.existsSync("/proc/self/status")) throw new Error("needs Linux /proc to read workerd's RSS");
  console.log(`bench/export-memory — exports of a ${o.small}- and a ${o.large}-result run; workerd RSS sampled every 50 ms`);
  const FORMATS = o.control ? ["d1-pages", "r2-objects"] : (o.formats ?? ["csv", "ndjson", "karenina"]);
  const stack = await startLocalStack({ fake: { script: JUDGE_SCRIPT }, say: (m) => console.log(`  ${m}`) });
  try {
    // One session per call: the stack's garbage-collection pacer (scripts/lib/workerd-gc.mjs) opens
    // sessions too, and workerd answers neither of two sessions held on one isolate at once.
    const ours = (await inspectorTargets(stack.inspectorPort)).find((t) => t.id === OUR_TARGET);
    stack.heap = { send: (method) => inspectorCall(ours.webSocketDebuggerUrl, method) };
    const api = apiClient(stack.url, stack.token);
    /** Where workerd's memory is now (and the allocator's counters when asked). */
    const where = async (label) => {
      console.log(`  ${label}: ${formatMemory(await workerdMemory(stack.pid, { inspector: stack.heap }))}`);
      const runtime = workerdProcesses(stack.pid).find((p) => p.role === "runtime");
      if (o.allocator && runtime)
        console.log(`  ${" ".repeat(label.length)}  ${formatAllocator(allocatorStats(runtime.pid, { release: o.release }))}`);
    };
    const runs = {};
    for (const n of [o.small, o.large])
      runs[n] = (
        await api.submit(manualRun(n / 4, { judgeBaseUrl: `${stack.fake.url}/v1`, judgeModel: "mem-judge", name: "export-memory" }))
      ).run_id;
    for (const n of [o.small, o.large]) {
      const run = await api.waitForRun(runs[n], { timeoutMs: o.timeoutS * 1000, intervalMs: 2000 });
      console.log(`  run of ${n}: ${run.status}, ${run.progress.done}/${run.progress.total} jobs`);
    }
    await where("runs done");
    const rows = [];
    // Each format's small export, then its large one: the large one's peak is then compared with
    // what stood just before it, not with RSS the other formats' exports left behind in between
    // (workerd keeps what an export raised: --repeat shows it).
    for (const format of FORMATS) {
      for (const n of [o.small, o.large])
        for (let repeat = 1; repeat <= o.repeat; repeat++) {
          const phases = {};
          const r = await sampled(stack.pid, stack.heap, () =>
            o.control ? readOnce(stack, runs[n], format) : exportOnce(stack, runs[n], format, phases),
          );
          if (repeat > 1) {
            const kept = r.peak - r.before;
            console.log(
              `  ${String(n).padStart(6)} ${format.padEnd(9)} again (#${repeat}): RSS before ${r.before.toFixed(0).padStart(4)} MB, peak ${r.peak.toFixed(0).padStart(4)} MB (+${kept.toFixed(0)} MB over its start)`,
            );
            continue;
          }
          rows.push({ n, format, ...r });
          if (phases.build)
            console.log(
              `  ${String(n).padStart(6)} ${"(build)".padEnd(9)} ${" ".repeat(24)}${(phases.build.ms / 1000).toFixed(1).padStart(6)} s  RSS before ${phases.build.before.toFixed(0).padStart(4)} MB, peak ${phases.build.peak.toFixed(0).padStart(4)} MB; isolate heap ${phases.build.heapBefore.toFixed(0).padStart(3)} → peak ${phases.build.heapPeak.toFixed(0).padStart(3)} MB`,
            );
          console.log(
            `  ${String(n).padStart(6)} ${format.padEnd(9)} ${(r.bytes / 1e6).toFixed(1).padStart(7)} MB  ${String(r.lines).padStart(6)} lines  ${(r.ms / 1000).toFixed(1).padStart(6)} s  RSS before ${r.before.toFixed(0).padStart(4)} MB, peak ${r.peak.toFixed(0).padStart(4)} MB; isolate heap ${r.heapBefore.toFixed(0).padStart(3)} → peak ${r.heapPeak.toFixed(0).padStart(3)} MB`,
          );
          await where(`after ${n} ${format}`);
        }
    }
    let ok = true;
    console.log(`\n  peak RSS at ${o.large} vs ${o.small} (target: ≤ +${LIMIT_MB} MB)`);
    for (const format of FORMATS) {
      const small = rows.find((r) => r.n === o.small && r.format === format);
      const large = rows.find((r) => r.n === o.large && r.format === format);
      const delta = large.peak - small.peak;
      const pass = delta <= LIMIT_MB;
      ok &&= pass;
      const heapDelta = large.heapPeak - small.heapPeak;
      console.log(
        `  ${format.padEnd(10)} RSS ${small.peak.toFixed(0)} → ${large.peak.toFixed(0)} MB (${delta >= 0 ? "+" : ""}${delta.toFixed(0)} MB) ${pass ? "ok" : "OVER"}; isolate heap peak ${small.heapPeak.toFixed(0)} → ${large.heapPeak.toFixed(0)} MB (${heapDelta >= 0 ? "+" : ""}${heapDelta.toFixed(0)} MB)`,
      );
    }
    return ok ? 0 : 1;
  } finally {
    await stack.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
