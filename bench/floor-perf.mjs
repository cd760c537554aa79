#!/usr/bin/env node
// bench/floor-perf — where edgeval's CPU per result goes beyond the floor's, by what workerd was doing.
//
// bench/floor says how far edgeval's figure is above the floor's (the same run graded with nothing
// but the I/O a result needs); this says in what. It runs bench/throughput's run (N jobs, the fake
// at L ms with its cap C) once on a fresh floor stack and once on a fresh edgeval stack as npm start
// runs it, records each stack's workerd with `perf record` over the K-th run of the stack (K=1: the
// first run, as bench/throughput measures it; K=3: a stack that has compiled its code), groups the
// samples by what the process was doing (bench/lib/perf-groups.mjs), and prints each group's CPU per
// result on both sides and the gap.
//
//   node bench/floor-perf.mjs [--run K=1] [--jobs N=400] [--latency-ms L=500] [--cap C=64] [--top T=20]
//
// Needs Linux `perf` (Debian: linux-perf) allowed to record this user's processes
// (kernel.perf_event_paranoid ≤ 2). workerd runs with V8's --perf-basic-prof (through
// MINIFLARE_WORKERD_V8_FLAGS), so optimised JavaScript is named; `perf` itself slows what it records,
// so the figures here are for comparing the two sides, not for issue 19's targets.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startFakeLlm } from "../test/fake-llm/server.mjs";
import { LOCAL_JOB_QUEUE, startLocalStack } from "../scripts/lib/local-stack.mjs";
import { apiClient } from "../scripts/lib/runs.mjs";
import { runMain } from "./lib/run-main.mjs";
import { buildRun } from "./lib/throughput-run.mjs";
import { startBenchWorker } from "./lib/bench-worker.mjs";
import { gradeOnFloor } from "./lib/floor-run.mjs";
import { cpuBetween, workerdPids, workerdThreadCpu } from "./lib/proc-cpu.mjs";
import { groupReport, PERF_GROUPS } from "./lib/perf-groups.mjs";

const FREQ = 1999;

function parseArgs(argv) {
  const o = { run: 1, jobs: 400, latencyMs: 500, cap: 64, top: 20 };
  const flags = { "--run": "run", "--jobs": "jobs", "--latency-ms": "latencyMs", "--cap": "cap", "--top": "top" };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const key = flags[flag];
    if (!key) throw new Error(`unknown option ${argv[i]} (use ${Object.keys(flags).join(", ")})`);
    o[key] = Number(inline ?? argv[++i]);
    if (!(Number.isInteger(o[key]) && o[key] >= (key === "top" ? 0 : 1))) throw new Error(`${flag} needs a whole number`);
  }
  return o;
}

function checkPerf() {
  try {
    execFileSync("perf", ["--version"], { stdio: "ignore" });
  } catch {
    throw new Error("bench/floor-perf needs Linux perf on PATH (Debian: apt-get install linux-perf)");
  }
}

/** The floor's stack, graded as bench/floor grades it (bench/lib/floor-run.mjs). */
async function floorSide(fakeUrl, o, stateRoot) {
  const stack = await startBenchWorker("bench/floor/wrangler.toml", { stateRoot });
  const grade = () => gradeOnFloor(stack.base, fakeUrl, o.jobs, stack.log);
  return { pgid: stack.pid, grade, stop: async () => stack.stop() };
}

/** edgeval's stack as npm start runs it: POST /v1/runs, then polled every 500 ms as bench/throughput polls. */
async function edgevalSide(fakeUrl, o, stateRoot) {
  const stack = await startLocalStack({ jobQueue: LOCAL_JOB_QUEUE, stateRoot });
  const api = apiClient(stack.url, stack.token);
  const grade = async () => {
    const { run_id } = await api.submit(buildRun(o.jobs, `${fakeUrl}/v1`));
    const run = await api.waitForRun(run_id, { timeoutMs: 600_000, intervalMs: 500 });
    if (run.status !== "completed") throw new Error(`edgeval's run ended ${run.status}`);
  };
  return { pgid: stack.pid, grade, stop: () => stack.stop() };
}

/** Runs `side` K times on one stack; perf records the last. Resolves with the report's groups and /proc's CPU per result. */
async function measure(name, startSide, o) {
  const stateRoot = fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir();
  const fake = await startFakeLlm({ latencyMs: o.latencyMs, maxInFlight: o.cap, requestLogSize: 1 });
  const data = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "edgeval-floor-perf-")), `${name}.data`);
  const side = await startSide(fake.url, o, stateRoot);
  try {
    const [pid, ...more] = workerdPids(side.pgid);
    if (!pid || more.length) throw new Error(`${name}: expected one workerd process, found ${[pid, ...more].filter(Boolean).length}`);
    for (let k = 1; k < o.run; k++) await side.grade();
    const perf = spawn("perf", ["record", "-q", "-F", String(FREQ), "-p", String(pid), "-o", data], { stdio: "ignore" });
    await new Promise((r) => setTimeout(r, 500)); // perf attached before the run starts
    const cpu0 = workerdThreadCpu(side.pgid);
    await side.grade();
    const cpu = cpuBetween(cpu0, workerdThreadCpu(side.pgid));
    const exited = new Promise((r) => perf.once("exit", r));
    perf.kill("SIGINT");
    await exited;
    const report = execFileSync(
      "perf",
      ["report", "-i", data, "--no-children", "--sort", "dso,sym", "-q", "-F", "sample,dso,sym", "--percent-limit", "0"],
      {
        encoding: "utf8",
        maxBuffer: 256 * 1024 * 1024,
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    return { ...groupReport(report), procMsPerResult: cpu.total / o.jobs };
  } finally {
    await side.stop();
    await fake.close();
    fs.rmSync(path.dirname(data), { recursive: true, force: true });
  }
}

/** Samples at FREQ per second of a thread's CPU → µs per result. */
const usPerResult = (samples, o) => (samples / FREQ / o.jobs) * 1e6;
const pad = (s, n) => String(s).padStart(n);

async function main() {
  const o = parseArgs(process.argv.slice(2));
  checkPerf();
  process.env.MINIFLARE_WORKERD_V8_FLAGS = [process.env.MINIFLARE_WORKERD_V8_FLAGS, "--perf-basic-prof"].filter(Boolean).join(" ");
  console.log(`bench/floor-perf — N=${o.jobs}, L=${o.latencyMs} ms, C=${o.cap}; perf over run ${o.run} of each stack (${FREQ} Hz)`);
  const floor = await measure("floor", floorSide, o);
  const ours = await measure("edgeval", edgevalSide, o);
  const us = (n) => usPerResult(n, o).toFixed(0);
  console.log(
    `  CPU per result (/proc, perf running): floor ${floor.procMsPerResult.toFixed(2)} ms, edgeval ${ours.procMsPerResult.toFixed(2)} ms`,
  );
  console.log(`  perf samples: floor ${floor.total}, edgeval ${ours.total}`);
  console.log();
  console.log(`  ${"what workerd was doing".padEnd(36)} ${pad("floor µs", 9)} ${pad("edgeval µs", 11)} ${pad("gap µs", 7)}  (per result)`);
  const gap = ours.total - floor.total;
  const rows = PERF_GROUPS.map((g) => [g, floor.groups.get(g), ours.groups.get(g)]).sort((a, b) => b[2] - b[1] - (a[2] - a[1]));
  for (const [g, f, e] of rows) {
    const share = gap > 0 ? ` ${pad(((100 * (e - f)) / gap).toFixed(0), 3)} % of the gap` : "";
    console.log(`  ${g.padEnd(36)} ${pad(us(f), 9)} ${pad(us(e), 11)} ${pad(us(e - f), 7)}${share}`);
  }
  console.log(`  ${"all".padEnd(36)} ${pad(us(floor.total), 9)} ${pad(us(ours.total), 11)} ${pad(us(gap), 7)}`);
  if (o.top > 0) {
    console.log();
    console.log(`  the ${o.top} symbols edgeval spent most on beyond the floor (samples: edgeval, floor; its share of edgeval's)`);
    const keys = new Set([...ours.symbols.keys(), ...floor.symbols.keys()]);
    const top = [...keys]
      .map((k) => [k, ours.symbols.get(k) ?? 0, floor.symbols.get(k) ?? 0])
      .sort((a, b) => b[1] - b[2] - (a[1] - a[2]))
      .slice(0, o.top);
    for (const [k, e, f] of top) {
      const [group, sym] = k.split("\t");
      console.log(`  ${pad(e, 6)} ${pad(f, 6)} ${pad(((100 * e) / ours.total).toFixed(1), 5)} %  ${group}: ${sym.slice(0, 100)}`);
    }
  }
  return 0;
}

runMain(main);
