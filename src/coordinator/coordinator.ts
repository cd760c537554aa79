/**
 * RunCoordinator — one Durable Object per run (SQLite-backed). It owns the run's job states and
 * the set of recorded results; counters and summaries are derived from those rows, so recording
 * the same result twice cannot count it twice. Every write is synchronous SQL with no await in
 * between, so a call never interleaves half-way.
 *
 * It also watches for lost work: an alarm re-enqueues jobs whose message the queue never took,
 * whose consumer stopped renewing its lease, or whose message nears the queue's retention
 * (stall-watch.ts). Re-enqueuing is safe because every job effect is idempotent.
 */
import type { TraitAggregate, TraitObservation } from "../rubric/aggregate";
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import type { RunRef } from "../storage/r2-keys";
import { setRunStatus, type RunStatus } from "../storage/runs-repo";
import { DEFAULT_TENANT } from "../storage/r2-keys";
import type { Clock } from "../pipeline/types";
import type { Verdict } from "../pipeline/verdict";
import { type RunManifest, withActualModels } from "./manifest";
import { gradedCount, pairTraits, type PairWindow, summarize, type PairSummary, statusOf } from "./progress";
import { runUsage, type RunUsage, unpricedModels, type UsageRowModel, type UsageGroup, type UsageRow } from "./cost";
import { sendJobs } from "./job-queues";
import { COORDINATOR_TABLES, migrateCoordinatorTables } from "./coordinator-tables";
import { DEFAULT_HEARTBEAT_MS, parseLastEventId, type ResultEventRow, RunEvents } from "./run-events";
import type { CoordinatorOp, CoordinatorOpResult } from "./batch-ops";
import { log } from "../log";
import { type CancelOutcome, cancelRun, isCancelled } from "./cancel";
import { ACCEPTED_SQL, type JobSender, RESENT_SQL, stalledJobsSql } from "./stall-watch";
import { EVENT_PAIRS, emitRunEvent } from "../webhooks/emit";
import { emitResultEvents, RESULT_EVENTS_PER_FLUSH } from "../webhooks/result-events";
import { guardOn } from "../lib/guards";

export interface InitRun {
  run_id: string;
  /** The owning tenant (absent on coordinators of runs from before tenants: tenant `default`). */
  tenant_id?: string;
  job_ids: string[];
  answering_ids: string[];
  parsing_ids: string[];
  /** Results each (answering, parsing) pair will have: questions × replicates. */
  results_per_pair: number;
  /** Once recorded cost reaches this, no further job starts (the run ends budget_exceeded). */
  budget_usd?: number;
  /** What the run is made of, for reproducing it (manifest.ts); absent on runs from before it. */
  manifest?: RunManifest;
  /** Endpoints the run named for its events (src/webhooks), besides the tenant's all-runs ones. */
  webhook_endpoint_ids?: string[];
  /** An endpoint took result.created when the run was submitted: each new result goes to the outbox. */
  result_events?: boolean;
}

export interface RecordedResult {
  result_id: string;
  job_id: string;
  /** For the result's live event (GET /v1/runs/:id/events); absent from consumers older than it. */
  question_id?: string;
  answering_id: string;
  parsing_id: string;
  verdict: Verdict;
  /** Token and cost rows of this result (cost.ts); kept idempotently with the result. */
  usage?: UsageRow[];
  /** One observation per rubric trait (src/rubric/aggregate.ts), for the per-trait aggregates. */
  traits?: TraitObservation[];
}

export type Claim =
  | {
      kind: "run";
      recorded: string[];
      attempts: number /** The answer an earlier attempt checkpointed here (JSON), if any. */;
      answer: string | null;
    }
  | { kind: "busy"; retry_in_seconds: number }
  | { kind: "finished"; state: "done" | "dead" | "skipped" }
  | { kind: "unknown" };

/** What `markDead` did: the job is dead and the run holds these of it, or a delivery holds its lease. */
export type DeadMark = { kind: "dead"; recorded: string[]; usage_keys: string[] } | { kind: "busy"; retry_in_seconds: number };

export interface RunSnapshot {
  run_id: string;
  status: RunStatus;
  progress: { total: number; done: number };
  summary: (PairSummary & { usage: RunUsage & { unpriced_models: string[] }; traits: Record<string, TraitAggregate> })[];
  /** Every (answering, parsing) pair of the run, whether or not `summary` holds them all. */
  pairs_total: number;
  /** Null for runs submitted before manifests existed. */
  manifest: ReturnType<typeof withActualModels> | null;
  jobs: JobCounts;
  usage: RunUsage & { unpriced_models: string[] };
  budget_usd: number | null;
  finished_at: string | null;
}

/** `skipped`: jobs never started because the run's budget was spent or the run was cancelled. */
type JobCounts = { total: number; done: number; dead: number; skipped: number };

const WATCH_EVERY_MS = 5 * 60_000;
/**
 * A claimed job is leased: a duplicate delivery arriving while another consumer works on it
 * waits instead of paying for the same model calls. Each recorded result renews the lease; a
 * consumer that gives the job back (retry) releases it at once.
 */
const LEASE_MS = 5 * 60_000;
/** A webhook event that could not be handed over is tried again this much later. */
const EMIT_RETRY_MS = 60_000;
/** New results wait this long in the outbox, so one hand-over carries many (result.created). */
const RESULT_EVENTS_DELAY_MS = 1_000;

export class RunCoordinator extends DurableObject<Env> {
  /**
   * The coordinator's clock (leases, the stall alarm, finish times): a port, so a test can set the
   * time instead of waiting for it. The runtime constructs the object, so it is a field, not a parameter.
   */
  clock: Clock = { now: () => Date.now() };
  /** How the stall watch sends job messages (stall-watch.ts): a port too, so a test can count them. */
  sendJobs: JobSender = (run, ids, accepted) => sendJobs(this.env, run, ids, accepted);
  private sql: SqlStorage;
  /**
   * In-memory mirrors of rows only this object writes, loaded on first use (a restarted object
   * starts empty and reloads): every claim and record reads the budget and the run's flags, and
   * each finished job asks whether any is still open — as SQL that was most of a record's cost.
   */
  private metaCache: Map<string, string> | undefined;
  private openJobCount: number | undefined;
  /** Between two heartbeats of an idle event stream (a field, so a test can shorten it). */
  heartbeatMs = DEFAULT_HEARTBEAT_MS;
  /** The run's watchers (GET /v1/runs/:id/events, run-events.ts). */
  private readonly events = new RunEvents(
    {
      resultsAfter: (seq, limit) =>
        this.sql
          .exec<ResultEventRow>(
            "SELECT rowid AS seq, result_id, question_id, answering_id, parsing_id, verdict FROM results WHERE rowid > ? ORDER BY rowid LIMIT ?",
            seq,
            limit,
          )
          .toArray(),
      progress: () => ({
        done: this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM results").one().n,
        total: this.totalResults(),
        cost_usd: Number(this.meta("spent_usd") ?? "0"),
      }),
      status: () => this.status(),
      finishedAt: () => this.meta("finished_at") ?? null,
      now: () => this.clock.now(),
    },
    { heartbeatMs: () => this.heartbeatMs },
  );

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(COORDINATOR_TABLES);
    migrateCoordinatorTables(this.sql);
  }

  /** Idempotent: a second init of the same run changes nothing. */
  async init(run: InitRun): Promise<void> {
    if (this.meta("run_id")) return;
    const now = this.clock.now();
    this.transaction(() => {
      this.setMeta("run_id", run.run_id);
      if (run.tenant_id) this.setMeta("tenant_id", run.tenant_id);
      this.setMeta("answering_ids", JSON.stringify(run.answering_ids));
      this.setMeta("parsing_ids", JSON.stringify(run.parsing_ids));
      this.setMeta("results_per_pair", String(run.results_per_pair));
      this.setMeta("started", "0");
      if (run.budget_usd !== undefined) this.setMeta("budget_usd", String(run.budget_usd));
      if (run.manifest) this.setMeta("manifest", JSON.stringify(run.manifest));
      if (run.webhook_endpoint_ids) this.setMeta("webhook_endpoint_ids", JSON.stringify(run.webhook_endpoint_ids));
      if (run.result_events) this.setMeta("result_events", "1");
      for (const id of run.job_ids) {
        this.sql.exec("INSERT INTO jobs (job_id, state, attempts, updated_at) VALUES (?, 'pending', 0, ?)", id, now);
      }
    });
    this.openJobCount = undefined;
    await this.ctx.storage.setAlarm(now + WATCH_EVERY_MS);
  }

  /** A consumer is about to work on a job: tells it what is already recorded, or to skip it. */
  async claim(jobId: string): Promise<Claim> {
    const job = this.sql
      .exec<{ state: string; attempts: number; updated_at: number }>("SELECT state, attempts, updated_at FROM jobs WHERE job_id = ?", jobId)
      .toArray()[0];
    if (!job) return { kind: "unknown" };
    // A redelivery of a finished job ends here; its results are recorded (src/lib/guards.ts).
    const skipFinished = guardOn("claim_skips_finished");
    if (skipFinished && (job.state === "done" || job.state === "dead" || job.state === "skipped"))
      return { kind: "finished", state: job.state };
    const now = this.clock.now();
    // The check every job makes before its first model call: once the budget is spent or the run
    // cancelled, nothing starts.
    if (this.budgetSpent() || this.cancelled()) {
      this.closeJobs(this.sql.exec("UPDATE jobs SET state = 'skipped', updated_at = ? WHERE job_id = ? RETURNING 1", now, jobId));
      await this.finishIfDone();
      return { kind: "finished", state: "skipped" };
    }
    if (guardOn("claim_lease") && job.state === "running" && job.updated_at > now - LEASE_MS) {
      return { kind: "busy", retry_in_seconds: Math.ceil((job.updated_at + LEASE_MS - now) / 1000) };
    }
    const attempts = job.attempts + 1;
    this.sql.exec("UPDATE jobs SET state = 'running', attempts = ?, updated_at = ? WHERE job_id = ?", attempts, now, jobId);
    // Results are recorded only under a claim, so a first claim has none to look for.
    const recorded =
      attempts > 1 && skipFinished
        ? this.sql
            .exec<{ result_id: string }>("SELECT result_id FROM results WHERE job_id = ?", jobId)
            .toArray()
            .map((r) => r.result_id)
        : [];
    if (this.meta("started") === "0") {
      this.setMeta("started", "1");
      this.events.statusChanged();
      await this.syncD1Status("running", null);
    }
    // No earlier attempt, no checkpoint: a job's first claim does not look.
    const answer =
      attempts > 1
        ? (this.sql.exec<{ answer: string }>("SELECT answer FROM answers WHERE job_id = ?", jobId).toArray()[0]?.answer ?? null)
        : null;
    return { kind: "run", recorded, attempts, answer };
  }

  /**
   * Records one finished result with its usage. Recording it again is a no-op. `completesJob`
   * marks its job done in the same call (the job's last result: one round trip instead of two).
   */
  async record(result: RecordedResult, opts: { completesJob?: boolean } = {}): Promise<void> {
    // A new result of a run with result.created receivers goes to the outbox, handed over shortly (alarm).
    const outbox = this.meta("result_events") === "1";
    let seq: number | null = null;
    this.transaction(() => {
      seq = this.insertResult(result, !opts.completesJob);
      if (seq !== null && outbox)
        this.sql.exec("INSERT INTO result_events (result_id) VALUES (?) ON CONFLICT DO NOTHING", result.result_id);
    });
    const isNew = seq !== null;
    if (seq !== null) {
      this.events.result({
        seq,
        result_id: result.result_id,
        question_id: result.question_id ?? null,
        answering_id: result.answering_id,
        parsing_id: result.parsing_id,
        verdict: result.verdict,
      });
    }
    if (isNew && outbox) await this.alarmBy(this.clock.now() + RESULT_EVENTS_DELAY_MS);
    // Queued jobs will not start once the budget is spent; jobs running now still finish.
    if (this.budgetSpent()) {
      this.closeJobs(
        this.sql.exec("UPDATE jobs SET state = 'skipped', updated_at = ? WHERE state = 'pending' RETURNING 1", this.clock.now()),
      );
    }
    if (opts.completesJob) await this.finishJob(result.job_id, "done");
  }

  /**
   * `renewLease`: a result that does not finish its job renews the job's lease (finishing stamps it
   * anyway). The result's sequence number (its rowid) when it is new, null for a repeat.
   */
  private insertResult(result: RecordedResult, renewLease: boolean): number | null {
    const seq =
      this.sql
        .exec<{ seq: number }>(
          `INSERT INTO results (result_id, job_id, answering_id, parsing_id, verdict, question_id) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT(result_id) DO NOTHING RETURNING rowid AS seq`,
          result.result_id,
          result.job_id,
          result.answering_id,
          result.parsing_id,
          result.verdict,
          result.question_id ?? null,
        )
        .toArray()[0]?.seq ?? null;
    let added = 0;
    for (const u of result.usage ?? []) {
      // RETURNING yields a row only when the row is new: a repeat adds nothing to the running spend.
      const inserted = this.sql
        .exec<{ cost_usd: number | null }>(
          `INSERT INTO usage_rows (key, job_id, answering_id, parsing_id, stage, model, input_tokens, output_tokens, cost_usd)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(key) DO NOTHING RETURNING cost_usd`,
          u.key,
          u.job_id,
          u.answering_id,
          u.parsing_id,
          u.stage,
          u.model,
          u.input_tokens,
          u.output_tokens,
          u.cost_usd,
        )
        .toArray();
      for (const row of inserted) added += row.cost_usd ?? 0;
    }
    // A running total, so the budget check on every claim and record does not re-sum the run.
    if (added > 0) this.setMeta("spent_usd", String(Number(this.meta("spent_usd") ?? "0") + added));
    for (const t of result.traits ?? []) {
      this.sql.exec(
        `INSERT INTO trait_rows (result_id, trait, answering_id, parsing_id, score, pass, errored)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(result_id, trait) DO NOTHING`,
        result.result_id,
        t.trait,
        result.answering_id,
        result.parsing_id,
        t.score,
        t.pass === null ? null : Number(t.pass),
        Number(t.errored),
      );
    }
    if (renewLease) this.sql.exec("UPDATE jobs SET updated_at = ? WHERE job_id = ?", this.clock.now(), result.job_id);
    return seq;
  }

  /**
   * Checkpoints a job's generated answer before its first judge call, next to the job's state: a
   * redelivery gets it back from `claim`. Deleted when the job finishes (its results hold it).
   */
  async saveAnswer(jobId: string, answer: string): Promise<void> {
    this.sql.exec(
      "INSERT INTO answers (job_id, answer) VALUES (?, ?) ON CONFLICT(job_id) DO UPDATE SET answer = excluded.answer",
      jobId,
      answer,
    );
  }

  /**
   * Several consumers' operations in one call (coordinator-batcher.ts), applied in order; each gets
   * its own outcome, so one that fails does not fail the others.
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
      this.closeJobs(
        this.sql.exec(
          "UPDATE jobs SET state = 'skipped', updated_at = ? WHERE job_id = ? AND state IN ('pending', 'running') RETURNING 1",
          this.clock.now(),
          jobId,
        ),
      );
      await this.finishIfDone();
      return;
    }
    this.sql.exec("UPDATE jobs SET state = 'pending', updated_at = ? WHERE job_id = ? AND state = 'running'", this.clock.now(), jobId);
  }

  async completeJob(jobId: string): Promise<void> {
    await this.finishJob(jobId, "done");
  }

  /** The queue accepted these jobs' messages (the submit's sends): the stall watch leaves them to the queue. */
  async accepted(jobIds: string[]): Promise<void> {
    const now = this.clock.now();
    for (const id of jobIds) this.sql.exec(ACCEPTED_SQL, id, now);
  }

  /**
   * A job whose message exhausted its deliveries (dead-letter queue) is dead, unless a delivery
   * holds its lease now (a copy still running may yet record results: the caller comes back when
   * the lease runs out). Answers what the run holds of the job, its results and usage rows: what
   * else reached D1 is no result of the run (src/jobs/dead-letter.ts removes it).
   */
  async markDead(jobId: string): Promise<DeadMark> {
    const now = this.clock.now();
    const job = this.sql
      .exec<{ state: string; updated_at: number }>("SELECT state, updated_at FROM jobs WHERE job_id = ?", jobId)
      .toArray()[0];
    if (job?.state === "running" && job.updated_at > now - LEASE_MS) {
      return { kind: "busy", retry_in_seconds: Math.ceil((job.updated_at + LEASE_MS - now) / 1000) };
    }
    await this.finishJob(jobId, "dead");
    return {
      kind: "dead",
      recorded: this.sql
        .exec<{ result_id: string }>("SELECT result_id FROM results WHERE job_id = ?", jobId)
        .toArray()
        .map((r) => r.result_id),
      usage_keys: this.sql
        .exec<{ key: string }>("SELECT key FROM usage_rows WHERE job_id = ?", jobId)
        .toArray()
        .map((r) => r.key),
    };
  }

  /** POST /v1/runs/:id/cancel: see cancel.ts. */
  async cancel(): Promise<CancelOutcome> {
    const outcome = await cancelRun({
      meta: (k) => this.meta(k),
      setMeta: (k, v) => this.setMeta(k, v),
      now: () => this.clock.now(),
      skipPending: () =>
        this.closeJobs(
          this.sql.exec("UPDATE jobs SET state = 'skipped', updated_at = ? WHERE state = 'pending' RETURNING 1", this.clock.now()),
        ),
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
    if (!this.meta("run_id")) return new Response("no such run", { status: 404 });
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
    const runId = this.meta("run_id");
    if (!runId) return null;
    const jobs = this.jobCounts();
    const results = this.sql
      .exec<{ answering_id: string; parsing_id: string; verdict: Verdict; n: number }>(
        "SELECT answering_id, parsing_id, verdict, COUNT(*) AS n FROM results GROUP BY answering_id, parsing_id, verdict",
      )
      .toArray();
    const answering = JSON.parse(this.meta("answering_ids")!) as string[];
    const parsing = JSON.parse(this.meta("parsing_ids")!) as string[];
    const perPair = Number(this.meta("results_per_pair"));
    const groups = this.usageGroups();
    const traits = this.sql
      .exec<{ answering_id: string; parsing_id: string; trait: string; score: number | null; pass: number | null; errored: number }>(
        "SELECT answering_id, parsing_id, trait, score, pass, errored FROM trait_rows",
      )
      .toArray();
    const unpriced = this.sql
      .exec<UsageRowModel>("SELECT DISTINCT answering_id, parsing_id, stage, model FROM usage_rows WHERE cost_usd IS NULL")
      .toArray();
    const manifest = this.meta("manifest");
    const reported = manifest
      ? this.sql.exec<UsageRowModel>("SELECT DISTINCT answering_id, parsing_id, stage, model FROM usage_rows").toArray()
      : [];
    const summary = summarize(answering, parsing, perPair, results, pairs).map((s) => {
      const pair = { answering_id: s.answering_model, parsing_id: s.parsing_model };
      return {
        ...s,
        usage: { ...runUsage(groups, pair), unpriced_models: unpricedModels(unpriced, pair) },
        traits: pairTraits(traits, s.answering_model, s.parsing_model),
      };
    });
    const budget = this.meta("budget_usd");
    return {
      run_id: runId,
      status: statusOf({ ...jobs, started: this.meta("started") === "1", graded: gradedCount(results), cancelled: this.cancelled() }),
      progress: { total: answering.length * parsing.length * perPair, done: results.reduce((a, r) => a + r.n, 0) },
      summary,
      pairs_total: answering.length * parsing.length,
      jobs,
      usage: { ...runUsage(groups), unpriced_models: unpricedModels(unpriced) },
      budget_usd: budget === undefined ? null : Number(budget),
      manifest: manifest ? withActualModels(JSON.parse(manifest) as RunManifest, reported) : null,
      finished_at: this.meta("finished_at") ?? null,
    };
  }

  async alarm(): Promise<void> {
    const jobs = this.jobCounts();
    const eventsDue = await this.flushEvents();
    if (jobs.done + jobs.dead + jobs.skipped >= jobs.total) {
      // A finished run whose events could not all be handed over yet.
      if (eventsDue !== null) await this.alarmBy(eventsDue);
      return;
    }
    const { sql, params } = stalledJobsSql(this.clock.now(), LEASE_MS);
    const stalled = this.sql.exec<{ job_id: string }>(sql, ...params).toArray();
    // Stamped per send as the queue takes it: an alarm retried after failing half-way re-sends only the rest.
    if (stalled.length > 0) {
      await this.sendJobs(
        this.runRef(),
        stalled.map((j) => j.job_id),
        (ids) => {
          const now = this.clock.now();
          for (const id of ids) {
            this.sql.exec(RESENT_SQL, now, id);
            this.sql.exec(ACCEPTED_SQL, id, now);
          }
        },
      );
    }
    const now = this.clock.now();
    await this.alarmBy(Math.min(now + WATCH_EVERY_MS, eventsDue ?? Number.POSITIVE_INFINITY));
  }

  /**
   * Deletes the run's state (DELETE /v1/runs/:id, the retention sweep): every table and the
   * stall alarm. The tables come back empty, so a late job message finds its job unknown and is dropped.
   */
  async purge(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.sql.exec(COORDINATOR_TABLES);
    this.metaCache = undefined;
    this.openJobCount = undefined;
  }

  /** Callers get nothing back: a snapshot per finished job would re-aggregate the run each time. */
  private async finishJob(jobId: string, state: "done" | "dead"): Promise<void> {
    this.sql.exec("DELETE FROM answers WHERE job_id = ?", jobId);
    this.closeJobs(
      this.sql.exec(
        "UPDATE jobs SET state = ?, updated_at = ? WHERE job_id = ? AND state NOT IN ('done', 'dead', 'skipped') RETURNING 1",
        state,
        this.clock.now(),
        jobId,
      ),
    );
    await this.finishIfDone();
  }

  /** A rolled-back transaction may have changed the in-memory mirrors: reload them on next use. */
  private transaction(fn: () => void): void {
    try {
      this.ctx.storage.transactionSync(fn);
    } catch (err) {
      this.metaCache = undefined;
      this.openJobCount = undefined;
      throw err;
    }
  }

  /** Jobs still pending or running; counted once, then kept up to date by `closeJobs`. */
  private openJobs(): number {
    this.openJobCount ??= this.sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE state NOT IN ('done', 'dead', 'skipped')")
      .one().n;
    return this.openJobCount;
  }

  /** Takes an UPDATE … RETURNING that moved open jobs to a final state (one row per job moved). */
  private closeJobs(moved: SqlStorageCursor<Record<string, SqlStorageValue>>): void {
    const n = moved.toArray().length;
    if (this.openJobCount !== undefined) this.openJobCount -= n;
  }

  /**
   * When every job is done, dead or skipped: stamps the end once, mirrors the status to D1 and
   * emits the run's end event. The check and the stamp are synchronous, so of two last jobs
   * finishing at once only one gets past them: one event per run.
   */
  private async finishIfDone(): Promise<void> {
    if (this.openJobs() > 0 || this.meta("finished_at")) return;
    const finishedAt = new Date(this.clock.now()).toISOString();
    this.setMeta("finished_at", finishedAt);
    await this.ctx.storage.deleteAlarm();
    // Only the status is needed here: no pair summaries (a run may have thousands of pairs).
    const snap = (await this.snapshot({ offset: 0, limit: 0 }))!;
    await this.syncD1Status(snap.status, finishedAt);
    this.events.finished();
    const eventsDue = await this.flushEvents();
    if (eventsDue !== null) await this.alarmBy(eventsDue);
  }

  /**
   * Sets the one alarm to `at` unless it is already due sooner. Inside alarm() getAlarm is null
   * until something sets it, so a record that armed the outbox meanwhile is not pushed back.
   */
  private async alarmBy(at: number): Promise<void> {
    const set = await this.ctx.storage.getAlarm();
    if (set === null || set > at) await this.ctx.storage.setAlarm(at);
  }

  /**
   * Hands the run's webhook events over (src/webhooks): the outbox of result.created first, one
   * chunk per call, then — once the run is finished and the outbox empty — the run's end event,
   * once (its ids derive from the run, so emitting again after a failure half-way duplicates
   * nothing). Returns when to come back (more outbox, or a failure to retry), or null when done.
   */
  private async flushEvents(): Promise<number | null> {
    const named = JSON.parse(this.meta("webhook_endpoint_ids") ?? "[]") as string[];
    const tenantId = this.meta("tenant_id") ?? DEFAULT_TENANT;
    try {
      const ids = this.sql
        .exec<{ result_id: string }>("SELECT result_id FROM result_events LIMIT ?", RESULT_EVENTS_PER_FLUSH + 1)
        .toArray()
        .map((r) => r.result_id);
      if (ids.length > 0) {
        const run = { tenant_id: tenantId, run_id: this.meta("run_id")!, named_endpoint_ids: named };
        const handed = await emitResultEvents(this.env, run, ids.slice(0, RESULT_EVENTS_PER_FLUSH));
        for (const id of handed) this.sql.exec("DELETE FROM result_events WHERE result_id = ?", id);
        // More waiting: the next hand-over in a fresh invocation (its own subrequest budget).
        if (ids.length > handed.length) return this.clock.now();
      }
      if (!this.meta("finished_at") || this.meta("run_event") === "emitted") return null;
      const snap = (await this.snapshot({ offset: 0, limit: EVENT_PAIRS }))!;
      await emitRunEvent(this.env, {
        tenant_id: tenantId,
        run_id: snap.run_id,
        status: snap.status,
        progress: snap.progress,
        pairs: snap.summary,
        pairs_total: snap.pairs_total,
        named_endpoint_ids: named,
      });
      this.setMeta("run_event", "emitted");
      return null;
    } catch (err) {
      log.warn("webhook_event_emit_failed", { run_id: this.meta("run_id"), error: String(err) });
      return this.clock.now() + EMIT_RETRY_MS;
    }
  }

  /** The run's status without pair summaries (statusOf over the job counts and graded results). */
  private status(): RunStatus {
    const graded = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM results WHERE verdict != 'error'").one().n;
    return statusOf({ ...this.jobCounts(), started: this.meta("started") === "1", graded, cancelled: this.cancelled() });
  }

  private totalResults(): number {
    const answering = JSON.parse(this.meta("answering_ids")!) as string[];
    const parsing = JSON.parse(this.meta("parsing_ids")!) as string[];
    return answering.length * parsing.length * Number(this.meta("results_per_pair"));
  }

  private cancelled(): boolean {
    return isCancelled((k) => this.meta(k));
  }

  private cancelFlag(): { cancelled?: true } {
    return this.cancelled() ? { cancelled: true } : {};
  }

  private budgetSpent(): boolean {
    const budget = this.meta("budget_usd");
    if (budget === undefined) return false;
    return Number(this.meta("spent_usd") ?? "0") >= Number(budget);
  }

  private usageGroups(): UsageGroup[] {
    return this.sql
      .exec<UsageGroup>(
        `SELECT answering_id, parsing_id, stage, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
           CASE WHEN COUNT(cost_usd) < COUNT(*) THEN NULL ELSE SUM(cost_usd) END AS cost_usd
         FROM usage_rows GROUP BY answering_id, parsing_id, stage`,
      )
      .toArray();
  }

  /** D1's runs row mirrors the status for listings; the object stays the source of truth. */
  private async syncD1Status(status: RunStatus, finishedAt: string | null): Promise<void> {
    await setRunStatus(this.env.DB, this.meta("tenant_id") ?? DEFAULT_TENANT, this.meta("run_id")!, status, finishedAt);
  }

  private runRef(): RunRef {
    return { run_id: this.meta("run_id")!, tenant_id: this.meta("tenant_id") };
  }

  private jobCounts(): JobCounts {
    const row = this.sql
      .exec<JobCounts>(
        `SELECT COUNT(*) AS total, COALESCE(SUM(state = 'done'), 0) AS done, COALESCE(SUM(state = 'dead'), 0) AS dead,
           COALESCE(SUM(state = 'skipped'), 0) AS skipped FROM jobs`,
      )
      .one();
    return row;
  }

  private meta(k: string): string | undefined {
    this.metaCache ??= new Map(
      this.sql
        .exec<{ k: string; v: string }>("SELECT k, v FROM meta")
        .toArray()
        .map((r) => [r.k, r.v]),
    );
    return this.metaCache.get(k);
  }

  private setMeta(k: string, v: string): void {
    this.sql.exec("INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v", k, v);
    this.metaCache?.set(k, v);
  }
}
