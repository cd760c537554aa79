/**
 * Scenario 8: a soak. 10,000 jobs (one judge each) with 10 % of the provider calls faulted —
 * 429s with a short retry-after, 500s, 529s (retried), malformed judge output (one repair call, then
 * a parsing failure), 400s (not retried: a bad_request failure) — delivered by invocations of 10
 * side by side. Every job must end with a result or a classified failure, the invariants hold, and
 * the worker's memory stays flat: workerd's resident set, sampled through the report sink, after a
 * full garbage collection in every isolate when the sink can ask for one (npm run reliability runs
 * this lane with workerd's inspector). Without the collection the soak's RSS climbs with the work
 * done (306 → 735 MB over 10,000 jobs, 29 Nov) although nothing is kept: native buffers held by
 * dead JS objects wait for a full collection V8 is in no hurry to run (scripts/lib/workerd-gc.mjs);
 * one collection takes it back to ~300 MB. Both series are reported (memory_mb, memory_raw_mb).
 * `leakKbPerJob` (a test of the check itself, guards.test.ts) keeps that much per job in the
 * worker's isolate, as a leak would.
 *
 * The fake's key gets limits no floor of the limiter's AIMD reaches (`SOAK_KEY_LIMITS`), as
 * bench/sharded-run's `--key-limits` does: the injected 429s come at 2 % of the calls whatever the
 * load, so with openai_compatible's defaults each one halved the key's allowance down to its floor
 * (a quarter of 6,000 requests and 10,000,000 tokens a minute: ~25 calls a second a model for
 * these ~1,500-token calls), and the soak measured that floor rather than the stack (over 800 s
 * for 10,000 jobs, jobs the window refused handed back again and again). The 429s are still injected,
 * retried and counted; the limiter's reaction to them is scenario 5's and 6's (and test/unit/limiter's).
 */
import { env } from "cloudflare:workers";
import { fakeStats } from "../integration/helpers";
import { startCapturedRun } from "../integration/limits-support";
import { deliveries, drainPipelined } from "./broker";
import { checkRun } from "./invariants";
import type { InvariantOutcome } from "./report";
import type { Env } from "../../src/env";
import { workload } from "./scenario";

/** Faults per model, as rules tried before the workload's replies: 2 % each, seeded. */
const FAULTS = [
  { fault: "429", retry_after_s: 0 },
  { fault: "500" },
  { fault: "529" },
  { fault: "400" },
  { fault: "malformed", judgeOnly: true },
];

/**
 * A key's limits whose AIMD floors (a quarter of the rates, 1/64 of the concurrency: limiter-state.ts)
 * still admit all the soak sends: 8 invocations × JOB_CONCURRENCY 4 = 32 calls at once a model.
 */
const SOAK_KEY_LIMITS = { rpm: 10_000_000, tpm: 10_000_000_000, concurrency: 2048 };

/** What `leakKbPerJob` keeps, for as long as the isolate lives. */
const leaked: Uint8Array[] = [];

export async function soakScenario(jobs: number, samples = 20, { leakKbPerJob = 0 } = {}) {
  // Each fault fires for 2 % of the calls reaching its rule (rules in order: 2 % of what the earlier ones left).
  const w = await workload("s8", { questions: jobs, replicates: 1, judges: 1, latencyMs: 2 }, (answerer, judges) =>
    [answerer, ...judges].flatMap((model, m) =>
      FAULTS.filter((f) => !(f.judgeOnly && model === answerer)).map((f, i) => ({
        match: { model, probability: 0.02 / (1 - 0.02 * i), seed: 100 + 10 * m + i },
        reply: { fault: f.fault, ...(f.retry_after_s !== undefined ? { retry_after_s: f.retry_after_s } : {}) },
      })),
    ),
  );
  const { runId, bodies } = await startCapturedRun(w.body);
  const keyLimited = {
    ...(env as unknown as Env),
    EDGEVAL_PROVIDER_LIMITS: JSON.stringify({ [new URL(env.FAKE_LLM_URL).origin]: SOAK_KEY_LIMITS }),
  };
  const memory: number[] = [];
  const rawMemory: number[] = [];
  let collected = 0;
  const sample = async () => {
    const m = await workerdMemory();
    memory.push(m.workerd_rss_mb);
    rawMemory.push(m.raw_rss_mb);
    collected = Math.max(collected, m.collected);
  };
  const every = Math.max(1, Math.floor(jobs / 80 / samples));
  // duringRound(k) runs as the k-th group of 8 invocations starts.
  const started = Date.now();
  // Invocations of 10 jobs, 8 always in flight: a backlog's consumer scaled out.
  const stats = await drainPipelined(deliveries(bodies), {
    parallel: 8,
    envFor: () => keyLimited,
    duringRound: async (round) => {
      // A round is 8 invocations of 10 jobs; filled so the pages are really taken.
      if (leakKbPerJob > 0) leaked.push(new Uint8Array(80 * leakKbPerJob * 1024).fill(1));
      if (round % every === 0) await sample();
    },
  });
  const seconds = (Date.now() - started) / 1000;
  await sample();
  const faults = await faultCounts([w.answerer, ...w.judges]);
  // Faults change how many calls a job needs (a retry, a repair, no judge after a refused answer):
  // re-paid calls are the successful answers the fake gave twice to the same body.
  const check = await checkRun({ runId, keys: w.keys, calls: { models: [w.answerer, ...w.judges] } });
  const unclassified = await env.DB.prepare(
    "SELECT COUNT(*) AS n FROM results WHERE run_id = ? AND verdict = 'error' AND failure_category IS NULL",
  )
    .bind(runId)
    .first<{ n: number }>();
  const errored = await env.DB.prepare(
    "SELECT failure_category AS c, COUNT(*) AS n FROM results WHERE run_id = ? AND verdict = 'error' GROUP BY c",
  )
    .bind(runId)
    .all<{ c: string; n: number }>();
  const half = Math.floor(memory.length / 2);
  const early = Math.max(...memory.slice(0, half));
  const late = Math.max(...memory.slice(half));
  const extra: Record<string, InvariantOutcome> = {
    failures_classified: {
      pass: unclassified!.n === 0,
      detail: `${unclassified!.n} errored results without a category; ${errored.results.map((r) => `${r.c} ${r.n}`).join(", ")}`,
    },
    // Flat: the second half's peak within 25 % (and 64 MB) of the first half's.
    memory_flat: {
      pass: late <= Math.max(early * 1.25, early + 64),
      detail: `workerd RSS${collected ? ` after a full collection in ${collected} isolates` : " (no collection: vitest without --inspect)"}: peak ${early} MB in the first half, ${late} MB in the second (${memory.length} samples); before the collections ${Math.max(...rawMemory.slice(0, half))} / ${Math.max(...rawMemory.slice(half))} MB`,
    },
  };
  return {
    check,
    extra,
    faults: Object.values(faults).reduce((s, n) => s + n, 0),
    size: `${jobs} jobs / ${w.keys.length} results`,
    figures: {
      seconds: Math.round(seconds),
      jobs_per_s: Math.round(jobs / seconds),
      retries: stats.retried,
      memory_mb: memory,
      memory_raw_mb: rawMemory,
      ...Object.fromEntries(Object.entries(faults).map(([f, n]) => [`fault_${f}`, n])),
      ...Object.fromEntries(errored.results.map((r) => [`failed_${r.c}`, r.n])),
    },
  };
}

async function faultCounts(models: string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of models) for (const [f, n] of Object.entries((await fakeStats(m)).faults)) out[f] = (out[f] ?? 0) + n;
  return out;
}

/**
 * workerd's resident memory in MB, from the host (the report sink reads /proc): after a full
 * collection in every isolate when the sink has workerd's inspector, and before it (raw).
 */
async function workerdMemory(): Promise<{ workerd_rss_mb: number; raw_rss_mb: number; collected: number }> {
  const res = await fetch(env.RELIABILITY_REPORT_URL.replace(/\/reports$/, "/memory?collect=1"));
  return (await res.json()) as { workerd_rss_mb: number; raw_rss_mb: number; collected: number };
}
