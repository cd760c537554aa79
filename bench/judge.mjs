#!/usr/bin/env node
// bench/judge — latency and throughput of POST /v1/judge, and what edgeval adds over the model call.
//
// One-unit judge requests (`{type: "judge"}`, one structured call each) go to the local stack (the
// one `npm start` runs) with a tenant's API key, so every request pays what a tenant's does: the
// key's lookup (a D1 read, then kept 2 s per isolate: src/tenants/auth-cache.ts), the tenant's
// request-rate Durable Object and the ProviderLimiter. The model is the
// fake LLM answering after L ms. For each L (0 and 500 ms by default) and each concurrency c (1, 16,
// 64) it sends N requests c at a time (after a warm-up) and prints p50 / p99 latency, requests per
// second, and the overhead: a request's latency minus the time the fake spent on its model call(s)
// (matched by a marker in the output), p50 / p99 — edgeval's own cost per request.
//
//   node bench/judge.mjs [--latencies 0,500] [--concurrency 1,16,64] [--requests N] [--warmup 20]
//                        [--state-dir DIR=/dev/shm] [--profile FILE]
// --requests sets N for every cell; by default N = max(200, 10·c) at L = 0 and max(30, 4·c) at L > 0.
// --profile writes a V8 CPU profile of the worker's isolate over the measured requests (not the
// warm-up) and prints the functions with the most self time; a profiled run's figures are slower.
import fs from "node:fs";
import os from "node:os";
import { startFakeLlm } from "../test/fake-llm/server.mjs";
import { localAdminToken } from "../scripts/lib/env-files.mjs";
import { startLocalStack } from "../scripts/lib/local-stack.mjs";
import { cpuBetween, workerdThreadCpu } from "./lib/proc-cpu.mjs";
import { startCpuProfile, summarizeProfile } from "./lib/cpu-profile.mjs";
import { runMain } from "./lib/run-main.mjs";

function parseArgs(argv) {
  const opts = { latencies: [0, 500], concurrency: [1, 16, 64], requests: 0, warmup: 20, stateDir: undefined };
  const list = (v, flag) => {
    const xs = String(v).split(",").map(Number);
    if (xs.some((x) => !(x >= 0) || !Number.isInteger(x))) throw new Error(`${flag} takes whole numbers ≥ 0, comma-separated`);
    return xs;
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = () => inline ?? argv[++i];
    if (flag === "--latencies") opts.latencies = list(value(), flag);
    else if (flag === "--concurrency") opts.concurrency = list(value(), flag).map((c) => Math.max(1, c));
    else if (flag === "--requests") opts.requests = list(value(), flag)[0];
    else if (flag === "--warmup") opts.warmup = list(value(), flag)[0];
    else if (flag === "--state-dir") opts.stateDir = value();
    else if (flag === "--profile") opts.profile = value();
    else throw new Error(`unknown option ${argv[i]} (use --latencies, --concurrency, --requests, --warmup, --state-dir, --profile)`);
  }
  opts.stateDir ??= fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir();
  return opts;
}

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : Number.NaN;
};

/** A tenant whose request rate will not be the limit, and its API key. */
async function benchTenant(url) {
  const res = await fetch(`${url}/v1/admin/tenants`, {
    method: "POST",
    headers: { authorization: `Bearer ${localAdminToken()}`, "content-type": "application/json" },
    body: JSON.stringify({
      name: "bench-judge",
      limits: { requests_per_minute: 1_000_000 },
      first_key: { name: "bench", scopes: ["judge"] },
    }),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`creating the bench tenant: ${res.status} ${JSON.stringify(json)}`);
  return json.key.key;
}

/** Sends `n` requests `c` at a time; each resolves to {ms, marker, ok}. */
async function drive({ url, token, fakeUrl, model, n, c, tag }) {
  const out = [];
  let next = 0;
  const one = async () => {
    for (;;) {
      const i = next++;
      if (i >= n) return;
      const marker = `bench-judge ${tag} #${i}`;
      const body = {
        input: "What is the capital of France?",
        output: `Paris. (${marker})`,
        config: {
          provider: { id: "j", interface: "openai_compatible", model_name: model, base_url: `${fakeUrl}/v1` },
          type: "judge",
          prompt: "Is the answer right?",
        },
      };
      const t0 = performance.now();
      const res = await fetch(`${url}/v1/judge`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const json = await res.json();
      out.push({
        ms: performance.now() - t0,
        marker,
        ok: res.status === 200 && json.pass !== null && json.pass !== undefined,
        status: res.status,
        error: json.error,
      });
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: c }, one));
  return { rows: out, wallMs: performance.now() - t0 };
}

/** Per request: the time the fake spent on its calls (arrival → reply), found by the request's marker. */
function modelTime(fake, model, rows) {
  const byMarker = new Map();
  for (const r of fake.requests(model)) {
    if (r.replied_at === undefined) continue;
    const m = JSON.stringify(r.body).match(/bench-judge [^#]+#\d+/);
    if (m) byMarker.set(m[0], (byMarker.get(m[0]) ?? 0) + (r.replied_at - r.at));
  }
  return rows.map((r) => byMarker.get(r.marker));
}

const f = (ms) => (Number.isFinite(ms) ? ms.toFixed(1) : "n/a").padStart(8);

async function main() {
  const o = parseArgs(process.argv.slice(2));
  console.log(
    `bench/judge — POST /v1/judge, one judge unit = one structured model call; fake latency ${o.latencies.join(", ")} ms; concurrency ${o.concurrency.join(", ")}`,
  );
  const fakes = new Map();
  for (const L of o.latencies) fakes.set(L, await startFakeLlm({ latencyMs: L, requestLogSize: 50_000 }));
  const stack = await startLocalStack({ stateRoot: o.stateDir, gcPacer: !o.profile, say: (m) => console.log(`  ${m}`) });
  try {
    const token = await benchTenant(stack.url);
    let profiled = null;
    console.log(`  tenant key: every request looks the key up (D1, kept 2 s per isolate) and calls the tenant's rate-limit object\n`);
    console.log(
      `  ${"L ms".padStart(5)} ${"conc".padStart(5)} ${"N".padStart(5)}  ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"req/s".padStart(8)}  ${"over p50".padStart(8)} ${"over p99".padStart(8)}  ${"CPU/req".padStart(8)}  errors`,
    );
    for (const L of o.latencies) {
      const fake = fakes.get(L);
      for (const c of o.concurrency) {
        const model = `bench-judge-${L}-${c}-${Date.now()}`;
        const n = o.requests || (L === 0 ? Math.max(200, 10 * c) : Math.max(30, 4 * c));
        // Warm-up: the isolate, the limiter object and the connection pool are not part of the figure.
        await drive({ url: stack.url, token, fakeUrl: fake.url, model, n: Math.max(o.warmup, c), c, tag: `warm-${L}-${c}` });
        const profiler = o.profile && !profiled ? await startCpuProfile(stack.inspectorPort) : null;
        const cpu0 = workerdThreadCpu(stack.pid);
        const { rows, wallMs } = await drive({ url: stack.url, token, fakeUrl: fake.url, model, n, c, tag: `${L}-${c}` });
        const cpu = cpuBetween(cpu0, workerdThreadCpu(stack.pid));
        if (profiler) profiled = await profiler.stop();
        const good = rows.filter((r) => r.ok);
        const model_ms = modelTime(fake, model, good);
        const overhead = good.map((r, i) => r.ms - (model_ms[i] ?? Number.NaN)).filter(Number.isFinite);
        const errors = rows.length - good.length;
        const firstError = rows.find((r) => !r.ok);
        console.log(
          `  ${String(L).padStart(5)} ${String(c).padStart(5)} ${String(n).padStart(5)}  ${f(
            percentile(
              good.map((r) => r.ms),
              50,
            ),
          )} ${f(
            percentile(
              good.map((r) => r.ms),
              99,
            ),
          )} ${f((1000 * rows.length) / wallMs)}  ${f(percentile(overhead, 50))} ${f(percentile(overhead, 99))}  ${f(cpu ? cpu.total / rows.length : Number.NaN)}  ${errors}${firstError ? ` (first: ${firstError.status} ${JSON.stringify(firstError.error ?? "").slice(0, 120)})` : ""}`,
        );
      }
    }
    if (profiled) {
      fs.writeFileSync(o.profile, JSON.stringify(profiled.profile));
      fs.writeFileSync(`${o.profile}.index.js`, profiled.source);
      const sum = summarizeProfile(profiled.profile, profiled.source, 30);
      console.log(
        `\n  cpu profile of the first cell (L ${o.latencies[0]} ms, c ${o.concurrency[0]}): ${o.profile}; self time, top ${sum.rows.length}:`,
      );
      for (const r of sum.rows) console.log(`    ${r.ms.toFixed(0).padStart(6)} ms ${(100 * r.share).toFixed(1).padStart(5)} %  ${r.name}`);
    }
    console.log(`
  p50/p99: client latency of one request. over: latency minus the fake's time on the request's model call(s)
  (what edgeval adds: auth and the key's lookup, the tenant rate-limit object, validation, the limiter's
  acquire (its release follows the answer), the provider call's request and parsing). CPU/req: workerd CPU, all threads, per request (n/a without /proc).`);
    return 0;
  } finally {
    await stack.stop();
    for (const fake of fakes.values()) await fake.close();
  }
}

runMain(main);
