/**
 * RunCoordinator — one Durable Object per run (SQLite-backed): a thin RPC surface over the
 * modules that own each concern (README.md has the table). It owns the run's job states and the
 * set of recorded results; counters and summaries are derived from those rows, so recording the
 * same result twice cannot count it twice. Every write is synchronous SQL with no await in
 * between, so a call never interleaves half-way.
 *
 * It also watches for lost work: an alarm re-enqueues jobs whose message the queue never took,
 * whose consumer stopped renewing its lease, or whose message nears the queue's retention
 * (stall-watch.ts). Re-enqueuing is safe because every job effect is idempotent.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { guardOn } from "../lib/guards";
import type { Clock } from "../pipeline/types";
import { alarmBy, WATCH_EVERY_MS } from "./alarm";
import { budgetRoom, budgetWaitSeconds } from "./budget";
import type { CoordinatorOp, CoordinatorOpResult } from "./batch-ops";
import { type CancelOutcome, cancelRun } from "./cancel";
import { COORDINATOR_TABLES, migrateCoordinatorTables } from "./coordinator-tables";
import { coordinatorParts } from "./coordinator-parts";
import { sendJobs } from "./job-queues";
import { isFinal, type JobTable } from "./job-table";
import { LEASE_MS, leaseLeftSeconds } from "./leases";
import type { PairWindow } from "./progress";
import type { ResultRecorder } from "./result-recorder";
import type { ResultTable } from "./result-table";
import type { Claim, DeadMark, InitRun, RecordedResult, RunSnapshot } from "./rpc-types";
import { DEFAULT_HEARTBEAT_MS, parseLastEventId, type RunEvents } from "./run-events";
import type { RunLifecycle } from "./run-lifecycle";
import type { RunMeta } from "./run-meta";
import type { RunView } from "./run-view";
import type { RunTotals } from "./run-totals";
import type { ScenarioTurns } from "./scenario-turns";
import { ACCEPTED_SQL, type JobSender, resendStalled } from "./stall-watch";
import type { ShardInit } from "./shards";
import { queueSince, resumeAfterRestart } from "./volatile-queue";
import type { ReportAnswer, RootFlags, ShardReport } from "./shard-report";
import { ALLOWANCE_WAIT_S, type AllowanceAnswer } from "./shard-allowance";
import type { RootSide } from "./root-side";
import type { ShardSide } from "./shard-side";

export type { Claim, DeadMark, InitRun, RecordedResult, RunSnapshot } from "./rpc-types";

export class RunCoordinator extends DurableObject<Env> {
  /**
   * The coordinator's clock (leases, the stall alarm, finish times): a port, so a test can set the
   * time instead of waiting for it. The runtime constructs the object, so it is a field, not a parameter.
   */
  clock: Clock = { now: () => Date.now() };
  /** How the stall watch sends job messages (stall-watch.ts): a port too, so a test can count them. */
  sendJobs: JobSender = (run, ids, accepted) => sendJobs(this.env, run, ids, accepted);
  /** Between two heartbeats of an idle event stream (a field, so a test can shorten it). */
  heartbeatMs = DEFAULT_HEARTBEAT_MS;
  /**
   * When the job queue began, if it forgets its messages on a restart (the local runtime's); 0
   * deployed (volatile-queue.ts). A field, so a test can play a restart.
   */
  queueSince: number;
  private readonly sql: SqlStorage;
  private readonly meta: RunMeta;
  private readonly jobs: JobTable;
  private readonly results: ResultTable;
  private readonly totals: RunTotals;
  private readonly turns: ScenarioTurns;
  /** What the run is now: job counts, status, cancelled, budget spent, snapshot (run-view.ts). */
  private readonly state: RunView;
  /** The run's watchers (GET /v1/runs/:id/events, run-events.ts). */
  private readonly events: RunEvents;
  /** A result's way in: stored once, then the steps that follow a new result (result-recorder.ts). */
  private readonly recorder: ResultRecorder;
  /** The run's start and its one end (run-lifecycle.ts). */
  private readonly lifecycle: RunLifecycle;
  /** A sharded run's two roles (shards.ts): a shard's (shard-side.ts) and its root's (root-side.ts). */
  private readonly shardSide: ShardSide;
  private readonly rootSide: RootSide;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(COORDINATOR_TABLES);
    migrateCoordinatorTables(this.sql);
    this.queueSince = queueSince(env, this.now());
    // The parts call the ports when they need them (coordinator-parts.ts): a test replaces them after construction.
    ({
      meta: this.meta,
      jobs: this.jobs,
      results: this.results,
      totals: this.totals,
      turns: this.turns,
      state: this.state,
      events: this.events,
      recorder: this.recorder,
      lifecycle: this.lifecycle,
      shardSide: this.shardSide,
      rootSide: this.rootSide,
    } = coordinatorParts({
      env,
      storage: ctx.storage,
      now: () => this.now(),
      sendJobs: (run, ids, accepted) => this.sendJobs(run, ids, accepted),
      queueSince: () => this.queueSince,
      heartbeatMs: () => this.heartbeatMs,
      transaction: (fn) => this.transaction(fn),
      snapshot: (pairs) => this.snapshot(pairs),
    }));
    resumeAfterRestart(this.sql, this.meta, this.queueSince, {
      watchNow: () => void ctx.blockConcurrencyWhile(() => alarmBy(ctx.storage, this.now())),
      wakeShards: () => this.rootSide.initShards(),
    });
  }

  /** Idempotent: a second init of the same run changes nothing. */
  async init(run: InitRun): Promise<void> {
    if (this.meta.runId()) return this.rootSide.initShards();
    const now = this.now();
    this.transaction(() => {
      const { meta } = this;
      meta.set("run_id", run.run_id);
      if (run.tenant_id) meta.set("tenant_id", run.tenant_id);
      meta.set("answering_ids", JSON.stringify(run.answering_ids));
      meta.set("parsing_ids", JSON.stringify(run.parsing_ids));
      meta.set("results_per_pair", String(run.results_per_pair));
      meta.set("started", "0");
      if (run.budget_usd !== undefined) meta.set("budget_usd", String(run.budget_usd));
      if (run.manifest) meta.set("manifest", JSON.stringify(run.manifest));
      if (run.webhook_endpoint_ids) meta.set("webhook_endpoint_ids", JSON.stringify(run.webhook_endpoint_ids));
      if (run.result_events) meta.set("result_events", "1");
      if (run.shards) {
        meta.set("shards", JSON.stringify(run.shards));
        meta.set("job_total", String(run.shards.dims.questions * run.shards.dims.answering * run.shards.dims.replicates));
        meta.set("shards_started_at", String(now));
      }
      this.jobs.insertPending(run.job_ids, now);
    });
    await this.ctx.storage.setAlarm(now + WATCH_EVERY_MS);
    await this.rootSide.initShards();
  }

  /** Starts one shard of a sharded run with its range of the run's jobs (shard-side.ts). Idempotent. */
  async initShard(init: ShardInit): Promise<void> {
    return this.shardSide.init(init);
  }

  /**
   * A consumer is about to work on a job: tells it what is already recorded, or to skip it.
   * `asked`: a shard already asked its root for allowance for this claim (at most once per claim).
   */
  async claim(jobId: string, asked = false): Promise<Claim> {
    const job = this.jobs.row(jobId);
    if (!job) return { kind: "unknown" };
    // A redelivery of a finished job ends here; its results are recorded (src/lib/guards.ts).
    const skipFinished = guardOn("claim_skips_finished");
    if (skipFinished && isFinal(job.state)) return { kind: "finished", state: job.state };
    const now = this.now();
    // The check every job makes before its first model call: once the budget is spent or the run
    // cancelled, nothing starts.
    if (this.state.budgetSpent() || this.state.cancelled()) {
      this.jobs.skip(jobId, now);
      await this.lifecycle.finishIfDone();
      return { kind: "finished", state: "skipped" };
    }
    const busyFor = guardOn("claim_lease") ? leaseLeftSeconds(job, now) : null;
    if (busyFor !== null) return { kind: "busy", retry_in_seconds: busyFor };
    const held = await this.budgetHold(jobId, now, asked);
    if (held) return held;
    const attempts = job.attempts + 1;
    this.jobs.start(jobId, attempts, now);
    // Results are recorded only under a claim, so a first claim has none to look for.
    const recorded = attempts > 1 && skipFinished ? this.results.idsOfJob(jobId) : [];
    if (this.meta.get("started") === "0") {
      this.meta.set("started", "1");
      await this.lifecycle.runStarted();
    }
    // No earlier attempt, no checkpoint: a job's first claim does not look.
    const answer = attempts > 1 ? this.jobs.answer(jobId) : null;
    // A scenario turn after the first starts from the state its predecessor left (scenario-turns.ts).
    const scenario = jobId.startsWith("s") ? { scenario_state: this.turns.state(jobId) } : {};
    return { kind: "run", recorded, attempts, answer, ...scenario };
  }

  /**
   * A budgeted run starts a job only while its budget has room for it next to the jobs running
   * (budget.ts); otherwise the claim waits. A shard's limit is its allowance (shard-allowance.ts):
   * at it, the shard asks the root for more, then claims again (the job may have moved meanwhile).
   */
  private async budgetHold(jobId: string, now: number, asked: boolean): Promise<Claim | null> {
    const budget = this.meta.budgetUsd();
    if (budget === undefined) return null;
    const shard = this.shardSide.isShard();
    const limit = shard ? this.shardSide.allowanceUsd() : budget;
    const use = (recount: boolean) => ({ spentUsd: this.meta.spentUsd(), ...this.jobs.budgetUse(jobId, now, recount) });
    let room = budgetRoom(limit, use(false));
    if (room !== "start") room = budgetRoom(limit, use(true));
    if (room === "start") return null;
    if (!shard || room === "unknown") return { kind: "wait", retry_in_seconds: budgetWaitSeconds(this.jobs.open() - use(false).running) };
    if (asked) return { kind: "wait", retry_in_seconds: ALLOWANCE_WAIT_S };
    await this.shardSide.askAllowance();
    return this.claim(jobId, true);
  }

  /**
   * Records one finished result with its usage. Recording it again is a no-op. `completesJob`
   * marks its job done in the same call (the job's last result: one round trip instead of two).
   * The steps: store (once; with a scenario turn's successor job) → tell the watchers → arm the
   * outbox → budget → send the successor → finish the job.
   */
  async record(result: RecordedResult, opts: { completesJob?: boolean } = {}): Promise<void> {
    const { seq, nextTurn } = this.recorder.storeResult(result, !opts.completesJob);
    if (seq !== null) await this.recorder.resultRecorded([[result, seq]]);
    // A shard past its allowance tells the root at once: it may be the run reaching its budget.
    if (seq !== null && this.shardSide.outOfAllowance()) await this.shardSide.reportNow();
    // Queued jobs will not start once the budget is spent; jobs running now still finish.
    if (this.state.budgetSpent()) this.jobs.skipPending(this.now());
    if (nextTurn) await this.recorder.sendNextTurn(nextTurn);
    if (opts.completesJob) await this.lifecycle.finishJob(result.job_id, "done");
  }

  /**
   * Checkpoints a job's generated answer before its first judge call, next to the job's state: a
   * redelivery gets it back from `claim`. Deleted when the job finishes (its results hold it).
   */
  async saveAnswer(jobId: string, answer: string): Promise<void> {
    this.jobs.saveAnswer(jobId, answer);
  }

  /**
   * Several consumers' operations in one call (src/jobs/coordinator-batcher.ts), applied in order;
   * each gets its own outcome, so one that fails does not fail the others.
   */
  async applyBatch(ops: CoordinatorOp[]): Promise<CoordinatorOpResult[]> {
    const out: CoordinatorOpResult[] = [];
    for (const op of ops) {
      try {
        if (op.op === "claim") out.push({ ok: true, claim: await this.claim(op.job_id), ...this.state.cancelFlag() });
        else if (op.op === "saveAnswer") {
          await this.saveAnswer(op.job_id, op.answer);
          out.push({ ok: true, ...this.state.cancelFlag() });
        } else {
          await this.record(op.result, { completesJob: op.completesJob });
          out.push({ ok: true, ...this.state.cancelFlag() });
        }
      } catch (err) {
        out.push({ ok: false, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return out;
  }

  /**
   * The consumer gives a claimed job back (it will be redelivered later). In a cancelled run a job
   * given back is over: skipped, and the run may be finished.
   */
  async release(jobId: string): Promise<void> {
    if (this.state.cancelled()) {
      this.jobs.skipOpen(jobId, this.now());
      await this.lifecycle.finishIfDone();
      return;
    }
    this.jobs.release(jobId, this.now());
  }

  async completeJob(jobId: string): Promise<void> {
    await this.lifecycle.finishJob(jobId, "done");
  }

  /** The queue accepted these jobs' messages (the submit's sends): the stall watch leaves them to the queue. */
  async accepted(jobIds: string[]): Promise<void> {
    const now = this.now();
    for (const id of jobIds) this.sql.exec(ACCEPTED_SQL, id, now);
  }

  /**
   * A job whose message exhausted its deliveries (dead-letter queue) is dead, unless a delivery
   * holds its lease now (a copy still running may yet record results: the caller comes back when
   * the lease runs out). Answers what the run holds of the job, its results and usage rows: what
   * else reached D1 is no result of the run (src/jobs/dead-letter.ts removes it).
   */
  async markDead(jobId: string): Promise<DeadMark> {
    const job = this.jobs.row(jobId);
    const busyFor = job ? leaseLeftSeconds(job, this.now()) : null;
    if (busyFor !== null) return { kind: "busy", retry_in_seconds: busyFor };
    await this.lifecycle.finishJob(jobId, "dead");
    return { kind: "dead", recorded: this.results.idsOfJob(jobId), usage_keys: this.results.usageKeysOfJob(jobId) };
  }

  /** POST /v1/runs/:id/cancel: see cancel.ts. */
  async cancel(): Promise<CancelOutcome> {
    const outcome = await cancelRun({
      meta: (k) => this.meta.get(k),
      setMeta: (k, v) => this.meta.set(k, v),
      now: () => this.now(),
      // A sharded run's pending jobs are in its shards.
      skipPending: () => (this.meta.shardPlan() ? this.rootSide.pushFlags() : this.jobs.skipPending(this.now())),
      status: async () => (await this.snapshot({ offset: 0, limit: 0 }))!.status,
      syncD1Status: (status, finishedAt) => this.lifecycle.syncD1Status(status, finishedAt),
      finishIfDone: () => this.lifecycle.finishIfDone(),
    });
    this.events.statusChanged();
    return outcome;
  }

  /**
   * GET /v1/runs/:id/events, forwarded by the worker after its tenant check (src/http/run-events.ts):
   * the run's Server-Sent Events from after `Last-Event-ID` (run-events.ts).
   */
  async fetch(request: Request): Promise<Response> {
    if (!this.meta.runId()) return new Response("no such run", { status: 404 });
    const after = parseLastEventId(request.headers.get("last-event-id")) ?? 0;
    return new Response(this.events.open(after), {
      headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" },
    });
  }

  /** The run's flag the jobs' cancel gate refreshes (src/jobs/cancel-gate.ts), when no other answer carried it lately. */
  async runState(): Promise<{ cancelled: boolean }> {
    return { cancelled: this.state.cancelled() };
  }

  /** `pairs`: which (answering, parsing) pairs the summary holds (default all; the HTTP view pages them). */
  async snapshot(pairs?: PairWindow): Promise<RunSnapshot | null> {
    return this.state.snapshot(pairs);
  }

  /** The stall watch and the webhook outbox (alarm.ts). */
  async alarm(): Promise<void> {
    if (this.shardSide.isShard()) return this.shardSide.alarm();
    const jobs = this.state.jobCounts();
    const eventsDue = await this.lifecycle.flushEvents();
    if (jobs.done + jobs.dead + jobs.skipped >= jobs.total) {
      // A finished run whose events could not all be handed over yet.
      if (eventsDue !== null) await alarmBy(this.ctx.storage, eventsDue);
      return;
    }
    await resendStalled(this.sql, this.meta.runRef(), this.sendJobs, () => this.now(), LEASE_MS, this.queueSince);
    await alarmBy(this.ctx.storage, Math.min(this.now() + WATCH_EVERY_MS, eventsDue ?? Number.POSITIVE_INFINITY));
  }

  /**
   * Deletes the run's state (DELETE /v1/runs/:id, the retention sweep): every table and the
   * stall alarm. The tables come back empty, so a late job message finds its job unknown and is dropped.
   */
  async purge(): Promise<void> {
    await this.rootSide.purgeShards();
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.sql.exec(COORDINATOR_TABLES);
    this.totals.ensure();
    this.forgetMirrors();
  }

  /** The root of a sharded run takes a shard's report: each result's outcome and the run-wide stops (root-side.ts). */
  async report(r: ShardReport): Promise<ReportAnswer> {
    return this.rootSide.report(r);
  }

  /** The root of a budgeted sharded run grants a shard its next slice of the budget, or says it is spent (root-side.ts). */
  async allow(ask: { shard: number; spent_usd: number }): Promise<AllowanceAnswer> {
    return this.rootSide.allow(ask);
  }

  /** A shard told of a run-wide stop by its root (a push, or the answer to a report): shard-side.ts. */
  async stop(flags: RootFlags): Promise<void> {
    return this.shardSide.stop(flags);
  }

  /** A rolled-back transaction may have changed the in-memory mirrors: reload them on next use. */
  private transaction(fn: () => void): void {
    try {
      this.ctx.storage.transactionSync(fn);
    } catch (err) {
      this.forgetMirrors();
      throw err;
    }
  }

  private forgetMirrors(): void {
    this.meta.forget();
    this.jobs.forget();
  }

  private now(): number {
    return this.clock.now();
  }
}
