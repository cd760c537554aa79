#!/usr/bin/env node
// bench/throughput — how close a run's wall time comes to what the provider allows.
//
// N jobs (N questions × 1 answering model × 1 replicate, both models openai_compatible on the fake
// LLM) go through the local stack (wrangler dev: real queue, Durable Objects, D1, R2). The fake
// answers after L ms and refuses with 429 any request above C in flight (a provider's concurrency
// cap). Each job makes m = 2 calls (answer, then parse), k = 2 of them on the critical path, so no
// design can beat bound = max(k·L, N·m·L/C). Prints wall time (POST returned → run terminal),
// the bound, ratio = wall / bound, provider calls, 429s received, peak in flight.
//
//   node bench/throughput.mjs [--jobs N=400] [--latency-ms L=500] [--cap C=64]
//                             [--job-concurrency J=10] [--timeout S=900]
// --job-concurrency sets the consumer's JOB_CONCURRENCY var (jobs run side by side in one batch).
// Locally the queue delivers one batch (max_batch_size, 10) at a time, so at most
// min(J, batch size) jobs are in flight; in production batches run in parallel invocations
// (each limited to 6 simultaneous connections).
import { startFakeLlm } from "../test/fake-llm/server.mjs";
import { reloadHint, startLocalStack } from "../scripts/lib/local-stack.mjs";
import { apiClient } from "../scripts/lib/runs.mjs";

const ANSWER_MODEL = "tp-answer";
const JUDGE_MODEL = "tp-judge";
const M = 2;
const K = 2;

function parseArgs(argv) {
  const opts = { jobs: 400, latencyMs: 500, cap: 64, jobConcurrency: 10, timeoutS: 900 };
  const flags = { "--jobs": "jobs", "--latency-ms": "latencyMs", "--cap": "cap", "--job-concurrency": "jobConcurrency", "--timeout": "timeoutS" };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const key = flags[flag];
    if (!key) throw new Error(`unknown option ${argv[i]} (use ${Object.keys(flags).join(", ")})`);
    opts[key] = Number(inline ?? argv[++i]);
    if (!(opts[key] > 0)) throw new Error(`${flag} needs a number > 0`);
  }
  return opts;
}

function buildRun(n, baseUrl) {
  const questions = Array.from({ length: n }, (_, i) => ({
    id: `tp-${i}`,
    question: `What is ${i} plus ${i}?`,
    // The fake's default structured reply fills a boolean with true: every result passes.
    template: { fields: [{ name: "answer_is_right", type: "bool", description: "True if the response gives the right sum", ground_truth: true, verify_with: { type: "BooleanMatch" } }] },
  }));
  const model = (id, model_name) => ({ id, interface: "openai_compatible", model_name, base_url: baseUrl, temperature: 0 });
  return {
    run_name: `bench:throughput ${n}`,
    benchmark: { name: `bench:throughput ${n} jobs`, questions },
    config: { answering_models: [model("answer", ANSWER_MODEL)], parsing_models: [model("judge", JUDGE_MODEL)], replicate_count: 1 },
  };
}

const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const boundMs = Math.max(K * o.latencyMs, (o.jobs * M * o.latencyMs) / o.cap);
  console.log(`bench/throughput — N=${o.jobs} jobs, m=${M} calls each (k=${K} on the critical path), L=${o.latencyMs} ms, C=${o.cap}, JOB_CONCURRENCY=${o.jobConcurrency}`);
  const fake = await startFakeLlm({ latencyMs: o.latencyMs, maxInFlight: o.cap });
  const stack = await startLocalStack({ vars: { JOB_CONCURRENCY: String(o.jobConcurrency) }, say: (m) => console.log(`  ${m}`) });
  try {
    const api = apiClient(stack.url, stack.token);
    const submitted = await api.submit(buildRun(o.jobs, `${fake.url}/v1`));
    const t0 = Date.now();
    let run;
    let lastPrint = 0;
    try {
      run = await api.waitForRun(submitted.run_id, {
        timeoutMs: o.timeoutS * 1000,
        intervalMs: 100,
        onProgress: (r, ms) => {
          if (ms - lastPrint < 5000) return;
          lastPrint = ms;
          console.log(`  [${s(ms).padStart(9)}] ${r?.status} ${r?.progress?.done}/${r?.progress?.total}, ${fake.stats().in_flight} in flight`);
        },
      });
    } catch (err) {
      console.error(`FAILED: ${err.message}\n${stack.tail(30)}\n${reloadHint(stack)}`);
      return 1;
    }
    const wallMs = Date.now() - t0;
    const st = fake.stats();
    console.log(`
  status            ${run.status} (${run.progress.done}/${run.progress.total} results)
  wall              ${s(wallMs)} (POST returned → ${run.status})
  bound             ${s(boundMs)} = max(k·L, N·m·L/C) = max(${s(K * o.latencyMs)}, ${s((o.jobs * M * o.latencyMs) / o.cap)})
  ratio             ${(wallMs / boundMs).toFixed(2)} (wall / bound)
  provider calls    ${st.total} (${st.total - st.over_cap} answered, expected ${o.jobs * M})
  429s received     ${st.over_cap}
  peak in flight    ${st.peak_in_flight} (cap ${o.cap})
  model tokens      ${run.usage?.total?.total_tokens ?? "?"}`);
    if (stack.reloads) console.log(`  ${reloadHint(stack)}`);
    return run.status === "completed" ? 0 : 1;
  } finally {
    await stack.stop();
    await fake.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`FAILED: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
