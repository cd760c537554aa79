#!/usr/bin/env node
// bench/scale-model — how fast a 100,000- or 1,000,000-job run could go on Cloudflare, and what binds.
//
// It takes the per-result costs of this code (calls per result, counted from the job path and
// written down below; bytes per result measured with --measure; CPU per result from
// bench/throughput) and Cloudflare's published limits (cited below), and prints for each run size
// the throughput ceiling of every component, the time the run would take at it, and which one binds.
// A ceiling is a rate the component cannot exceed for this run; the run goes no faster than the
// lowest. Nothing here is a measurement of a deployed run (none can be made from here).
//
//   node bench/scale-model.mjs [--jobs 100000,1000000] [--bytes-per-result B] [--cpu-ms-per-result C]
//                              [--latency-ms L=1000] [--provider-rpm R=6000] [--provider-concurrency P=64]
//                              [--job-concurrency J=4] [--shard-jobs S=5000] [--markdown] [--measure]
// A run of more than --shard-jobs jobs (COORDINATOR_SHARD_JOBS) is sharded (src/coordinator/shards.ts):
// one coordinator shard per range of that many jobs takes its jobs' claims and records and enqueues
// them from its alarm; the run's root takes the shards' batched reports.
// --measure starts the local stack, runs 400 one-result jobs (bench/throughput's shape, fake at 0 ms)
// and reads the local D1 database's pages (SQLite dbstat) for the bytes a result takes in D1,
// indexes and usage-ledger rows included; without it the figure measured on 2026-11-24 is used.
// --markdown prints the tables as Markdown (the README's copy).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Cloudflare's published limits. [Q] https://developers.cloudflare.com/queues/platform/limits/
 * [DO] https://developers.cloudflare.com/durable-objects/platform/limits/ and
 * https://developers.cloudflare.com/durable-objects/best-practices/rules-of-durable-objects/
 * [D1] https://developers.cloudflare.com/d1/platform/limits/ [W] https://developers.cloudflare.com/workers/platform/limits/
 * (as summarised in shared/reference/cloudflare-limits.md §1).
 */
export const LIMITS = {
  /** [DO] soft guidance: one object serves about 500–1,000 simple requests per second; the upper end is used. */
  doRequestsPerSecond: 1_000,
  /** [D1] one database runs queries one at a time: ~1,000 queries/s at 1 ms each (its own example). */
  d1QueriesPerSecond: 1_000,
  /** [D1] 10 GB per database (paid), not raisable. */
  d1BytesPerDatabase: 10e9,
  /** [Q] 5,000 messages per second per queue. */
  queueMessagesPerSecond: 5_000,
  /** [Q] 100 messages per sendBatch. */
  sendBatchMax: 100,
  /** [Q] up to 250 concurrent consumer invocations per queue. */
  consumerInvocations: 250,
  /** [W] 6 simultaneous open connections per invocation (fetch, R2, D1, queue sends). */
  connectionsPerInvocation: 6,
  /** [W] 10,000 subrequests per invocation on the paid plan (older docs: 1,000). */
  subrequestsPerInvocation: 10_000,
  /** [W][Q] 30 s of CPU per invocation by default (up to 5 min with limits.cpu_ms). */
  cpuMsPerInvocation: 30_000,
};

/**
 * What one result costs the shared pieces on this code's job path (src/jobs/job-runner.ts), for a
 * job with one answering and one parsing model (2 model calls). Worst case: nothing coalesced,
 * as when every invocation's JOB_CONCURRENCY jobs finish at different times.
 */
export const PER_RESULT = {
  /** Run coordinator: claim, answer checkpoint, record (+ completes the job): applyBatch calls (coordinator-batcher.ts). */
  coordinatorRequests: 3,
  /** ProviderLimiter of the key: acquire + release per model call (a lease handed on skips both). */
  limiterRequests: 4,
  /** D1: one batch per result (its row and ledger rows: 2 statements; the consumer coalesces a window). */
  d1Queries: 2,
  /** D1 reads per consumer invocation: the tenant row and its secrets (key-ring.ts), shared by its jobs. */
  d1ReadsPerInvocation: 2,
  /** Queue messages: the job's send and its delivery. */
  queueMessages: 1,
  /** Subrequests of a job inside its invocation: 2 model fetches, 3 coordinator, 4 limiter, 1 D1, spec read shared. */
  subrequests: 10,
  /** Model calls per result (answer + parse) and on its critical path. */
  modelCalls: 2,
  /**
   * D1 bytes per result (row with its trace + indexes + 2 usage-ledger rows): `--measure` on
   * 2026-11-24 read 1,949,696 B for 400 small results (bench/throughput's shape) → 4,874 B.
   */
  bytes: 4_874,
  /**
   * workerd CPU per result, all threads, locally (bench/throughput, no flags, 2026-11-29: 2.05–2.88 ms,
   * means 2.33 over 6 runs and 2.47 over 8), rounded up.
   */
  cpuMs: 2.5,
};

/**
 * A sharded run (src/coordinator/shards.ts, shard-report.ts, stall-watch.ts, shard-allowance.ts):
 * jobs per shard (COORDINATOR_SHARD_JOBS' default), a shard's report period and results per report,
 * the jobs a shard's alarm enqueues (10 sendBatch calls), and a budgeted run's allowance slices per shard.
 */
export const SHARDING = { jobsPerShard: 5_000, reportEveryMs: 200, reportMax: 500, enqueuePerAlarm: 1_000, slicesPerShard: 4 };

/** Coordinator shards of a run of `jobs` jobs (0: it fits one coordinator). */
export const shardCount = (jobs, jobsPerShard = SHARDING.jobsPerShard) => (jobs > jobsPerShard ? Math.ceil(jobs / jobsPerShard) : 0);

/** src/submit/plan.ts (a plain-Node script cannot import the TypeScript; test/unit/bench/scale-model.test.ts keeps them equal). */
export const MAX_RESULTS_PER_RUN = 100_000;

/** Per API request a tenant makes (auth and quota), besides its own work: bench/judge. */
export const PER_REQUEST = { d1Reads: 1, rateLimitRequests: 1 };

function parseArgs(argv) {
  const o = {
    jobs: [100_000, 1_000_000],
    bytes: PER_RESULT.bytes,
    cpuMs: PER_RESULT.cpuMs,
    latencyMs: 1000,
    providerRpm: 6000,
    providerConcurrency: 64,
    jobConcurrency: 4,
    shardJobs: SHARDING.jobsPerShard,
    markdown: false,
    measure: false,
  };
  const num = (flag, v) => {
    const n = Number(v);
    if (!(n > 0)) throw new Error(`${flag} needs a number > 0`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = () => inline ?? argv[++i];
    if (flag === "--jobs")
      o.jobs = value()
        .split(",")
        .map((v) => num(flag, v));
    else if (flag === "--bytes-per-result") o.bytes = num(flag, value());
    else if (flag === "--cpu-ms-per-result") o.cpuMs = num(flag, value());
    else if (flag === "--latency-ms") o.latencyMs = num(flag, value());
    else if (flag === "--provider-rpm") o.providerRpm = num(flag, value());
    else if (flag === "--provider-concurrency") o.providerConcurrency = num(flag, value());
    else if (flag === "--job-concurrency") o.jobConcurrency = num(flag, value());
    else if (flag === "--shard-jobs") o.shardJobs = num(flag, value());
    else if (flag === "--markdown") o.markdown = true;
    else if (flag === "--measure") o.measure = true;
    else throw new Error(`unknown option ${argv[i]}`);
  }
  return o;
}

/**
 * Ceilings in results per second for a run of `jobs` one-result jobs, and fixed limits that a run
 * of that size breaks outright (rate 0: it cannot run as built).
 */
export function ceilings(jobs, o) {
  const J = Math.min(o.jobConcurrency, LIMITS.connectionsPerInvocation);
  const shards = shardCount(jobs, o.shardJobs ?? SHARDING.jobsPerShard);
  // A job holds its invocation slot for its two model calls on the critical path.
  const jobSeconds = (PER_RESULT.modelCalls * o.latencyMs) / 1000;
  const rows = [
    {
      component: "provider (the key's rpm, concurrency ÷ call time)",
      perSecond: Math.min(o.providerRpm / 60, o.providerConcurrency / (o.latencyMs / 1000)) / PER_RESULT.modelCalls,
      why: `${o.providerRpm} rpm, ${o.providerConcurrency} in flight, ${PER_RESULT.modelCalls} calls of ${o.latencyMs} ms per result`,
    },
    ...coordinatorRows(shards),
    {
      component: "ProviderLimiter Durable Object (one per key and model)",
      perSecond: LIMITS.doRequestsPerSecond / PER_RESULT.limiterRequests,
      why: `${LIMITS.doRequestsPerSecond} req/s ÷ ${PER_RESULT.limiterRequests} calls per result`,
    },
    {
      component: "D1 (one database: result rows, ledger, per-invocation reads)",
      perSecond: LIMITS.d1QueriesPerSecond / (PER_RESULT.d1Queries + PER_RESULT.d1ReadsPerInvocation / J),
      why: `${LIMITS.d1QueriesPerSecond} queries/s ÷ (${PER_RESULT.d1Queries} + ${PER_RESULT.d1ReadsPerInvocation}/${J}) per result`,
    },
    {
      component: "job queue (one queue)",
      perSecond: LIMITS.queueMessagesPerSecond / PER_RESULT.queueMessages,
      why: `${LIMITS.queueMessagesPerSecond} msg/s`,
    },
    {
      component: "consumer invocations × JOB_CONCURRENCY",
      perSecond: (LIMITS.consumerInvocations * J) / jobSeconds,
      why: `${LIMITS.consumerInvocations} × ${J} jobs in flight, ${jobSeconds} s each`,
    },
  ];
  const limits = [];
  const dbBytes = jobs * o.bytes;
  limits.push({
    what: "D1 storage",
    value: `${(dbBytes / 1e9).toFixed(2)} GB of ${LIMITS.d1BytesPerDatabase / 1e9} GB (${o.bytes} B per result)`,
    breaks: dbBytes > LIMITS.d1BytesPerDatabase,
  });
  limits.push(...enqueueLimits(jobs, shards, o.shardJobs ?? SHARDING.jobsPerShard));
  // edgeval's own cap (src/submit/plan.ts MAX_RESULTS_PER_RUN, and the tenant quota jobs_per_run): a larger run is refused at submit.
  limits.push({
    what: "edgeval's results per run (plan.ts MAX_RESULTS_PER_RUN)",
    value: `${jobs.toLocaleString("en-US")} of ${MAX_RESULTS_PER_RUN.toLocaleString("en-US")}`,
    breaks: jobs > MAX_RESULTS_PER_RUN,
  });
  const batch = 10;
  limits.push({
    what: "a consumer invocation (batch of 10)",
    value: `${batch * PER_RESULT.subrequests} subrequests, ${(batch * o.cpuMs).toFixed(0)} ms CPU (locally measured; limits ${LIMITS.subrequestsPerInvocation} and ${LIMITS.cpuMsPerInvocation} ms)`,
    breaks: batch * PER_RESULT.subrequests > LIMITS.subrequestsPerInvocation || batch * o.cpuMs > LIMITS.cpuMsPerInvocation,
  });
  return { rows: rows.sort((a, b) => a.perSecond - b.perSecond), limits };
}

/**
 * The run's coordinators. Unsharded: one object takes every claim, checkpoint and record. Sharded:
 * each shard takes its jobs' (the same calls per result, spread over the shards), and the root takes
 * only the shards' reports: at most one per shard per report period, each with up to reportMax
 * results, so its request rate is set by the number of shards, not by the results.
 */
function coordinatorRows(shards) {
  const perObject = LIMITS.doRequestsPerSecond / PER_RESULT.coordinatorRequests;
  if (shards === 0)
    return [
      {
        component: "run coordinator Durable Object (one per run)",
        perSecond: perObject,
        why: `${LIMITS.doRequestsPerSecond} req/s ÷ ${PER_RESULT.coordinatorRequests} calls per result`,
      },
    ];
  const reportsPerSecond = Math.min(LIMITS.doRequestsPerSecond, (shards * 1000) / SHARDING.reportEveryMs);
  return [
    {
      component: `coordinator shards (${shards}, one per ${SHARDING.jobsPerShard.toLocaleString("en-US")} jobs)`,
      perSecond: shards * perObject,
      why: `${shards} × ${LIMITS.doRequestsPerSecond} req/s ÷ ${PER_RESULT.coordinatorRequests} calls per result`,
    },
    {
      component: "root coordinator (the shards' batched reports)",
      perSecond: reportsPerSecond * SHARDING.reportMax,
      why: `${reportsPerSecond} reports/s (≤ 1 per shard per ${SHARDING.reportEveryMs} ms) × ≤ ${SHARDING.reportMax} results; assumes its SQLite keeps up (no published rows/s)`,
    },
  ];
}

/**
 * Getting the jobs onto the queue. Unsharded: the submit's request sends every job itself. Sharded:
 * the submit's request only starts the shards (one call each), each shard's alarm sends
 * enqueuePerAlarm jobs per invocation; the root's request rate (one report per shard per period,
 * plus a budgeted run's allowance calls) must stay within one object's.
 */
function enqueueLimits(jobs, shards, jobsPerShard) {
  const sendCalls = (n) => Math.ceil(n / LIMITS.sendBatchMax);
  const fmt = (n) => n.toLocaleString("en-US");
  if (shards === 0)
    return [
      {
        what: "enqueue at submit (one request)",
        value: `${fmt(sendCalls(jobs))} sendBatch subrequests of ${fmt(LIMITS.subrequestsPerInvocation)} per invocation`,
        breaks: sendCalls(jobs) > LIMITS.subrequestsPerInvocation - 10,
      },
    ];
  const rootRate = (shards * 1000) / SHARDING.reportEveryMs;
  return [
    {
      what: "submit starts the shards (one request)",
      value: `${fmt(shards)} shard inits of ${fmt(LIMITS.subrequestsPerInvocation)} subrequests per invocation`,
      breaks: shards > LIMITS.subrequestsPerInvocation - 10,
    },
    {
      what: "enqueue (each shard's alarms)",
      value: `${Math.ceil(jobsPerShard / SHARDING.enqueuePerAlarm)} alarms per shard, ${sendCalls(SHARDING.enqueuePerAlarm)} sendBatch calls each`,
      breaks: sendCalls(SHARDING.enqueuePerAlarm) > LIMITS.subrequestsPerInvocation - 10,
    },
    {
      what: "root's request rate (reports, all shards busy)",
      value: `${fmt(rootRate)} req/s of ${fmt(LIMITS.doRequestsPerSecond)} (+ ~${SHARDING.slicesPerShard * shards} allowance calls per budgeted run, status reads, event streams)`,
      breaks: rootRate > LIMITS.doRequestsPerSecond,
      atLimit: rootRate === LIMITS.doRequestsPerSecond,
    },
  ];
}

const hms = (s) => (s >= 3600 ? `${(s / 3600).toFixed(1)} h` : s >= 60 ? `${(s / 60).toFixed(1)} min` : `${s.toFixed(0)} s`);

function print(jobs, o, { rows, limits }) {
  const binding = rows[0];
  const lines = [];
  if (o.markdown) {
    lines.push(
      `**${jobs.toLocaleString("en-US")} jobs** (1 answering × 1 parsing model each; model calls of ${o.latencyMs} ms; JOB_CONCURRENCY ${o.jobConcurrency}; COORDINATOR_SHARD_JOBS ${o.shardJobs})`,
      "",
    );
    lines.push("| component | ceiling (results/s) | run time at it | from |", "|---|---|---|---|");
    for (const r of rows)
      lines.push(
        `| ${r === binding ? `**${r.component}** (binds)` : r.component} | ${r.perSecond.toFixed(0)} | ${hms(jobs / r.perSecond)} | ${r.why} |`,
      );
    lines.push("", "| fixed limit | this run | |", "|---|---|---|");
    for (const l of limits) lines.push(`| ${l.what} | ${l.value} | ${l.breaks ? "**exceeded**" : l.atLimit ? "**at the limit**" : "ok"} |`);
  } else {
    lines.push(
      `${jobs.toLocaleString("en-US")} jobs — model calls of ${o.latencyMs} ms, JOB_CONCURRENCY ${o.jobConcurrency}, COORDINATOR_SHARD_JOBS ${o.shardJobs}`,
    );
    for (const r of rows)
      lines.push(
        `  ${r.perSecond.toFixed(0).padStart(7)} results/s  ${hms(jobs / r.perSecond).padStart(9)}  ${r.component}${r === binding ? "   ← binds" : ""}  (${r.why})`,
      );
    for (const l of limits) lines.push(`  ${l.breaks ? "EXCEEDED" : l.atLimit ? "AT LIMIT" : "ok      "}  ${l.what}: ${l.value}`);
  }
  console.log(`${lines.join("\n")}\n`);
}

/** Bytes per result in the local D1 after a 400-job run: pages of results and usage_ledger with their indexes. */
async function measureBytes() {
  const { startFakeLlm } = await import("../test/fake-llm/server.mjs");
  const { startLocalStack } = await import("../scripts/lib/local-stack.mjs");
  const { apiClient } = await import("../scripts/lib/runs.mjs");
  const { buildRun } = await import("./lib/throughput-run.mjs");
  const { DatabaseSync } = await import("node:sqlite");
  const persistTo = fs.mkdtempSync(path.join(fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir(), "edgeval-scale-"));
  const fake = await startFakeLlm({ latencyMs: 0 });
  const stack = await startLocalStack({ persistTo });
  const n = 400;
  try {
    const api = apiClient(stack.url, stack.token);
    const { run_id } = await api.submit(buildRun(n, `${fake.url}/v1`));
    await api.waitForRun(run_id, { timeoutMs: 300_000, intervalMs: 500 });
  } finally {
    await stack.stop();
    await fake.close();
  }
  const dir = path.join(persistTo, "v3/d1/miniflare-D1DatabaseObject");
  const file = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".sqlite"))
    .map((f) => path.join(dir, f))[0];
  const db = new DatabaseSync(file, { readOnly: true });
  const pages = db
    .prepare(
      "SELECT name, SUM(pgsize) AS bytes FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name IN ('results', 'usage_ledger')) GROUP BY name",
    )
    .all();
  const results = db.prepare("SELECT COUNT(*) AS n FROM results").get().n;
  db.close();
  fs.rmSync(persistTo, { recursive: true, force: true });
  const total = pages.reduce((a, p) => a + p.bytes, 0);
  console.log(
    `measured: ${results} results take ${total} B in D1 (${pages.map((p) => `${p.name} ${p.bytes}`).join(", ")}) → ${Math.round(total / results)} B per result\n`,
  );
  return Math.round(total / results);
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.measure) o.bytes = await measureBytes();
  console.log(
    `bench/scale-model — ceilings per component (Cloudflare's published limits ÷ this code's per-result costs; worst case, nothing coalesced)\n`,
  );
  for (const jobs of o.jobs) print(jobs, o, ceilings(jobs, o));
  console.log(
    `Per API request a tenant makes: ${PER_REQUEST.d1Reads} D1 read (its key) and ${PER_REQUEST.rateLimitRequests} rate-limit Durable Object call (one object per tenant: ${LIMITS.doRequestsPerSecond} requests/s per tenant at most).`,
  );
  return 0;
}

// Run only as a script; the unit test imports the tables.
if (import.meta.url === `file://${process.argv[1]}`)
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(`FAILED: ${err?.stack ?? err}`);
      process.exit(1);
    },
  );
