/**
 * The run's budget: once recorded cost reaches it, no further job starts (claims and pending jobs
 * are skipped; jobs running finish) and the run ends budget_exceeded. Cost is priced by the job
 * runner with the run's own price table, so the coordinator only adds numbers.
 */
export const budgetSpent = (budgetUsd: number | undefined, spentUsd: number): boolean => budgetUsd !== undefined && spentUsd >= budgetUsd;

/** What the next job's start is weighed against: the spend so far and the jobs behind it. */
export interface BudgetUse {
  spentUsd: number;
  /** Jobs running now (claimed, not finished), the one asking excluded. */
  running: number;
  /** Jobs finished (done or dead): what a job costs is learned from them. */
  finished: number;
}

/**
 * Whether one more job may start under `limitUsd` (the run's budget, or a shard's allowance).
 * Checking the spend alone let every job claimed before the first cost was recorded start: with
 * 100 jobs a delivery, a run whose budget fits 2 jobs spent 30 × its budget. So each running job
 * holds what a job costs on average (the spend over the finished jobs), and a job starts only
 * while the spend plus those holds stays below the limit:
 * - `start`: it fits, or nothing runs (then the plain rule: the spend is below the limit);
 * - `spent`: the spend reached the limit;
 * - `unknown`: a job runs and none has finished, so what one costs is not known yet: wait for it;
 * - `held`: the running jobs hold the rest of the limit: wait for them (or, a shard, ask for more).
 * A run then spends at most its budget plus about one job (its holds are estimates).
 */
export type BudgetRoom = "start" | "spent" | "unknown" | "held";

export function budgetRoom(limitUsd: number, use: BudgetUse): BudgetRoom {
  if (use.spentUsd >= limitUsd) return "spent";
  if (use.running === 0) return "start";
  if (use.finished === 0) return "unknown";
  return use.spentUsd + use.running * (use.spentUsd / use.finished) < limitUsd ? "start" : "held";
}

/**
 * How long a claim waits for running jobs to show what they cost (a deferral: no delivery spent).
 * Every waiting job's message comes back after it, so the wait grows with the jobs waiting: a
 * second for up to 500 of them, then a second per 500 (at most 30 s), so a 5,000-job run's
 * messages bring its coordinator about 500 claims a second while its first job runs, not 5,000.
 */
export const budgetWaitSeconds = (waiting: number): number => Math.min(30, Math.max(1, Math.ceil(waiting / 500)));
