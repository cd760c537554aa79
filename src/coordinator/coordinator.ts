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
import type { RunStatus } from "../storage/runs-repo";
import { alarmBy, WATCH_EVERY_MS } from "./alarm";
import type { CoordinatorOp, CoordinatorOpResult } from "./batch-ops";
import { budgetSpent } from "./budget";
import { type CancelOutcome, cancelRun, isCancelled } from "./cancel";
import { COORDINATOR_TABLES, migrateCoordinatorTables } from "./coordinator-tables";
import { RunTotals } from "./run-totals";
import { mirrorStatus } from "./d1-mirror";
import { flushEvents, RESULT_EVENTS_DELAY_MS, ResultOutbox } from "./event-outbox";
import { sendJobs } from "./job-queues";
import { isFinal, JobTable } from "./job-table";
import { LEASE_MS, leaseLeftSeconds } from "./leases";
import type { PairWindow } from "./progress";
import { ResultTable } from "./result-table";
import type { Claim, DeadMark, InitRun, RecordedResult, RunSnapshot } from "./rpc-types";
import { DEFAULT_HEARTBEAT_MS, parseLastEventId, RunEvents } from "./run-events";
import { log } from "../log";
import { RunMeta } from "./run-meta";
import { ScenarioTurns } from "./scenario-turns";
import { runSnapshot, runStatus } from "./snapshot";
import { ACCEPTED_SQL, type JobSender, resendStalled } from "./stall-watch";
import type { ShardInit } from "./shards";
import { type ReportAnswer, type RootFlags, RootOutbox, type ShardReport } from "./shard-report";
import { ALLOWANCE_WAIT_S, type AllowanceAnswer } from "./shard-allowance";
import type { JobCounts } from "./job-table";
import { RootSide } from "./root-side";
import { ShardSide } from "./shard-side";

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
  private readonly sql: SqlStorage;
  private readonly meta: RunMeta;
  private readonly jobs: JobTable;
  private readonly results: ResultTable;
  private readonly totals: RunTotals;
  private readonly outbox: ResultOutbox;
  /** A sharded run (shards.ts): in a shard, results its root has not taken; in either, the results refused for good. */
  private readonly toRoot: RootOutbox;
  /** A sharded run's two roles (shards.ts): a shard's (shard-side.ts) and its root's (root-side.ts). */
  private readonly shardSide: ShardSide;
  private readonly rootSide: RootSide;
  private readonly turns: ScenarioTurns;
  /** The run's watchers (GET /v1/runs/:id/events, run-events.ts). */
  private readonly events: RunEvents;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(COORDINATOR_TABLES);
    migrateCoordinatorTables(this.sql);
    this.totals = new RunTotals(this.sql, (fn) => this.transaction(fn));
    this.totals.ensure();
    this.meta = new RunMeta(this.sql);
    this.jobs = new JobTable(this.sql);
    this.results = new ResultTable(this.sql);
    this.outbox = new ResultOutbox(this.sql);
    this.toRoot = new RootOutbox(this.sql);
    this.turns = new ScenarioTurns(this.sql);
    // What both sides of a sharded run use; the ports are read when called (a test replaces them).
    const shared = {
      sql: this.sql,
      meta: this.meta,
      toRoot: this.toRoot,
      coordinator: (name: string) => this.env.RUNS.getByName(name),
      now: () => this.now(),
      transaction: (fn: () => void) => this.transaction(fn),
    };
    this.shardSide = new ShardSide({
      ...shared,
      storage: ctx.storage,
      jobs: this.jobs,
      sendJobs: (run, ids, accepted) => this.sendJobs(run, ids, accepted),
      cancelled: () => this.cancelled(),
    });
    this.rootSide = new RootSide({
      ...shared,
      budgetSpent: () => this.budgetSpent(),
      storeRows: (result) => this.storeRows(result),
      resultRecorded: (fresh) => this.resultRecorded(fresh),
      runStarted: () => this.runStarted(),
      finishIfDone: () => this.finishIfDone(),
    });
    this.events = new RunEvents(
      {
        resultsAfter: (seq, limit) => this.results.after(seq, limit),
        progress: () => ({
          done: this.totals.resultCounts().done,
          total: this.meta.totalResults() + this.turns.count(),
          cost_usd: this.meta.spentUsd(),
        }),
        status: () => this.status(),
        finishedAt: () => this.meta.finishedAt() ?? null,
        now: () => this.now(),
      },
      { heartbeatMs: () => this.heartbeatMs },
    );
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
    if (this.budgetSpent() || this.cancelled()) {
      this.jobs.skip(jobId, now);
      await this.finishIfDone();
      return { kind: "finished", state: "skipped" };
    }
    const busyFor = guardOn("claim_lease") ? leaseLeftSeconds(job, now) : null;
    if (busyFor !== null) return { kind: "busy", retry_in_seconds: busyFor };
    // A budgeted run's shard starts a job only within its allowance (shard-allowance.ts): at its
    // end it asks the root for more, then claims again (the job may have moved meanwhile).
    if (this.shardSide.outOfAllowance()) {
      if (asked) return { kind: "wait", retry_in_seconds: ALLOWANCE_WAIT_S };
      await this.shardSide.askAllowance();
      return this.claim(jobId, true);
    }
    const attempts = job.attempts + 1;
    this.jobs.start(jobId, attempts, now);
    // Results are recorded only under a claim, so a first claim has none to look for.
    const recorded = attempts > 1 && skipFinished ? this.results.idsOfJob(jobId) : [];
    if (this.meta.get("started") === "0") {
      this.meta.set("started", "1");
      await this.runStarted();
    }
    // No earlier attempt, no checkpoint: a job's first claim does not look.
    const answer = attempts > 1 ? this.jobs.answer(jobId) : null;
    // A scenario turn after the first starts from the state its predecessor left (scenario-turns.ts).
    const scenario = jobId.startsWith("s") ? { scenario_state: this.turns.state(jobId) } : {};
    return { kind: "run", recorded, attempts, answer, ...scenario };
  }

  /**
   * Records one finished result with its usage. Recording it again is a no-op. `completesJob`
   * marks its job done in the same call (the job's last result: one round trip instead of two).
   * The steps: store (once; with a scenario turn's successor job) → tell the watchers → arm the
   * outbox → budget → send the successor → finish the job.
   */
  async record(result: RecordedResult, opts: { completesJob?: boolean } = {}): Promise<void> {
    const { seq, nextTurn } = this.storeResult(result, !opts.completesJob);
    if (seq !== null) await this.resultRecorded([[result, seq]]);
    // A shard past its allowance tells the root at once: it may be the run reaching its budget.
    if (seq !== null && this.shardSide.outOfAllowance()) await this.shardSide.reportNow();
    // Queued jobs will not start once the budget is spent; jobs running now still finish.
    if (this.budgetSpent()) this.jobs.skipPending(this.now());
    if (nextTurn) await this.sendNextTurn(nextTurn);
    if (opts.completesJob) await this.finishJob(result.job_id, "done");
  }

  /**
   * A scenario turn's successor, created with the turn's result: in a cancelled run it is skipped
   * at once; still pending (the budget may have skipped it), its message goes to the queue. A send
   * that fails is left to the stall watch, which re-sends jobs the queue never accepted.
   */
  private async sendNextTurn(jobId: string): Promise<void> {
    if (this.cancelled()) {
      this.jobs.skipOpen(jobId, this.now());
      return;
    }
    if (this.jobs.row(jobId)?.state !== "pending") return;
    try {
      await this.sendJobs(this.meta.runRef(), [jobId], (ids) => {
        for (const id of ids) this.sql.exec(ACCEPTED_SQL, id, this.now());
      });
    } catch (err) {
      log.warn("scenario_turn_send_failed", { run_id: this.meta.runId(), job_id: jobId, error: String(err) });
    }
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
        if (op.op === "claim") out.push({ ok: true, claim: await this.claim(op.job_id), ...this.cancelFlag() });
        else if (op.op === "saveAnswer") {
          await this.saveAnswer(op.job_id, op.answer);
          out.push({ ok: true, ...this.cancelFlag() });
        } else {
          await this.record(op.result, { completesJob: op.completesJob });
          out.push({ ok: true, ...this.cancelFlag() });
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
    if (this.cancelled()) {
      this.jobs.skipOpen(jobId, this.now());
      await this.finishIfDone();
      return;
    }
    this.jobs.release(jobId, this.now());
  }

  async completeJob(jobId: string): Promise<void> {
    await this.finishJob(jobId, "done");
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
    await this.finishJob(jobId, "dead");
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
      syncD1Status: (status, finishedAt) => this.syncD1Status(status, finishedAt),
      finishIfDone: () => this.finishIfDone(),
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
    return { cancelled: this.cancelled() };
  }

  /** `pairs`: which (answering, parsing) pairs the summary holds (default all; the HTTP view pages them). */
  async snapshot(pairs?: PairWindow): Promise<RunSnapshot | null> {
    const runId = this.meta.runId();
    if (!runId) return null;
    const manifest = this.meta.manifest();
    const answering = this.meta.answeringIds();
    const parsing = this.meta.parsingIds();
    return runSnapshot(
      {
        run_id: runId,
        answering,
        parsing,
        results_per_pair: this.meta.resultsPerPair(),
        turns_per_pair: this.turns.perPair(answering, parsing),
        started: this.meta.started(),
        cancelled: this.cancelled(),
        budget_usd: this.meta.budgetUsd(),
        finished_at: this.meta.finishedAt(),
        manifest,
        jobs: this.jobCounts(),
        ...this.totals.read({ reported: Boolean(manifest) }),
        refused: this.toRoot.refusedCount(),
      },
      pairs,
    );
  }

  /** The stall watch and the webhook outbox (alarm.ts). */
  async alarm(): Promise<void> {
    if (this.shardSide.isShard()) return this.shardSide.alarm();
    const jobs = this.jobCounts();
    const eventsDue = await this.flushEvents();
    if (jobs.done + jobs.dead + jobs.skipped >= jobs.total) {
      // A finished run whose events could not all be handed over yet.
      if (eventsDue !== null) await alarmBy(this.ctx.storage, eventsDue);
      return;
    }
    await resendStalled(this.sql, this.meta.runRef(), this.sendJobs, () => this.now(), LEASE_MS);
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

  /**
   * The result's rows, once, in one transaction with its outbox entry and the running spend;
   * `renewLease`: a result that does not finish its job renews the job's lease (finishing stamps
   * it anyway). The result's sequence number when it is new, null for a repeat.
   */
  private storeResult(result: RecordedResult, renewLease: boolean): { seq: number | null; nextTurn: string | null } {
    let seq: number | null = null;
    let nextTurn: string | null = null;
    this.transaction(() => {
      seq = this.storeRows(result);
      // Created before the turn's own job is finished, so the run never looks over in between.
      if (result.next_turn && this.turns.add(result.next_turn, this.jobs, this.now())) nextTurn = result.next_turn.job_id;
      if (renewLease) this.jobs.renewLease(result.job_id, this.now());
      // A shard's new result waits for its root to take it (shard-report.ts).
      if (seq !== null && this.shardSide.isShard()) this.toRoot.add(result);
    });
    return { seq, nextTurn };
  }

  /** Inside a transaction: the result's rows, the running spend, the webhook outbox. */
  private storeRows(result: RecordedResult): number | null {
    const inserted = this.results.insert(result);
    // A running total, so the budget check on every claim and record does not re-sum the run.
    this.meta.addSpent(inserted.addedUsd);
    if (inserted.seq !== null && this.meta.resultEvents()) this.outbox.add(result.result_id);
    return inserted.seq;
  }

  /**
   * After new results are stored: the run's watchers see them and the webhook outbox is armed;
   * a shard instead reports them to its root soon. The place for steps that follow a new result.
   */
  private async resultRecorded(fresh: readonly (readonly [RecordedResult, number])[]): Promise<void> {
    if (this.shardSide.isShard()) return this.shardSide.reportSoon();
    for (const [result, seq] of fresh) {
      this.events.result({
        seq,
        result_id: result.result_id,
        question_id: result.question_id ?? null,
        answering_id: result.answering_id,
        parsing_id: result.parsing_id,
        verdict: result.verdict,
      });
    }
    // A new result of a run with result.created receivers is in the outbox, handed over shortly (alarm).
    if (this.meta.resultEvents()) await alarmBy(this.ctx.storage, this.now() + RESULT_EVENTS_DELAY_MS);
  }

  /** The run's first claim: watchers and D1 say running (a shard tells its root in its next report). */
  private async runStarted(): Promise<void> {
    if (this.shardSide.isShard()) return this.shardSide.reportSoon();
    this.events.statusChanged();
    await this.syncD1Status("running", null);
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

  /** The run's job counts: its own rows, or a sharded root's sum of its shards'. */
  private jobCounts(): JobCounts {
    const total = this.meta.get("job_total");
    return total === undefined ? this.jobs.counts() : this.rootSide.jobCounts(Number(total));
  }

  private openJobs(): number {
    if (this.meta.get("job_total") === undefined) return this.jobs.open();
    const c = this.jobCounts();
    return c.total - c.done - c.dead - c.skipped;
  }

  /** Callers get nothing back: a snapshot per finished job would re-aggregate the run each time. */
  private async finishJob(jobId: string, state: "done" | "dead"): Promise<void> {
    this.jobs.finish(jobId, state, this.now());
    await this.finishIfDone();
  }

  /**
   * When every job is done, dead or skipped: stamps the end once, mirrors the status to D1 and
   * emits the run's end event. The check and the stamp are synchronous, so of two last jobs
   * finishing at once only one gets past them: one event per run.
   */
  private async finishIfDone(): Promise<void> {
    if (this.shardSide.isShard()) return this.shardSide.reportSoon();
    if (this.openJobs() > 0 || this.meta.finishedAt()) return;
    const finishedAt = new Date(this.now()).toISOString();
    this.meta.set("finished_at", finishedAt);
    await this.ctx.storage.deleteAlarm();
    // Only the status is needed here: no pair summaries (a run may have thousands of pairs).
    const snap = (await this.snapshot({ offset: 0, limit: 0 }))!;
    await this.syncD1Status(snap.status, finishedAt);
    this.events.finished();
    const eventsDue = await this.flushEvents();
    if (eventsDue !== null) await alarmBy(this.ctx.storage, eventsDue);
  }

  private flushEvents(): Promise<number | null> {
    return flushEvents({
      env: this.env,
      meta: this.meta,
      outbox: this.outbox,
      snapshot: (pairs) => this.snapshot(pairs),
      now: () => this.now(),
    });
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

  /** The run's status without pair summaries. */
  private status(): RunStatus {
    return runStatus(
      this.jobCounts(),
      this.meta.started(),
      this.totals.resultCounts().graded,
      this.cancelled(),
      this.toRoot.refusedCount(),
    );
  }

  private cancelled(): boolean {
    return isCancelled((k) => this.meta.get(k));
  }

  private cancelFlag(): { cancelled?: true } {
    return this.cancelled() ? { cancelled: true } : {};
  }

  /**
   * A root or an unsharded run knows from its own spend. A shard knows it from its root
   * (`budget_spent`), or sees it coming: the run's spend at the root's last answer plus what the
   * shard recorded since, so its own jobs stop as an unsharded run's would.
   */
  private budgetSpent(): boolean {
    if (this.meta.get("budget_spent") === "1") return true;
    // A sharded root also counts what its shards said they spent, before their results reach it.
    if (this.meta.get("shards") && this.meta.budgetUsd() !== undefined)
      return budgetSpent(this.meta.budgetUsd(), Math.max(this.meta.spentUsd(), this.rootSide.shardsSpent()));
    if (!this.shardSide.isShard()) return budgetSpent(this.meta.budgetUsd(), this.meta.spentUsd());
    const unreported = this.meta.spentUsd() - Number(this.meta.get("reported_spent") ?? "0");
    return budgetSpent(this.meta.budgetUsd(), Number(this.meta.get("root_spent") ?? "0") + unreported);
  }

  private syncD1Status(status: RunStatus, finishedAt: string | null): Promise<void> {
    return mirrorStatus(this.env, this.meta, status, finishedAt);
  }

  private now(): number {
    return this.clock.now();
  }
}
