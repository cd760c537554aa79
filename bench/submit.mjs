#!/usr/bin/env node
// npm run bench:submit — one large run through the local stack, timed.
//
// N questions (default 1,000) × 2 `manual` answering models × 2 replicates = 4·N jobs, judged by one
// openai_compatible model on the fake LLM. Each model answers half the questions right and half
// wrong (the two models on opposite halves); the answer carries a marker the fake's two rules
// turn into a deterministic parse, so exactly half of the results pass.
//
// Prints: request body size, submit time (POST latency), drain time (POST returned → completed),
// results/s, results fetch time, and the fake's judge-call count and peak in flight.
// Exit 1 if the run does not complete within --timeout or the result count is not 4·N.
//
//   npm run bench:submit -- [--questions N] [--timeout S (default 1200)] [--latency-ms N]
import { reloadHint, startLocalStack } from "../scripts/lib/local-stack.mjs";
import { apiClient, summarize } from "../scripts/lib/runs.mjs";
import { ANSWERING, JUDGE_SCRIPT, manualRun } from "./lib/manual-run.mjs";
import { runMain } from "./lib/run-main.mjs";

const JUDGE_MODEL = "bench-judge";
const STALL_MS = 60_000;

function parseArgs(argv) {
  const opts = { questions: 1000, timeoutS: 1200, latencyMs: 0 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = () => Number(inline ?? argv[++i]);
    if (flag === "--questions") opts.questions = value();
    else if (flag === "--timeout") opts.timeoutS = value();
    else if (flag === "--latency-ms") opts.latencyMs = value();
    else throw new Error(`unknown option ${argv[i]} (use --questions N, --timeout S, --latency-ms N)`);
  }
  if (!Number.isInteger(opts.questions) || opts.questions < 1) throw new Error("--questions needs an integer >= 1");
  if (!(opts.timeoutS > 0)) throw new Error("--timeout needs seconds > 0");
  return opts;
}

const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const expectedResults = opts.questions * ANSWERING.length * 2;
  const script = JUDGE_SCRIPT;
  console.log(
    `bench:submit — ${opts.questions} questions × ${ANSWERING.length} manual answering models × 2 replicates = ${expectedResults} jobs, 1 judge on the fake LLM`,
  );
  const stack = await startLocalStack({ fake: { script, latencyMs: opts.latencyMs }, say: (m) => console.log(`  ${m}`) });
  try {
    const api = apiClient(stack.url, stack.token);
    const body = JSON.stringify(
      manualRun(opts.questions, { judgeBaseUrl: `${stack.fake.url}/v1`, judgeModel: JUDGE_MODEL, name: "bench:submit" }),
    );

    const submitted = await api.submit(body);
    const tSubmitted = Date.now();
    console.log(
      `  body ${(submitted.body_bytes / 1024).toFixed(1)} KiB, POST /v1/runs ${submitted.submit_ms.toFixed(0)} ms → run ${submitted.run_id}`,
    );

    let lastPrint = -Infinity;
    let lastDone;
    let lastChange = 0;
    let stallReported = false;
    let run;
    try {
      run = await api.waitForRun(submitted.run_id, {
        timeoutMs: opts.timeoutS * 1000,
        intervalMs: 1000,
        onProgress: (r, ms) => {
          const done = r?.progress?.done;
          if (done !== lastDone) (lastDone = done), (lastChange = ms);
          else if (ms - lastChange > STALL_MS && !stallReported) {
            stallReported = true;
            console.log(`  no progress for ${STALL_MS / 1000} s; last lines of wrangler dev:\n${stack.tail(15)}`);
            if (stack.reloads) console.log(`  ${reloadHint(stack)}`);
          }
          if (ms - lastPrint < 5000 && r?.status === "running") return;
          lastPrint = ms;
          const p = r?.progress ?? {};
          console.log(`  [${fmt(ms).padStart(9)}] ${String(r?.status).padEnd(9)} ${p.done ?? "?"}/${p.total ?? "?"}`);
        },
      });
    } catch (err) {
      console.error(`FAILED: ${err.message}`);
      console.error(`Last lines of wrangler dev:\n${stack.tail(30)}`);
      if (stack.reloads) console.error(reloadHint(stack));
      return 1;
    }
    const drainMs = Date.now() - tSubmitted;

    const tFetch = Date.now();
    const results = await api.allResults(submitted.run_id, { limit: 500 });
    const fetchMs = Date.now() - tFetch;
    const judge = stack.fake.stats(JUDGE_MODEL);
    const rows = summarize(results);
    const passed = rows.reduce((s, r) => s + r.passed, 0);
    const failed = rows.reduce((s, r) => s + r.failed, 0);
    const errored = rows.reduce((s, r) => s + r.errored, 0);

    console.log(`
  status           ${run.status}
  body size        ${(submitted.body_bytes / 1024).toFixed(1)} KiB (${submitted.body_bytes} bytes)
  submit time      ${submitted.submit_ms.toFixed(0)} ms (POST latency)
  drain time       ${fmt(drainMs)} (POST returned → ${run.status})
  throughput       ${(results.length / (drainMs / 1000)).toFixed(1)} results/s
  results fetched  ${results.length} in ${fmt(fetchMs)} (pages of 500)
  verdicts         ${passed} pass, ${failed} fail, ${errored} error
  judge calls      ${judge.total} (peak ${judge.peak_in_flight} in flight)`);

    let ok = true;
    if (run.status !== "completed") {
      console.error(`FAILED: run ended ${run.status}, not completed`);
      ok = false;
    }
    if (results.length !== expectedResults) {
      console.error(`FAILED: ${results.length} results, expected ${expectedResults}`);
      ok = false;
    }
    if (passed !== expectedResults / 2 || failed !== expectedResults / 2) {
      console.log(`  note: expected ${expectedResults / 2} pass and ${expectedResults / 2} fail from the scripted judge`);
    }
    return ok ? 0 : 1;
  } finally {
    await stack.stop();
  }
}

runMain(main);
