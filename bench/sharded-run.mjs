#!/usr/bin/env node
// bench/sharded-run — a very large run through the local stack: sharded aggregation
// (src/coordinator/shards.ts) at 2,000 and 20,000 jobs, on one workerd.
//
// Each run is N questions × 1 manual answering model (answers in the request: no answering call) ×
// 1 judge on the fake LLM (its scripted structured reply passes every answer), so each job is one
// judge call. The stack is what `npm start` runs (state on disk in a fresh --persist-to directory,
// as `npm start`; `npm run dev` keeps it in .wrangler/state), with COORDINATOR_SHARD_JOBS at its
// default (5,000: 2,000 jobs on one coordinator, 20,000 on 4 shards) unless --shard-jobs sets it.
// For each N it prints the wall time (POST returned → the run's finished_at), results/s, the
// shards, the results the export reads back from D1 (every result once: rows = distinct result
// ids = N), what a status poll of the finished run costs (GET /v1/runs/:id, the median of 30 in a
// row) and workerd's resident memory (peak while the run went, and after), then whether memory
// stayed flat within the largest run (issue 19: "workerd RSS at 20,000 ≤ RSS at 2,000 + 64 MB"):
// the RSS peak while its last 5 % of results came in ≤ the peak while its results a tenth of the
// way in did (1,000–2,000 of 20,000) + 64 MB (RSS sampled every 250 ms, each sample placed on the
// run's progress between the reads around it: bench/lib/run-rss.mjs); and, as a second figure, the
// peaks of the runs against each other. The stack runs the runtime's garbage-collection pacer, as
// npm start does (scripts/lib/workerd-gc.mjs; EDGEVAL_LOCAL_GC_PACER=off to see the stack without it).
//
// After each N it also says where workerd's memory is (bench/lib/workerd-memory.mjs): the proxy and
// the runtime process (anonymous vs file-backed RSS), the V8 heap of the worker's isolate and of
// miniflare's simulator isolates; with --allocator also tcmalloc's live bytes, what it holds free
// and SQLite's heap (gdb attaches to workerd; with --release it hands free pages back first).
//
// The judge's key: without --key-limits it has openai_compatible's default limits (60,000 requests
// a minute, 64 calls at once: src/limiter/limiter-state.ts); --key-limits rpm=…,concurrency=…
// (bench/lib/provider-key.mjs) sets others.
//
//   node bench/sharded-run.mjs [--jobs 2000,20000] [--shard-jobs N] [--key-limits rpm=…,concurrency=…]
//                              [--latency-ms 0] [--timeout 1800] [--allocator] [--release]
import os from "node:os";
import { startFakeLlm } from "../test/fake-llm/server.mjs";
import { startLocalStack } from "../scripts/lib/local-stack.mjs";
import { workerdRssMb } from "./lib/proc-cpu.mjs";
import { apiClient } from "../scripts/lib/runs.mjs";
import { keyWithLimits, parseKeyLimits } from "./lib/provider-key.mjs";
import { allocatorStats, formatAllocator, formatMemory, OUR_TARGET, workerdMemory, workerdProcesses } from "./lib/workerd-memory.mjs";
import { runMain } from "./lib/run-main.mjs";
import { rssAt } from "./lib/run-rss.mjs";

const FLAT_MB = 64;
/** COORDINATOR_SHARD_JOBS when the stack does not set it (src/config.ts). */
const DEFAULT_SHARD_JOBS = 5_000;

function parseArgs(argv) {
  const o = { jobs: [2_000, 20_000], shardJobs: null, keyLimits: null, latencyMs: 0, timeoutS: 1_800, allocator: false, release: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    if (flag === "--allocator") o.allocator = true;
    else if (flag === "--release") o.allocator = o.release = true;
    else {
      const value = inline ?? argv[++i];
      if (flag === "--jobs") o.jobs = value.split(",").map(Number);
      else if (flag === "--shard-jobs") o.shardJobs = Number(value);
      else if (flag === "--key-limits") o.keyLimits = parseKeyLimits(value);
      else if (flag === "--latency-ms") o.latencyMs = Number(value);
      else if (flag === "--timeout") o.timeoutS = Number(value);
      else
        throw new Error(
          `unknown option ${argv[i]} (use --jobs, --shard-jobs, --key-limits, --latency-ms, --timeout, --allocator, --release)`,
        );
    }
  }
  if (!o.jobs.every((n) => n > 0) || !(o.shardJobs === null || o.shardJobs > 0))
    throw new Error("--jobs and --shard-jobs take numbers > 0");
  return o;
}

function buildRun(n, baseUrl, secretName) {
  const questions = Array.from({ length: n }, (_, i) => ({
    id: `sr-${i}`,
    question: `Is ${i} a number?`,
    template: {
      fields: [
        {
          name: "answer_is_right",
          type: "bool",
          description: "True if the response says yes",
          ground_truth: true,
          verify_with: { type: "BooleanMatch" },
        },
      ],
    },
  }));
  return {
    run_name: `bench:sharded-run ${n}`,
    benchmark: { name: `bench:sharded-run ${n} jobs`, questions },
    config: {
      answering_models: [{ id: "manual", interface: "manual", manual_answers: Object.fromEntries(questions.map((q) => [q.id, "Yes."])) }],
      parsing_models: [
        {
          id: "judge",
          interface: "openai_compatible",
          model_name: "sr-judge",
          base_url: baseUrl,
          temperature: 0,
          ...(secretName ? { api_key_secret: secretName } : {}),
        },
      ],
      replicate_count: 1,
    },
  };
}

/** Every result the run's export reads from D1: rows and distinct result ids. */
async function exportedResults(stack, token, runId) {
  const res = await fetch(`${stack.url}/v1/runs/${runId}/export?format=ndjson`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`export → ${res.status}: ${await res.text()}`);
  const lines = (await res.text()).split("\n").filter(Boolean);
  return { rows: lines.length, distinct: new Set(lines.map((l) => JSON.parse(l).metadata.result_id)).size };
}

/** The worker isolate's V8 heap in use plus its ArrayBuffers (MB; null without the runtime's inspector). */
function ourHeapMb({ isolates }) {
  const ours = Object.entries(isolates ?? {}).filter(([id, v]) => id === OUR_TARGET && !v.error);
  return ours.length ? ours.reduce((sum, [, v]) => sum + v.used + v.buffers, 0) : null;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  console.log(
    `bench/sharded-run — jobs ${o.jobs.join(", ")}; COORDINATOR_SHARD_JOBS ${o.shardJobs ?? `${DEFAULT_SHARD_JOBS} (default)`}; judge key limits ${o.keyLimits ? JSON.stringify(o.keyLimits) : "openai_compatible's defaults (60,000 a minute, 64 at once)"}; judge latency ${o.latencyMs} ms; load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  const fake = await startFakeLlm({ latencyMs: o.latencyMs });
  const vars = o.shardJobs === null ? {} : { COORDINATOR_SHARD_JOBS: String(o.shardJobs) };
  const stack = await startLocalStack({ vars, say: (m) => console.log(`  ${m}`) });
  const shardJobs = o.shardJobs ?? DEFAULT_SHARD_JOBS;
  /** Where workerd's memory is now (and the allocator's counters when asked). */
  const where = async (label) => {
    console.log(`  ${label}: ${formatMemory(await workerdMemory(stack.pid))}`);
    const runtime = workerdProcesses(stack.pid).find((p) => p.role === "runtime");
    if (o.allocator && runtime)
      console.log(`  ${" ".repeat(label.length)}  ${formatAllocator(allocatorStats(runtime.pid, { release: o.release }))}`);
  };
  const rows = [];
  try {
    const key = o.keyLimits ? await keyWithLimits(stack, fake.url, o.keyLimits, "bench-sharded-run") : null;
    const api = apiClient(stack.url, key?.token ?? stack.token);
    await where("idle");
    for (const n of o.jobs) {
      const submitted = await api.submit(buildRun(n, `${fake.url}/v1`, key?.secretName));
      const t0 = Date.now();
      // RSS samples and progress reads, each with its time, for the RSS of the run at a point of
      // its progress (run-rss.mjs). A sample at each read too: the last one is taken with every
      // result in.
      const samples = [];
      const progress = [{ t: t0, done: 0 }];
      const sample = () => samples.push({ t: Date.now(), rss: workerdRssMb(stack.pid) });
      sample();
      const sampler = setInterval(sample, 250);
      let last = 0;
      const run = await api
        .waitForRun(submitted.run_id, {
          timeoutMs: o.timeoutS * 1000,
          intervalMs: 1000,
          onProgress: (r, ms) => {
            if (typeof r?.progress?.done === "number") progress.push({ t: Date.now(), done: r.progress.done });
            sample();
            if (ms - last < 10_000) return;
            last = ms;
            console.log(
              `  [${(ms / 1000).toFixed(0).padStart(5)} s] ${n} jobs: ${r?.status} ${r?.progress?.done}/${r?.progress?.total}, workerd ${workerdRssMb(stack.pid).toFixed(0)} MB`,
            );
          },
        })
        .finally(() => clearInterval(sampler));
      const finishedAt = Date.parse(run.finished_at ?? "") || Date.now();
      const wallMs = finishedAt - t0;
      // The read that saw the run over came after it ended: its results were all in at finished_at.
      progress.splice(-1, 1, { t: Math.min(finishedAt, progress.at(-1).t), done: run.progress.done });
      const exported = await exportedResults(stack, key?.token ?? stack.token, submitted.run_id);
      const pollMs = await statusPollMs(api, submitted.run_id);
      const row = {
        n,
        shards: n > shardJobs ? Math.ceil(n / shardJobs) : 1,
        status: run.status,
        done: run.progress.done,
        wallS: wallMs / 1000,
        perS: run.progress.done / (wallMs / 1000),
        ...exported,
        peakMb: Math.max(...samples.map((x) => x.rss)),
        afterMb: workerdRssMb(stack.pid),
        atTenth: rssAt(samples, progress, n / 10, n),
        atEnd: rssAt(samples, progress, n, n),
        heapMb: ourHeapMb(await workerdMemory(stack.pid)),
        submitMs: submitted.submit_ms,
        pollMs,
      };
      rows.push(row);
      console.log(
        `  ${n} jobs: ${row.status}, ${row.done} results in ${row.wallS.toFixed(1)} s = ${row.perS.toFixed(0)} results/s over ${row.shards} shard(s); export ${row.rows} rows, ${row.distinct} distinct; workerd RSS peak ${row.peakMb.toFixed(0)} MB, after ${row.afterMb.toFixed(0)} MB; worker isolate heap ${row.heapMb?.toFixed(0) ?? "n/a"} MB (submit ${row.submitMs.toFixed(0)} ms; GET /v1/runs/:id p50 ${row.pollMs.toFixed(1)} ms)`,
      );
      await where(`after ${n}`);
    }
  } finally {
    await stack.stop();
    await fake.close();
  }
  console.log(
    "\n  jobs    shards  status     results  wall s   results/s  export rows/distinct  RSS peak MB  RSS after MB  isolate heap MB  poll p50 ms",
  );
  for (const r of rows) {
    console.log(
      `  ${String(r.n).padEnd(7)} ${String(r.shards).padEnd(7)} ${r.status.padEnd(10)} ${String(r.done).padEnd(8)} ${r.wallS.toFixed(1).padEnd(8)} ${r.perS.toFixed(0).padEnd(10)} ${`${r.rows}/${r.distinct}`.padEnd(21)} ${r.peakMb.toFixed(0).padEnd(12)} ${r.afterMb.toFixed(0).padEnd(13)} ${(r.heapMb?.toFixed(0) ?? "n/a").padEnd(16)} ${r.pollMs.toFixed(1)}`,
    );
  }
  const once = rows.every((r) => r.status === "completed" && r.done === r.n && r.rows === r.n && r.distinct === r.n);
  const first = rows[0];
  const lastRow = rows.at(-1);
  // Issue 19: "a 20,000-job run … flat memory (workerd RSS at 20,000 ≤ RSS at 2,000 + 64 MB)": within
  // the largest run, the RSS while its last results came in against while its 2,000th did (a tenth).
  const flat = lastRow.atEnd !== null && lastRow.atTenth !== null && lastRow.atEnd <= lastRow.atTenth + FLAT_MB;
  const mb = (x) => (x === null ? "n/a" : `${x.toFixed(0)} MB`);
  console.log(`\n  every result recorded once: ${once ? "yes" : "NO"}`);
  console.log(
    `  flat memory: ${flat ? "yes" : "NO"} (the ${lastRow.n}-job run's RSS peak over its results ${lastRow.n * 0.95}–${lastRow.n}, ${mb(lastRow.atEnd)} ≤ over ${lastRow.n / 20}–${lastRow.n / 10}, ${mb(lastRow.atTenth)} + ${FLAT_MB} MB)`,
  );
  if (rows.length > 1)
    console.log(
      `  across runs: peak RSS of the ${lastRow.n}-job run ${mb(lastRow.peakMb)}, of the ${first.n}-job run ${mb(first.peakMb)} (${lastRow.peakMb - first.peakMb > FLAT_MB ? "more" : "not more"} than ${FLAT_MB} MB above)`,
    );
  return once && flat ? 0 : 1;
}

runMain(main);

/**
 * What one status poll of the finished run costs: the median of 30 sequential GET /v1/runs/:id
 * (the run's status, progress and first summary page, read from its coordinator's totals).
 */
async function statusPollMs(api, runId) {
  const ms = [];
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    await api.getRun(runId);
    ms.push(performance.now() - t0);
  }
  return ms.sort((a, b) => a - b)[Math.floor(ms.length / 2)];
}
