/**
 * A sharded run's root side (shards.ts): it starts the shards, takes each shard's report
 * (shard-report.ts), deals a budgeted run's budget out to them (shard-allowance.ts), and tells
 * every shard of a run-wide stop. RunCoordinator holds one and calls it from its RPC methods (report,
 * allow) and where a root's steps differ from an unsharded run's (init, cancel).
 */
import { log } from "../log";
import { coordinatorName } from "../storage/r2-keys";
import type { RunCoordinator } from "./coordinator";
import type { RecordedResult } from "./rpc-types";
import type { RunMeta } from "./run-meta";
import type { JobCounts } from "./job-table";
import { type AllowanceAnswer, grantSlice, ShardBudgets } from "./shard-allowance";
import { type ReportAnswer, type ResultOutcome, type RootFlags, type RootOutbox, ShardCounts, type ShardReport } from "./shard-report";
import { shardInit, shardName } from "./shards";

/**
 * What the root side uses of its coordinator: its tables, and the coordinator's own steps it shares
 * (storing a result's rows, what follows new results, the start and the end of the run), as callbacks.
 */
export interface RootHost {
  readonly sql: SqlStorage;
  readonly meta: RunMeta;
  readonly toRoot: RootOutbox;
  /** The coordinator of that name (a shard of the run). */
  coordinator(name: string): DurableObjectStub<RunCoordinator>;
  now(): number;
  /** The coordinator's transaction (a rolled-back one reloads its in-memory mirrors). */
  transaction(fn: () => void): void;
  budgetSpent(): boolean;
  /** Inside a transaction: the result's rows, the running spend, the webhook outbox; its sequence number when new. */
  storeRows(result: RecordedResult): number | null;
  /** After new results are stored: the watchers, the webhook outbox. */
  resultRecorded(fresh: readonly (readonly [RecordedResult, number])[]): Promise<void>;
  /** The run's first claim. */
  runStarted(): Promise<void>;
  finishIfDone(): Promise<void>;
}

export class RootSide {
  private readonly meta: RunMeta;
  /** The results refused for good (`refused_results`). */
  private readonly toRoot: RootOutbox;
  /** Each shard's job counts (shard-report.ts). */
  private readonly shardJobs: ShardCounts;
  /** A sharded budgeted run (shard-allowance.ts): each shard's allowance and spend. */
  private readonly budgets: ShardBudgets;

  constructor(private readonly host: RootHost) {
    this.meta = host.meta;
    this.toRoot = host.toRoot;
    this.shardJobs = new ShardCounts(host.sql);
    this.budgets = new ShardBudgets(host.sql);
  }

  /** The run's job counts: every shard's summed, over the run's total. */
  jobCounts(total: number): JobCounts {
    return this.shardJobs.counts(total);
  }

  /** The run's spend as its shards last said (each shard's results may reach the root later). */
  shardsSpent(): number {
    return this.budgets.totalSpent();
  }

  /** A sharded run's root starts its shards (repeatable: a shard started already changes nothing). */
  async initShards(): Promise<void> {
    const plan = this.meta.shardPlan();
    if (!plan) return;
    const root = coordinatorName(this.meta.runRef());
    await Promise.all(
      Array.from({ length: plan.count }, (_, s) =>
        this.host
          .coordinator(shardName(root, s))
          .initShard(shardInit(root, { ...this.meta.runRef(), budget_usd: this.meta.budgetUsd() }, plan, s)),
      ),
    );
  }

  /**
   * The root of a sharded run takes a shard's report (shard-report.ts): each new result stored once,
   * as `record` stores it, or refused for good with its reason (the others still go in); then the
   * shard's job counts and spend. Answers each result's outcome and the run-wide stops.
   */
  async report(r: ShardReport): Promise<ReportAnswer> {
    const fresh: [RecordedResult, number][] = [];
    const outcomes: ResultOutcome[] = [];
    const answering = new Set(this.meta.answeringIds());
    const parsing = new Set(this.meta.parsingIds());
    for (const result of r.results) {
      const outcome = this.takeResult(result, answering, parsing);
      outcomes.push(outcome.taken);
      if (outcome.seq !== null) fresh.push([result, outcome.seq]);
    }
    this.transaction(() => {
      for (const u of r.unreadable ?? []) this.toRoot.refused(u.result_id, u.job_id, "unreadable", u.detail, this.now());
      if (r.jobs) this.shardJobs.update(r.shard, r.jobs);
      if (r.spent_usd !== undefined) this.budgets.spent(r.shard, r.spent_usd);
      if (r.finished) this.budgets.handBack(r.shard);
    });
    if (fresh.length > 0) await this.host.resultRecorded(fresh);
    if (r.started && this.meta.get("started") === "0") {
      this.meta.set("started", "1");
      await this.host.runStarted();
    }
    await this.stopShardsIfBudgetSpent();
    await this.host.finishIfDone();
    return { ...this.rootFlags(), outcomes };
  }

  /** One reported result: stored (in its own transaction, so a refusal rolls back only its rows), a repeat, or refused. */
  private takeResult(
    result: RecordedResult,
    answering: ReadonlySet<string>,
    parsing: ReadonlySet<string>,
  ): { taken: ResultOutcome; seq: number | null } {
    let taken: ResultOutcome;
    let seq: number | null = null;
    if (!answering.has(result.answering_id) || !parsing.has(result.parsing_id)) {
      taken = { outcome: "refused", reason: "unknown_pair", detail: `pair ${result.answering_id}/${result.parsing_id} is not the run's` };
    } else {
      try {
        this.transaction(() => {
          seq = this.host.storeRows(result);
        });
        taken = { outcome: seq === null ? "duplicate" : "accepted" };
      } catch (err) {
        taken = { outcome: "refused", reason: "rows_rejected", detail: err instanceof Error ? err.message : String(err) };
      }
    }
    if (taken.outcome === "refused") {
      this.toRoot.refused(result.result_id, result.job_id, taken.reason, taken.detail, this.now());
      log.warn("root_refused_result", {
        run_id: this.meta.runId(),
        result_id: result.result_id,
        reason: taken.reason,
        detail: taken.detail,
      });
    }
    return { taken, seq };
  }

  /**
   * The root of a budgeted sharded run grants a shard its next slice of the budget
   * (shard-allowance.ts), or says the budget is spent.
   */
  async allow(ask: { shard: number; spent_usd: number }): Promise<AllowanceAnswer> {
    const budget = this.meta.budgetUsd();
    const plan = this.meta.shardPlan();
    if (budget === undefined || !plan) return { allowance_usd: Number.MAX_VALUE, budget_spent: false };
    this.budgets.spent(ask.shard, ask.spent_usd);
    if (this.host.budgetSpent()) {
      await this.stopShardsIfBudgetSpent();
      return { allowance_usd: 0, budget_spent: true };
    }
    const rows = this.budgets.rows();
    // Until a job has finished somewhere, what one costs is unknown: one shard at a time holds an
    // allowance, so one job runs run-wide, as in an unsharded run (budget.ts).
    const mine = rows.get(ask.shard)?.granted ?? 0;
    if (mine === 0 && !this.jobCostKnown() && [...rows.values()].some((r) => r.granted > r.spent))
      return { allowance_usd: 0, budget_spent: false };
    const next = grantSlice(budget, plan.count, rows, ask.shard);
    if (next !== null) this.budgets.grant(ask.shard, next);
    return { allowance_usd: next ?? rows.get(ask.shard)?.granted ?? 0, budget_spent: false };
  }

  /** A job has finished or been paid for somewhere in the run. */
  private jobCostKnown(): boolean {
    if (this.budgets.totalSpent() > 0) return true;
    const { done, dead } = this.shardJobs.counts(0);
    return done + dead > 0;
  }

  /** Once the run's budget is spent, every shard hears it once; every later report's answer carries it too. */
  private async stopShardsIfBudgetSpent(): Promise<void> {
    if (!this.host.budgetSpent() || this.meta.get("budget_pushed")) return;
    this.meta.set("budget_pushed", "1");
    await this.pushFlags();
  }

  private rootFlags(): RootFlags {
    return { cancelled_at: this.meta.get("cancelled_at") ?? null, budget_spent: this.host.budgetSpent(), spent_usd: this.meta.spentUsd() };
  }

  /** The root tells every shard of a stop (a shard that misses it learns it from its next report's answer). */
  async pushFlags(): Promise<void> {
    const plan = this.meta.shardPlan();
    if (!plan) return;
    const root = coordinatorName(this.meta.runRef());
    const flags = this.rootFlags();
    await Promise.all(
      Array.from({ length: plan.count }, (_, s) =>
        this.host
          .coordinator(shardName(root, s))
          .stop(flags)
          .catch((err: unknown) => log.warn("shard_stop_failed", { run_id: this.meta.runId(), shard: s, error: String(err) })),
      ),
    );
  }

  /** A purged root purges its shards. */
  async purgeShards(): Promise<void> {
    const plan = this.meta.shardPlan();
    if (plan) {
      const root = coordinatorName(this.meta.runRef());
      await Promise.all(Array.from({ length: plan.count }, (_, s) => this.host.coordinator(shardName(root, s)).purge()));
    }
  }

  private transaction(fn: () => void): void {
    this.host.transaction(fn);
  }

  private now(): number {
    return this.host.now();
  }
}
