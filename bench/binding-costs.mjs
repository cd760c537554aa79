#!/usr/bin/env node
// bench/binding-costs — what one call of each kind a job makes costs the local workerd, where the
// worker, its Durable Objects and the R2/D1 simulators all run. These costs, not the provider,
// bound bench/throughput locally; in production R2 and D1 are remote services and each invocation
// has its own CPU. wrangler dev's local trace collector is off, as in bench/throughput
// (X_LOCAL_OBSERVABILITY=true in the environment turns it on, to see what it adds per call).
//
//   node bench/binding-costs.mjs [--calls N=500] [--rounds R=4]
//
// Runs `wrangler dev` on bench/binding-costs/ (a worker with one route per kind of call); each
// round makes N calls of one kind side by side. Prints workerd CPU per call (all its threads,
// from /proc) and wall time per call.
import http from "node:http";
import { cpuBetween, workerdThreadCpu } from "./lib/proc-cpu.mjs";
import { runMain } from "./lib/run-main.mjs";
import { startBenchWorker } from "./lib/bench-worker.mjs";

const KINDS = [
  ["do-rpc", "Durable Object RPC (a limiter acquire/release)"],
  ["do-sql-write", "Durable Object RPC + SQLite write (a coordinator record)"],
  ["r2-put", "R2 put, 2 KB (a checkpoint, a result)"],
  ["d1-upsert", "D1 upsert, one row"],
  ["fetch", "outbound fetch to a local server (a model call, no SDK)"],
  ["openai-sdk", "chat.completions.create through the OpenAI SDK to the same server"],
];

function parseArgs(argv) {
  const o = { calls: 500, rounds: 4 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const key = { "--calls": "calls", "--rounds": "rounds" }[flag];
    if (!key) throw new Error(`unknown option ${argv[i]} (use --calls, --rounds)`);
    o[key] = Number(inline ?? argv[++i]);
    if (!(o[key] > 0)) throw new Error(`${flag} needs a number > 0`);
  }
  return o;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  // Answers every request with a small chat completion (what the SDK route expects; fetch only reads it).
  const completion = JSON.stringify({
    id: "c",
    object: "chat.completion",
    created: 1,
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", content: "y".repeat(600) }, finish_reason: "stop" }],
    usage: { prompt_tokens: 10, completion_tokens: 150, total_tokens: 160 },
  });
  const target = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end(completion, () => undefined));
    res.setHeader("content-type", "application/json");
  });
  await new Promise((r) => target.listen(0, "127.0.0.1", r));
  const targetUrl = `http://127.0.0.1:${target.address().port}/v1`;
  const stack = await startBenchWorker("bench/binding-costs/wrangler.toml", { runtime: "wrangler-dev", readyPath: "/do-rpc?n=1" });
  const stop = () => {
    stack.stop();
    target.close();
  };
  try {
    const base = stack.base;
    const get = async (kind, n) => {
      const res = await fetch(`${base}/${kind}?n=${n}&target=${encodeURIComponent(targetUrl)}`);
      if (!res.ok) throw new Error(`${kind}: HTTP ${res.status} ${await res.text()}`);
    };
    console.log(`bench/binding-costs — ${o.rounds} rounds × ${o.calls} calls of each kind, side by side, in local workerd\n`);
    console.log(`  ${"kind".padEnd(14)} ${"CPU µs/call".padStart(12)} ${"wall µs/call".padStart(13)}   what`);
    for (const [kind, what] of KINDS) {
      await get(kind, o.calls); // warm-up: tables, connections, JIT
      const before = workerdThreadCpu(stack.pid);
      const t0 = performance.now();
      for (let r = 0; r < o.rounds; r++) await get(kind, o.calls);
      const wall = performance.now() - t0;
      const cpu = cpuBetween(before, workerdThreadCpu(stack.pid));
      const calls = o.rounds * o.calls;
      const cpuText = cpu ? String(Math.round((cpu.total * 1000) / calls)) : "n/a";
      console.log(`  ${kind.padEnd(14)} ${cpuText.padStart(12)} ${String(Math.round((wall * 1000) / calls)).padStart(13)}   ${what}`);
    }
    return 0;
  } finally {
    stop();
  }
}

runMain(main);
