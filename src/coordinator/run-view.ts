/**
 * What the run is now, as its coordinator reads it: its job counts and open jobs (a sharded root's
 * from its shards' reports), its status, whether it is cancelled or its budget spent, its snapshot.
 * Every read is synchronous (SQL and in-memory mirrors), so a step that checks one of them and then
 * writes has no await in between. RunCoordinator holds one; its RPC methods and the steps that
 * record a result and end the run ask it.
 */
import type { RunStatus } from "../storage/runs-repo";
import { budgetSpent } from "./budget";
import { isCancelled } from "./cancel";
import type { JobCounts, JobTable } from "./job-table";
import type { PairWindow } from "./progress";
import type { RunSnapshot } from "./rpc-types";
import type { RunMeta } from "./run-meta";
import type { RunTotals } from "./run-totals";
import type { ScenarioTurns } from "./scenario-turns";
import type { RootOutbox } from "./shard-report";
import { runSnapshot, runStatus } from "./snapshot";

/**
 * What the run's state reads of its coordinator: its tables, and a sharded run's two sides
 * (shard-side.ts, root-side.ts) as callbacks.
 */
export interface RunStateHost {
  readonly meta: RunMeta;
  readonly jobs: JobTable;
  readonly totals: RunTotals;
  readonly turns: ScenarioTurns;
  /** The results refused for good (a sharded run's). */
  readonly toRoot: RootOutbox;
  /** This coordinator is a shard of a sharded run. */
  isShard(): boolean;
  /** A sharded root's job counts: every shard's summed, over the run's total. */
  shardJobCounts(total: number): JobCounts;
  /** A sharded root: the run's spend as its shards last said. */
  shardsSpent(): number;
}

export class RunView {
  constructor(private readonly host: RunStateHost) {}

  /** The run's job counts: its own rows, or a sharded root's sum of its shards'. */
  jobCounts(): JobCounts {
    const total = this.host.meta.get("job_total");
    return total === undefined ? this.host.jobs.counts() : this.host.shardJobCounts(Number(total));
  }

  openJobs(): number {
    if (this.host.meta.get("job_total") === undefined) return this.host.jobs.open();
    const c = this.jobCounts();
    return c.total - c.done - c.dead - c.skipped;
  }

  /** The run's status without pair summaries. */
  status(): RunStatus {
    return runStatus(
      this.jobCounts(),
      this.host.meta.started(),
      this.host.totals.resultCounts().graded,
      this.cancelled(),
      this.host.toRoot.refusedCount(),
    );
  }

  cancelled(): boolean {
    return isCancelled((k) => this.host.meta.get(k));
  }

  /** The flag every answer to a job carries (src/jobs/cancel-gate.ts). */
  cancelFlag(): { cancelled?: true } {
    return this.cancelled() ? { cancelled: true } : {};
  }

  /**
   * A root or an unsharded run knows from its own spend. A shard knows it from its root
   * (`budget_spent`), or sees it coming: the run's spend at the root's last answer plus what the
   * shard recorded since, so its own jobs stop as an unsharded run's would.
   */
  budgetSpent(): boolean {
    const { meta } = this.host;
    if (meta.get("budget_spent") === "1") return true;
    // A sharded root also counts what its shards said they spent, before their results reach it.
    if (meta.get("shards") && meta.budgetUsd() !== undefined)
      return budgetSpent(meta.budgetUsd(), Math.max(meta.spentUsd(), this.host.shardsSpent()));
    if (!this.host.isShard()) return budgetSpent(meta.budgetUsd(), meta.spentUsd());
    const unreported = meta.spentUsd() - Number(meta.get("reported_spent") ?? "0");
    return budgetSpent(meta.budgetUsd(), Number(meta.get("root_spent") ?? "0") + unreported);
  }

  /** `pairs`: which (answering, parsing) pairs the summary holds (default all; the HTTP view pages them). */
  snapshot(pairs?: PairWindow): RunSnapshot | null {
    const { meta } = this.host;
    const runId = meta.runId();
    if (!runId) return null;
    const manifest = meta.manifest();
    const answering = meta.answeringIds();
    const parsing = meta.parsingIds();
    return runSnapshot(
      {
        run_id: runId,
        answering,
        parsing,
        results_per_pair: meta.resultsPerPair(),
        turns_per_pair: this.host.turns.perPair(answering, parsing),
        started: meta.started(),
        cancelled: this.cancelled(),
        budget_usd: meta.budgetUsd(),
        finished_at: meta.finishedAt(),
        manifest,
        jobs: this.jobCounts(),
        ...this.host.totals.read({ reported: Boolean(manifest) }),
        refused: this.host.toRoot.refusedCount(),
      },
      pairs,
    );
  }
}
