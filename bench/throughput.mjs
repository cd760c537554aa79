#!/usr/bin/env node
// bench/throughput — how close a run's wall time comes to what the provider allows.
//
// N jobs (N questions × 1 answering model × 1 replicate, both models openai_compatible on the fake
// LLM) go through the local stack (wrangler dev: real queue, Durable Objects, D1, R2). The fake
// answers after L ms and refuses with 429 any request above C in flight (a provider's concurrency
// cap). Each job makes m = 2 calls (answer, then parse), k = 2 of them on the critical path, so no
// design can beat bound = max(k·L, N·m·L/C). Prints wall time (POST returned → the run's
// finished_at), the bound, ratio = wall / bound, provider calls, 429s received, peak in flight,
// how full the C slots were over time, and the CPU of workerd's threads, per result too.
//
//   node bench/throughput.mjs [--jobs N=400] [--latency-ms L=500] [--cap C=64]
//                             [--key-limits concurrency=…,rpm=…,tpm=…]
//                             [--shards S] [--batch B] [--job-concurrency J] [--batch-timeout T]
//                             [--timeout S=900] [--dump FILE] [--profile FILE] [--state-dir DIR=/dev/shm]
//                             [--local-observability]
// With no flags it measures exactly the stack `npm start` and `npm run dev` run: the local job
// queue settings LOCAL_JOB_QUEUE (scripts/lib/job-queue-config.mjs: shards, batch size, batch timeout,
// JOB_CONCURRENCY) and wrangler dev's local observability collector off. --shards, --batch,
// --job-concurrency, --batch-timeout and --local-observability change that stack, and the bench
// says so. --cap is the fake provider's 429 cap. --key-limits puts the models on a provider key
// whose limits are set on the key (a tenant secret's `limits`, PUT /v1/secrets/:name): without it
// the key has its interface's defaults (openai_compatible: concurrency 64), so C above 64 needs
// --key-limits concurrency=C. The key belongs to a tenant the bench creates (each API request then
// reads the tenant's key from D1, as a tenant's requests do).
// --dump writes the fake's request log (arrival, reply, kind, in flight; no bodies) and t0 as JSON,
// to see where the slots sat idle. --profile writes a V8 CPU profile of the worker's isolate (open
// it in Chrome DevTools) and prints the functions with the most self time; sampling slows the
// worker, so a profiled run's ratio is not a figure.
// Locally every isolate, Durable Object and the D1/R2 simulators share one workerd thread; the bench
// prints its CPU, the ceiling that remains. Production spreads invocations over machines with 6
// connections each, so there the same in-flight count takes more, smaller invocations
// (wrangler.toml: one queue, JOB_CONCURRENCY 4).
import fs from "node:fs";
import os from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { startFakeLlm } from "../test/fake-llm/server.mjs";
import { LOCAL_JOB_QUEUE, reloadHint, startLocalStack } from "../scripts/lib/local-stack.mjs";
import { apiClient } from "../scripts/lib/runs.mjs";
import { startCpuProfile, summarizeProfile } from "./lib/cpu-profile.mjs";
import { keyWithLimits, parseKeyLimits } from "./lib/provider-key.mjs";
import { cpuBetween, workerdThreadCpu } from "./lib/proc-cpu.mjs";
import { runMain } from "./lib/run-main.mjs";
import { buildRun, K, M } from "./lib/throughput-run.mjs";

function parseArgs(argv) {
  const opts = { localObservability: false, jobs: 400, latencyMs: 500, cap: 64, timeoutS: 900 };
  const flags = {
    "--jobs": "jobs",
    "--latency-ms": "latencyMs",
    "--cap": "cap",
    "--shards": "shards",
    "--batch": "batch",
    "--job-concurrency": "jobConcurrency",
    "--batch-timeout": "batchTimeoutS",
    "--timeout": "timeoutS",
    "--dump": "dump",
    "--profile": "profile",
    "--state-dir": "stateDir",
    "--local-observability": "localObservability",
    "--key-limits": "keyLimits",
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const key = flags[flag];
    if (!key) throw new Error(`unknown option ${argv[i]} (use ${Object.keys(flags).join(", ")})`);
    if (key === "localObservability") {
      opts.localObservability = true; // a switch: takes no value
      continue;
    }
    const value = inline ?? argv[++i];
    if (key === "dump" || key === "profile" || key === "stateDir") {
      opts[key] = value;
      continue;
    }
    if (key === "keyLimits") {
      opts.keyLimits = parseKeyLimits(value);
      continue;
    }
    opts[key] = Number(value);
    if (!(opts[key] > 0)) throw new Error(`${flag} needs a number > 0`);
  }
  opts.stateDir ??= defaultStateDir();
  return opts;
}

/**
 * The local job queue this run uses: LOCAL_JOB_QUEUE (what npm start runs) with the flags' changes,
 * and whether anything differs from npm start's stack.
 */
function queueSettings(o) {
  const q = {
    shards: o.shards ?? LOCAL_JOB_QUEUE.shards,
    batchSize: o.batch ?? LOCAL_JOB_QUEUE.batchSize,
    batchTimeoutS: o.batchTimeoutS ?? LOCAL_JOB_QUEUE.batchTimeoutS,
    jobConcurrency: o.jobConcurrency ?? LOCAL_JOB_QUEUE.jobConcurrency,
  };
  const same = Object.keys(q).every((k) => q[k] === LOCAL_JOB_QUEUE[k]) && !o.localObservability;
  return { q, same };
}

/**
 * The run's throwaway local state (D1, R2, Durable Object storage) goes on tmpfs where there is one:
 * the simulators write every R2 object and SQLite page to disk on the worker's own thread, a cost
 * production's remote R2 and D1 do not put there. `--state-dir` picks another place (e.g. /tmp, disk).
 */
function defaultStateDir() {
  try {
    fs.accessSync("/dev/shm", fs.constants.W_OK);
    return "/dev/shm";
  } catch {
    return os.tmpdir();
  }
}

/**
 * When calls began and ended relative to t0, how full the provider's C slots were between, and
 * the mean in flight per `step` ms (where the slots sat idle).
 */
function timeline(requests, t0, cap, step = 250) {
  const served = requests.filter((r) => r.replied_at !== undefined).map((r) => [r.at - t0, r.replied_at - t0]);
  const firstAt = Math.min(...served.map(([a]) => a));
  const lastAt = Math.max(...served.map(([, b]) => b));
  const busy = served.reduce((sum, [a, b]) => sum + (b - a), 0);
  const perStep = [];
  for (let from = Math.max(0, firstAt); from < lastAt; from += step) {
    const overlap = served.reduce((sum, [a, b]) => sum + Math.max(0, Math.min(b, from + step) - Math.max(a, from)), 0);
    perStep.push(Math.round(overlap / step));
  }
  return { firstAt, lastAt, meanInFlight: Math.min(cap, busy / Math.max(1, lastAt - firstAt)), perStep };
}

/**
 * CPU of workerd's busiest thread per `step` ms: where the shared thread, not the provider, was
 * the limit (/proc counts in 10 ms ticks, so each figure is ±4 % at 250 ms).
 */
function sampleCpuSteps(pgid, step) {
  const steps = [];
  let last = workerdThreadCpu(pgid);
  const timer = setInterval(() => {
    const now = workerdThreadCpu(pgid);
    const d = cpuBetween(last, now);
    if (d) steps.push(d.busiest);
    last = now;
  }, step);
  return { stop: () => (clearInterval(timer), steps) };
}

const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const boundMs = Math.max(K * o.latencyMs, (o.jobs * M * o.latencyMs) / o.cap);
  // The bound counts a fractional last wave; calls of L each cannot split, so some slot makes ⌈N·m/C⌉ of them.
  const floorMs = Math.max(K * o.latencyMs, Math.ceil((o.jobs * M) / o.cap) * o.latencyMs);
  const { q, same } = queueSettings(o);
  console.log(
    `bench/throughput — N=${o.jobs} jobs, m=${M} calls each (k=${K} on the critical path), L=${o.latencyMs} ms, C=${o.cap}${o.keyLimits ? `, key limits ${JSON.stringify(o.keyLimits)}` : ""}`,
  );
  console.log(
    `  stack: ${q.shards} queue shard(s) × batches of ${q.batchSize}, JOB_CONCURRENCY ${q.jobConcurrency}, collector ${o.localObservability ? "on" : "off"} — ${same ? "what npm start runs" : "NOT what npm start runs (flags changed it)"}`,
  );
  const fake = await startFakeLlm({ latencyMs: o.latencyMs, maxInFlight: o.cap, requestLogSize: o.jobs * M * 4 });
  const stack = await startLocalStack({
    jobQueue: q,
    stateRoot: o.stateDir,
    localObservability: o.localObservability,
    gcPacer: !o.profile,
    say: (m) => console.log(`  ${m}`),
  });
  try {
    const key = o.keyLimits ? await keyWithLimits(stack, fake.url, o.keyLimits, "bench-throughput") : null;
    const api = apiClient(stack.url, key?.token ?? stack.token);
    // The profiler's sampling costs the worker's thread time too: figures from a profiled run are
    // for finding hot spots, not for the ratio.
    const profiler = o.profile ? await startCpuProfile(stack.inspectorPort) : null;
    const cpu0 = workerdThreadCpu(stack.pid);
    // The fake LLM runs in this process: its event-loop lag says whether it, not the worker, held calls up.
    const lag = monitorEventLoopDelay({ resolution: 5 });
    lag.enable();
    const fakeCpu0 = process.cpuUsage();
    const submitted = await api.submit(buildRun(o.jobs, `${fake.url}/v1`, key?.secretName));
    const t0 = Date.now();
    const cpuSteps = sampleCpuSteps(stack.pid, 250);
    let run;
    let lastPrint = 0;
    try {
      run = await api.waitForRun(submitted.run_id, {
        timeoutMs: o.timeoutS * 1000,
        // Status polls cost the worker CPU it would otherwise spend on jobs; the end time comes
        // from the run's own finished_at, so a slow poll does not blur the figure.
        intervalMs: 500,
        onProgress: (r, ms) => {
          if (ms - lastPrint < 5000) return;
          lastPrint = ms;
          console.log(
            `  [${s(ms).padStart(9)}] ${r?.status} ${r?.progress?.done}/${r?.progress?.total}, ${fake.stats().in_flight} in flight`,
          );
        },
      });
    } catch (err) {
      console.error(`FAILED: ${err.message}\n${stack.tail(30)}\n${reloadHint(stack)}`);
      return 1;
    }
    const finishedAt = Date.parse(run.finished_at ?? "");
    const wallMs = (Number.isFinite(finishedAt) ? finishedAt : Date.now()) - t0;
    const st = fake.stats();
    lag.disable();
    const fakeCpu = process.cpuUsage(fakeCpu0);
    const cpu = cpuBetween(cpu0, workerdThreadCpu(stack.pid));
    const cpuPerStep = cpuSteps.stop();
    if (profiler) {
      const { profile, source } = await profiler.stop();
      fs.writeFileSync(o.profile, JSON.stringify(profile));
      // The bundle the profile's line numbers point into.
      fs.writeFileSync(`${o.profile}.index.js`, source);
      const sum = summarizeProfile(profile, source, 40);
      console.log(`  cpu profile       ${o.profile} (${sum.total} samples over ${s(sum.spanMs)}); self time, top ${sum.rows.length}:`);
      for (const r of sum.rows) console.log(`    ${r.ms.toFixed(0).padStart(6)} ms ${(100 * r.share).toFixed(1).padStart(5)} %  ${r.name}`);
    }
    const tl = timeline(fake.requests(), t0, o.cap);
    if (o.dump) fs.writeFileSync(o.dump, JSON.stringify({ t0, requests: fake.requests().map(({ body: _body, ...r }) => r) }));
    console.log(`
  status            ${run.status} (${run.progress.done}/${run.progress.total} results)
  wall              ${s(wallMs)} (POST returned → the run's finished_at)
  bound             ${s(boundMs)} = max(k·L, N·m·L/C) = max(${s(K * o.latencyMs)}, ${s((o.jobs * M * o.latencyMs) / o.cap)})
  whole calls       ${s(floorMs)} = max(k·L, ⌈N·m/C⌉·L): no schedule beats it, each slot making whole calls of L (ratio ${(floorMs / boundMs).toFixed(2)})
  ratio             ${(wallMs / boundMs).toFixed(2)} (wall / bound)
  provider calls    ${st.total} (${st.total - st.over_cap} answered, expected ${o.jobs * M})
  429s received     ${st.over_cap}
  peak in flight    ${st.peak_in_flight} (cap ${o.cap})
  model tokens      ${run.usage?.total?.total_tokens ?? "?"}
  where wall went   first call at ${s(tl.firstAt)}, last reply at ${s(tl.lastAt)}, then ${s(wallMs - tl.lastAt)} to ${run.status};
                    between them ${tl.meanInFlight.toFixed(1)} calls in flight on average (${((100 * tl.meanInFlight) / o.cap).toFixed(0)} % of C)
  in flight / 250 ms ${tl.perStep.join(" ")}
  busy / 250 ms     ${cpuPerStep.map((ms) => Math.round((100 * ms) / 250)).join(" ")} (% of the busiest workerd thread, from the POST's return)
  workerd CPU       ${cpu ? `busiest thread ${s(cpu.busiest)} over the run (${((100 * cpu.busiest) / wallMs).toFixed(0)} % of wall); all threads ${s(cpu.total)}` : "n/a (no /proc)"}
  CPU per result    ${cpu ? `${(cpu.total / Math.max(1, run.progress.done)).toFixed(2)} ms (workerd, all threads, from the POST to finished_at ÷ results)` : "n/a (no /proc)"}
  fake LLM process  ${s((fakeCpu.user + fakeCpu.system) / 1000)} CPU; event-loop lag mean ${(lag.mean / 1e6).toFixed(1)} ms, p99 ${(lag.percentile(99) / 1e6).toFixed(1)} ms`);
    if (stack.reloads) console.log(`  ${reloadHint(stack)}`);
    return run.status === "completed" ? 0 : 1;
  } finally {
    await stack.stop();
    await fake.close();
  }
}

runMain(main);
