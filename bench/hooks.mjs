#!/usr/bin/env node
// bench/hooks — latency of POST /v1/hooks/:trigger_id for a stored 1,000-question benchmark.
//
// The local stack as `npm start` sets it up (wrangler dev, every binding local, the fake LLM), a
// tenant whose quotas are not the limit, a stored benchmark of Q questions (default 1,000) and a
// trigger on it (hex_header signing, delivery ids de-duplicated). Each delivery is signed here
// (HMAC-SHA256 of the raw body) and starts a run of Q jobs through submitRun, exactly as
// POST /v1/runs would: verify, read the benchmark from R2, plan, write the spec, enqueue. Each run
// is cancelled as soon as its 202 arrives (outside the timing), so the queue only skips its jobs.
// For each concurrency c it sends N new deliveries c at a time (after a warm-up) and prints
// p50 / p99 / max latency and deliveries per second; then N repeats of deliveries already seen
// (the de-duplicated answer: the first delivery's run id, nothing started). `uptime`'s load is
// printed beside each cell: the machine is shared.
//
//   node bench/hooks.mjs [--questions 1000] [--deliveries 40] [--concurrency 1,4] [--warmup 3]
//                        [--state-dir DIR=/dev/shm]
import { createHmac } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import { localAdminToken } from "../scripts/lib/env-files.mjs";
import { startLocalStack } from "../scripts/lib/local-stack.mjs";
import { runMain } from "./lib/run-main.mjs";

function parseArgs(argv) {
  const opts = { questions: 1000, deliveries: 40, concurrency: [1, 4], warmup: 3, stateDir: undefined };
  const int = (v, flag, min) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`${flag} takes a whole number ≥ ${min}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = () => inline ?? argv[++i];
    if (flag === "--questions") opts.questions = int(value(), flag, 1);
    else if (flag === "--deliveries") opts.deliveries = int(value(), flag, 1);
    else if (flag === "--concurrency")
      opts.concurrency = String(value())
        .split(",")
        .map((c) => int(c, flag, 1));
    else if (flag === "--warmup") opts.warmup = int(value(), flag, 0);
    else if (flag === "--state-dir") opts.stateDir = value();
    else throw new Error(`unknown option ${argv[i]} (use --questions, --deliveries, --concurrency, --warmup, --state-dir)`);
  }
  opts.stateDir ??= fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir();
  return opts;
}

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : Number.NaN;
};
const load = () => os.loadavg()[0].toFixed(2);

async function call(url, path, { token, body, headers = {}, method = "POST" }) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

/** A tenant whose request rate and concurrent runs are not the limit, and an all-scope key. */
async function benchTenant(url) {
  const r = await call(url, "/v1/admin/tenants", {
    token: localAdminToken(),
    body: { name: "bench-hooks", limits: { requests_per_minute: 1_000_000, concurrent_runs: 100_000 } },
  });
  if (r.status !== 201) throw new Error(`creating the bench tenant: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json.key.key;
}

function benchmark(n) {
  const questions = Array.from({ length: n }, (_, i) => ({
    id: `hook-q${String(i).padStart(5, "0")}`,
    question: `What is ${i} + ${i}?`,
    raw_answer: String(2 * i),
    template: {
      fields: [{ name: "value", type: "int", description: "The sum", ground_truth: 2 * i, verify_with: { type: "ExactMatch" } }],
    },
  }));
  return { name: `bench/hooks ${n} questions`, questions };
}

/** Sends deliveries i = 0..n-1, c at a time; `deliveryId(i)` names each. Resolves to per-delivery {ms, status, run_id}. */
async function drive({ url, trigger, secret, n, c, deliveryId }) {
  const rows = [];
  let next = 0;
  const one = async () => {
    for (;;) {
      const i = next++;
      if (i >= n) return;
      const id = deliveryId(i);
      const payload = JSON.stringify({ ref: "refs/heads/main", delivery: id });
      const signature = createHmac("sha256", secret).update(payload).digest("hex");
      const t0 = performance.now();
      const r = await call(url, `/v1/hooks/${trigger}`, { body: payload, headers: { "x-signature": signature, "x-delivery": id } });
      rows.push({ ms: performance.now() - t0, status: r.status, run_id: r.json?.run_id, error: r.json?.error });
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: c }, one));
  return { rows, wallMs: performance.now() - t0 };
}

const f = (ms) => (Number.isFinite(ms) ? ms.toFixed(1) : "n/a").padStart(8);

async function main() {
  const o = parseArgs(process.argv.slice(2));
  console.log(
    `bench/hooks — POST /v1/hooks/:trigger_id, a stored ${o.questions}-question benchmark; ${o.deliveries} deliveries per cell; concurrency ${o.concurrency.join(", ")}`,
  );
  const stack = await startLocalStack({ fake: {}, stateRoot: o.stateDir, say: (m) => console.log(`  ${m}`) });
  try {
    const token = await benchTenant(stack.url);
    const stored = await call(stack.url, "/v1/benchmarks", { token, body: benchmark(o.questions) });
    if (stored.status !== 201) throw new Error(`storing the benchmark: ${stored.status} ${JSON.stringify(stored.json)}`);
    const model = (id) => ({ id, interface: "openai_compatible", model_name: `bench-hooks-${id}`, base_url: `${stack.fake.url}/v1` });
    const created = await call(stack.url, "/v1/triggers", {
      token,
      body: {
        name: "bench hooks",
        benchmark_id: stored.json.benchmark_id,
        config: { answering_models: [model("answerer")], parsing_models: [model("judge")] },
        signing: { scheme: "hex_header", header: "x-signature", delivery_id_header: "x-delivery" },
      },
    });
    if (created.status !== 201) throw new Error(`creating the trigger: ${created.status} ${JSON.stringify(created.json)}`);
    const { trigger_id: trigger, secret } = created.json;
    const cancel = (runs) => Promise.all(runs.map((id) => call(stack.url, `/v1/runs/${id}/cancel`, { token })));
    console.log(`  each new delivery starts a run of ${o.questions} jobs (cancelled once its 202 is in, outside the timing)\n`);
    console.log(
      `  ${"delivery".padEnd(9)} ${"conc".padStart(5)} ${"N".padStart(5)}  ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"max ms".padStart(8)} ${"per s".padStart(8)}  load  errors`,
    );
    let seq = 0;
    for (const c of o.concurrency) {
      const warm = await drive({ url: stack.url, trigger, secret, n: Math.max(o.warmup, c), c, deliveryId: () => `warm-${seq++}` });
      await cancel(warm.rows.map((r) => r.run_id).filter(Boolean));
      const ids = Array.from({ length: o.deliveries }, () => `d-${seq++}`);
      for (const [kind, deliveryId] of [
        ["new", (i) => ids[i]],
        ["repeated", (i) => ids[i]],
      ]) {
        const before = load();
        const { rows, wallMs } = await drive({ url: stack.url, trigger, secret, n: o.deliveries, c, deliveryId });
        if (kind === "new") await cancel(rows.map((r) => r.run_id).filter(Boolean));
        const good = rows.filter((r) => r.status === 202).map((r) => r.ms);
        const bad = rows.filter((r) => r.status !== 202);
        console.log(
          `  ${kind.padEnd(9)} ${String(c).padStart(5)} ${String(o.deliveries).padStart(5)}  ${f(percentile(good, 50))} ${f(percentile(good, 99))} ${f(Math.max(...good))} ${f((1000 * rows.length) / wallMs)}  ${before}→${load()}  ${bad.length}${bad.length ? ` (first: ${bad[0].status} ${JSON.stringify(bad[0].error ?? "").slice(0, 160)})` : ""}`,
        );
      }
    }
    console.log(`
  new: a delivery id not seen before — verify the HMAC, read the trigger and the tenant, map the payload, then
  submitRun: load the ${o.questions}-question benchmark from R2, plan ${o.questions} jobs, write the run row, spec and
  idempotency key, enqueue the jobs. repeated: the same delivery id again — answered with the first delivery's
  run id from its idempotency key, nothing started. load: uptime's 1-minute load before→after the cell (2 cores).`);
    return 0;
  } finally {
    await stack.stop();
  }
}

runMain(main);
