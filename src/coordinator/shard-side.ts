/**
 * A coordinator shard's side of a sharded run (shards.ts): its start with its range of the run's
 * jobs, its alarm enqueuing them and reporting its new results and job counts to the root
 * (shard-report.ts), its slice of a budgeted run's budget (shard-allowance.ts), and the run-wide
 * stops the root sends it. RunCoordinator holds one and calls it where a shard's steps differ from
 * an unsharded run's; the RPC methods stay the coordinator's.
 */
import { log } from "../log";
import { WATCH_EVERY_MS, alarmBy } from "./alarm";
import type { RunCoordinator } from "./coordinator";
import type { JobTable } from "./job-table";
import { LEASE_MS } from "./leases";
import type { RecordedResult } from "./rpc-types";
import type { RunMeta } from "./run-meta";
import { type ClosedCounts, REPORT_EVERY_MS, REPORT_MAX, type Refusal, type RootFlags, type RootOutbox } from "./shard-report";
import { type ShardInit, jobIdAt } from "./shards";
import { type JobSender, enqueueUnsent, resendStalled } from "./stall-watch";

/**
 * What the shard side uses of its coordinator: its storage, tables and ports. The ports are
 * callbacks that read the coordinator's fields when called (a test replaces its clock and sender).
 */
export interface ShardHost {
  readonly sql: SqlStorage;
  readonly storage: DurableObjectStorage;
  readonly meta: RunMeta;
  readonly jobs: JobTable;
  readonly toRoot: RootOutbox;
  /** The coordinator of that name (a shard's root). */
  coordinator(name: string): DurableObjectStub<RunCoordinator>;
  now(): number;
  sendJobs: JobSender;
  /** When the job queue began, if it forgets its messages on a restart; else 0 (volatile-queue.ts). */
  queueSince(): number;
  /** The coordinator's transaction (a rolled-back one reloads its in-memory mirrors). */
  transaction(fn: () => void): void;
  cancelled(): boolean;
}

export class ShardSide {
  private readonly sql: SqlStorage;
  private readonly storage: DurableObjectStorage;
  private readonly meta: RunMeta;
  private readonly jobs: JobTable;
  /** The results the root has not taken, and those it refused. */
  private readonly toRoot: RootOutbox;
  /** A shard's request for more allowance under way: concurrent claims wait for the same one. */
  private allowanceAsk: Promise<void> | undefined;

  constructor(private readonly host: ShardHost) {
    this.sql = host.sql;
    this.storage = host.storage;
    this.meta = host.meta;
    this.jobs = host.jobs;
    this.toRoot = host.toRoot;
  }

  isShard(): boolean {
    return this.meta.get("role") === "shard";
  }

  /**
   * Starts one shard of a sharded run (shards.ts) with its range of the run's jobs; its alarm then
   * enqueues them in chunks. Idempotent.
   */
  async init(init: ShardInit): Promise<void> {
    if (this.meta.runId()) return;
    const now = this.now();
    const ids = Array.from({ length: init.count }, (_, k) => jobIdAt(init.first + k, init.dims));
    this.transaction(() => {
      const { meta } = this;
      meta.set("run_id", init.run_id);
      if (init.tenant_id) meta.set("tenant_id", init.tenant_id);
      meta.set("role", "shard");
      meta.set("root", init.root);
      meta.set("shard", String(init.shard));
      if (init.budget_usd !== undefined) meta.set("budget_usd", String(init.budget_usd));
      meta.set("started", "0");
      this.jobs.insertPending(ids, now);
    });
    await this.storage.setAlarm(now);
  }

  /** A shard told of a run-wide stop by its root (a push, or the answer to a report). */
  async stop(flags: RootFlags): Promise<void> {
    if (this.applyFlags(flags)) await this.reportSoon();
  }

  /** Returns whether jobs were skipped (the root is to hear of it). */
  private applyFlags(flags: RootFlags): boolean {
    if (flags.cancelled_at && !this.host.cancelled()) this.meta.set("cancelled_at", flags.cancelled_at);
    if (flags.budget_spent && this.meta.get("budget_spent") !== "1") this.meta.set("budget_spent", "1");
    if (!flags.cancelled_at && !flags.budget_spent) return false;
    const before = this.jobs.open();
    this.jobs.skipPending(this.now());
    return this.jobs.open() !== before;
  }

  /** A shard's alarm: enqueue a chunk of its jobs, report to the root, re-send stalled jobs. */
  async alarm(): Promise<void> {
    const route = { ...this.meta.runRef(), shard: Number(this.meta.get("shard")) };
    const unsentLeft = await enqueueUnsent(this.sql, route, this.host.sendJobs, () => this.now());
    let reportLeft: boolean;
    try {
      reportLeft = await this.reportToRoot();
    } catch (err) {
      log.warn("shard_report_failed", { run_id: this.meta.runId(), shard: route.shard, error: String(err) });
      await alarmBy(this.storage, this.now() + 1_000);
      return;
    }
    if (!unsentLeft) await resendStalled(this.sql, route, this.host.sendJobs, () => this.now(), LEASE_MS, this.host.queueSince());
    if (unsentLeft || reportLeft) await alarmBy(this.storage, this.now());
    else if (this.jobs.open() > 0) await alarmBy(this.storage, this.now() + WATCH_EVERY_MS);
  }

  /**
   * Sends the root the oldest results it has not taken and, when they are all of them, the shard's
   * job counts (a job counted closed has its results in the same report or an earlier one). A result
   * the root refuses, or a row the shard cannot read back, is kept as refused and dropped, so the
   * ones after it still go. Returns whether results are left for another report.
   */
  private async reportToRoot(): Promise<boolean> {
    const rows = this.toRoot.first(REPORT_MAX + 1);
    const all = rows.length <= REPORT_MAX;
    const batch = rows.slice(0, REPORT_MAX);
    const sent: RecordedResult[] = [];
    const unreadable: Refusal[] = [];
    for (const row of batch) {
      if ("result" in row) sent.push(row.result);
      else unreadable.push(this.refuseUnreadable(row.seq, row.body, row.unreadable));
    }
    const counts = this.jobs.counts();
    const jobs: ClosedCounts | null = all ? { done: counts.done, dead: counts.dead, skipped: counts.skipped } : null;
    const started = this.meta.get("started") === "1";
    const spentAtSend = this.meta.spentUsd();
    const finished = all && this.jobs.open() === 0;
    const said = JSON.stringify([jobs, started, spentAtSend, finished]);
    if (rows.length === 0 && this.meta.get("reported") === said) return false;
    const shard = Number(this.meta.get("shard"));
    const answer = await this.rootStub().report({
      shard,
      results: sent,
      jobs,
      started,
      spent_usd: spentAtSend,
      finished,
      ...(unreadable.length ? { unreadable } : {}),
    });
    this.transaction(() => {
      answer.outcomes.forEach((o, i) => {
        const result = sent[i];
        if (o.outcome !== "refused" || !result) return;
        this.toRoot.refused(result.result_id, result.job_id, o.reason, o.detail, this.now());
        log.warn("shard_result_refused", {
          run_id: this.meta.runId(),
          shard,
          result_id: result.result_id,
          reason: o.reason,
          detail: o.detail,
        });
      });
      this.toRoot.remove(batch.at(-1)?.seq ?? 0);
      if (all) this.meta.set("reported", said);
      // The root's total now holds everything this report carried.
      this.meta.set("root_spent", String(answer.spent_usd));
      this.meta.set("reported_spent", String(spentAtSend));
    });
    // Jobs skipped by a stop change the counts: reported by the next alarm.
    return this.applyFlags(answer) || !all;
  }

  /** A `to_root` row that does not parse: refused here, and the root told (its ids as far as they can be read). */
  private refuseUnreadable(seq: number, body: string, why: string): Refusal {
    let ids: { result_id?: unknown; job_id?: unknown } = {};
    try {
      ids = JSON.parse(body) as typeof ids;
    } catch {}
    const resultId = typeof ids.result_id === "string" ? ids.result_id : `to_root#${seq}`;
    this.toRoot.refused(resultId, typeof ids.job_id === "string" ? ids.job_id : "", "unreadable", why, this.now());
    log.warn("shard_result_refused", { run_id: this.meta.runId(), result_id: resultId, reason: "unreadable", detail: why });
    return { result_id: resultId, job_id: typeof ids.job_id === "string" ? ids.job_id : "", detail: why };
  }

  /** A report at once (the end of an allowance); one that fails is left to the alarm. */
  async reportNow(): Promise<void> {
    try {
      if (await this.reportToRoot()) await this.reportSoon();
    } catch (err) {
      log.warn("shard_report_failed", { run_id: this.meta.runId(), shard: Number(this.meta.get("shard")), error: String(err) });
      await this.reportSoon();
    }
  }

  private rootStub() {
    return this.host.coordinator(this.meta.get("root")!);
  }

  /** A budgeted run's shard whose recorded spend reached the allowance its root granted it. */
  outOfAllowance(): boolean {
    if (!this.isShard() || this.meta.budgetUsd() === undefined) return false;
    return this.meta.spentUsd() >= this.allowanceUsd();
  }

  /** What the root has granted this shard of a budgeted run so far. */
  allowanceUsd(): number {
    return Number(this.meta.get("allowance_usd") ?? "0");
  }

  /** Asks the root for more allowance (shard-allowance.ts); claims arriving meanwhile share the one call. */
  askAllowance(): Promise<void> {
    this.allowanceAsk ??= this.rootStub()
      .allow({ shard: Number(this.meta.get("shard")), spent_usd: this.meta.spentUsd() })
      .then(async (answer) => {
        if (answer.allowance_usd > Number(this.meta.get("allowance_usd") ?? "0"))
          this.meta.set("allowance_usd", String(answer.allowance_usd));
        if (answer.budget_spent && this.applyFlags({ cancelled_at: null, budget_spent: true, spent_usd: 0 })) await this.reportSoon();
      })
      .finally(() => {
        this.allowanceAsk = undefined;
      });
    return this.allowanceAsk;
  }

  /** A shard reports its changes at most every REPORT_EVERY_MS. */
  async reportSoon(): Promise<void> {
    await alarmBy(this.storage, this.now() + REPORT_EVERY_MS);
  }

  private transaction(fn: () => void): void {
    this.host.transaction(fn);
  }

  private now(): number {
    return this.host.now();
  }
}
