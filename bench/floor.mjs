#!/usr/bin/env node
// bench/floor — how much of bench/throughput's CPU per result any design would spend on this stack.
//
// bench/floor/index.js grades bench/throughput's run (the same body, the same two model calls a
// job, the same fake LLM at L ms with its 429 cap C, the same queue shards and batches as npm start)
// with nothing but the I/O a result cannot do without: no validation, no limiter object (a
// semaphore in the isolate), no retries, no metering, one Durable Object call and one D1 batch per
// queue batch, its results counted once the batch ends. Its CPU per result is a lower bound for
// any worker on this machine and stack: what lies between it and edgeval's figure is all the room
// there is to cut (issue 19's absolute target, ≤ 1.5 ms, reads against it).
//
//   node bench/floor.mjs [--rounds R=3] [--jobs N=400] [--latency-ms L=500] [--cap C=64] [--floor-only]
//
// Each round starts a fresh floor stack (as bench/throughput starts a fresh edgeval stack, so both
// pay for code compiled on first use) and runs it, then runs this tree's bench/throughput with the
// same N, L and C; at the end, both sides' figures and edgeval ÷ floor with a 95 % interval
// (rounds resampled as pairs, bench/lib/compare-stats.mjs). --floor-only runs the floor alone.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startFakeLlm } from "../test/fake-llm/server.mjs";
import { LOCAL_JOB_QUEUE } from "../scripts/lib/job-queue-config.mjs";
import { REPO_ROOT } from "../scripts/lib/repo-root.mjs";
import { bootstrapRatio, parseThroughput, summary } from "./lib/compare-stats.mjs";
import { cpuBetween, workerdThreadCpu } from "./lib/proc-cpu.mjs";
import { runMain } from "./lib/run-main.mjs";
import { K, M, throughputOnce } from "./lib/throughput-run.mjs";
import { gradeOnFloor } from "./lib/floor-run.mjs";
import { startBenchWorker } from "./lib/bench-worker.mjs";
import { queueMismatch } from "./lib/floor-config.mjs";

const CONFIG = "bench/floor/wrangler.toml";

function parseArgs(argv) {
  const o = { rounds: 3, jobs: 400, latencyMs: 500, cap: 64, floorOnly: false };
  const flags = { "--rounds": "rounds", "--jobs": "jobs", "--latency-ms": "latencyMs", "--cap": "cap" };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--floor-only") {
      o.floorOnly = true;
      continue;
    }
    const [flag, inline] = argv[i].split("=", 2);
    const key = flags[flag];
    if (!key) throw new Error(`unknown option ${argv[i]} (use ${Object.keys(flags).join(", ")}, --floor-only)`);
    o[key] = Number(inline ?? argv[++i]);
    if (!(o[key] > 0)) throw new Error(`${flag} needs a number > 0`);
  }
  return o;
}

/**
 * The floor's queue must be split as npm start splits edgeval's, or the two figures measure
 * different stacks (JOB_CONCURRENCY does not apply: the floor runs a batch's jobs all at once,
 * under its share of the key's concurrency).
 */
function checkQueueSettings() {
  const problem = queueMismatch(fs.readFileSync(path.join(REPO_ROOT, CONFIG), "utf8"), LOCAL_JOB_QUEUE);
  if (problem) throw new Error(`${CONFIG}: ${problem}`);
}

/** One run on a fresh floor stack: CPU per result (workerd, all threads, POST to done) and wall ÷ bound. */
async function floorOnce(o) {
  const fake = await startFakeLlm({ latencyMs: o.latencyMs, maxInFlight: o.cap, requestLogSize: 1 });
  const stack = await startBenchWorker(CONFIG, { stateRoot: fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir() });
  try {
    const cpu0 = workerdThreadCpu(stack.pid);
    const t0 = Date.now();
    const run_id = await gradeOnFloor(stack.base, fake.url, o.jobs, stack.log);
    const wallMs = Date.now() - t0;
    const cpu = cpuBetween(cpu0, workerdThreadCpu(stack.pid));
    if (!cpu) throw new Error("no /proc: the floor's CPU cannot be read on this system");
    const last = await (await fetch(`${stack.base}/runs/${run_id}`)).json();
    // Every result graded and right (the fake fills the boolean with true): a floor that skipped work is no floor.
    if (last.done !== o.jobs || last.passed !== o.jobs)
      throw new Error(`the floor recorded ${last.done} results, ${last.passed} passed, of ${o.jobs}`);
    const st = fake.stats();
    if (st.over_cap > 0) throw new Error(`the fake refused ${st.over_cap} calls over its cap: the floor's semaphore is broken`);
    const boundMs = Math.max(K * o.latencyMs, (o.jobs * M * o.latencyMs) / o.cap);
    return { cpuPerResultMs: cpu.total / o.jobs, ratio: wallMs / boundMs };
  } finally {
    stack.stop();
    await fake.close();
  }
}

/** This tree's bench/throughput with the same N, L and C. */
async function throughputFigures(o) {
  const args = ["--jobs", o.jobs, "--latency-ms", o.latencyMs, "--cap", o.cap].map(String);
  const { code, out } = await throughputOnce(REPO_ROOT, args);
  const fig = parseThroughput(out);
  if (code !== 0 || !fig) throw new Error(`bench/throughput exited ${code}${fig ? "" : " without its figures"}:\n${out.slice(-3000)}`);
  return fig;
}

const f2 = (x) => x.toFixed(2);
const load = () => os.loadavg()[0].toFixed(2);

async function main() {
  const o = parseArgs(process.argv.slice(2));
  checkQueueSettings();
  console.log(
    `bench/floor — N=${o.jobs}, L=${o.latencyMs} ms, C=${o.cap}, ${o.rounds} round(s)${o.floorOnly ? ", the floor alone" : ", the floor and bench/throughput in turn"}`,
  );
  const floor = [];
  const ours = [];
  for (let round = 1; round <= o.rounds; round++) {
    let before = load();
    const fl = await floorOnce(o);
    floor.push(fl);
    console.log(
      `  round ${round}  floor            CPU per result ${f2(fl.cpuPerResultMs)} ms  ratio ${f2(fl.ratio)}  load ${before} → ${load()}`,
    );
    if (o.floorOnly) continue;
    before = load();
    const ev = await throughputFigures(o);
    ours.push(ev);
    console.log(
      `  round ${round}  bench/throughput CPU per result ${f2(ev.cpuPerResultMs)} ms  ratio ${f2(ev.ratio)}  load ${before} → ${load()}`,
    );
  }
  console.log();
  for (const [name, runs] of [
    ["floor", floor],
    ["bench/throughput", ours],
  ]) {
    if (runs.length === 0) continue;
    const cpu = summary(runs.map((r) => r.cpuPerResultMs));
    console.log(
      `  ${name.padEnd(16)} CPU per result mean ${f2(cpu.mean)} ms, median ${f2(cpu.median)}, range ${f2(cpu.min)}–${f2(cpu.max)}`,
    );
  }
  if (ours.length) {
    const r = bootstrapRatio(
      ours.map((x) => x.cpuPerResultMs),
      floor.map((x) => x.cpuPerResultMs),
    );
    const above = summary(ours.map((x, i) => x.cpuPerResultMs - floor[i].cpuPerResultMs));
    console.log(
      `\n  CPU per result, bench/throughput ÷ floor: ${f2(r.ratio)} (95 % interval ${f2(r.low)}–${f2(r.high)}); above the floor: mean ${f2(above.mean)} ms`,
    );
  }
  return 0;
}

runMain(main);
