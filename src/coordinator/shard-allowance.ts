/**
 * A sharded run's budget (the run's `budget_usd`, or the tenant's monthly quota as the run's
 * budget): how shards that each see only their own spend keep to one budget.
 *
 * Unsharded, a job starts while the run's recorded spend plus its running jobs' holds is below the
 * budget (budget.ts), so the run spends at most the budget plus about a job. Shards cannot each read
 * the run's spend on every claim, so the root deals the budget out in slices (an allowance per shard):
 *
 * - Until a job has finished somewhere in the run, the root grants to one shard at a time: what a
 *   job costs is unknown, so one job runs run-wide (root-side.ts `allow`).
 * - A shard starts a job only while its own recorded spend plus its running jobs' holds is below its
 *   allowance (budget.ts, the allowance as the limit). At the end of its allowance it asks the root
 *   for more (one call per slice, in the claim that needs it).
 * - The root grants a slice from what no shard holds: the budget minus, per shard, the larger of
 *   its allowance and its spend. So the allowances never total more than the budget, and a shard's
 *   overshoot is taken out of what the others can be granted.
 * - A shard whose spend reaches its allowance reports to the root at once (not after the report
 *   period), so the root sees the run reach its budget as soon as an unsharded coordinator would,
 *   and stops every shard (shard-report.ts `RootFlags.budget_spent`).
 * - Nothing left to grant while the run's spend is still below the budget (other shards hold it):
 *   the claim waits (a deferral, spending none of the job's deliveries) until a holder spends it,
 *   or finishes its jobs and hands the rest back (a report with no open jobs).
 *
 * So a sharded run spends at most the budget plus, per shard, about a job: the unsharded bound, per
 * shard (a shard with nothing running starts a job while its spend is below its allowance, and a
 * slice may be smaller than a job).
 */

/** A slice is this share of the budget per shard: a run makes about 4 × shards grant calls in all. */
export const SLICES_PER_SHARD = 4;
/** How long a claim waits when the rest of the budget is held by other shards. */
export const ALLOWANCE_WAIT_S = 2;

/** One shard's row at the root: what it was granted and what it last said it spent. */
export interface ShardBudget {
  granted: number;
  spent: number;
}

/**
 * The root's grant to `shard` (pure): its new allowance, or null when nothing is left to grant.
 * `rows`: every shard's row, the asking one's `spent` already updated.
 */
export function grantSlice(budgetUsd: number, shardCount: number, rows: ReadonlyMap<number, ShardBudget>, shard: number): number | null {
  let held = 0;
  for (const r of rows.values()) held += Math.max(r.granted, r.spent);
  // What sums of floating-point dollars leave over is nothing to grant.
  const left = budgetUsd - held;
  if (left <= budgetUsd * 1e-9) return null;
  const mine = rows.get(shard) ?? { granted: 0, spent: 0 };
  return Math.max(mine.granted, mine.spent) + Math.min(left, budgetUsd / (SLICES_PER_SHARD * shardCount));
}

/** What the root answers a shard asking for allowance. */
export interface AllowanceAnswer {
  /** The shard's allowance now (unchanged when nothing was left to grant). */
  allowance_usd: number;
  /** The run's budget is spent: nothing more starts anywhere. */
  budget_spent: boolean;
}

/** Root side: each shard's allowance and last reported spend (`shard_budget`). */
export class ShardBudgets {
  constructor(private readonly sql: SqlStorage) {}

  /** A shard's spend only grows: a late report never moves it back. */
  spent(shard: number, usd: number): void {
    this.sql.exec(
      `INSERT INTO shard_budget (shard, granted, spent) VALUES (?, 0, ?)
       ON CONFLICT(shard) DO UPDATE SET spent = MAX(spent, excluded.spent)`,
      shard,
      usd,
    );
  }

  grant(shard: number, allowance: number): void {
    this.sql.exec("UPDATE shard_budget SET granted = ? WHERE shard = ?", allowance, shard);
  }

  /** A shard with no open jobs hands back what it did not spend. */
  handBack(shard: number): void {
    this.sql.exec("UPDATE shard_budget SET granted = MIN(granted, spent) WHERE shard = ?", shard);
  }

  rows(): Map<number, ShardBudget> {
    return new Map(
      this.sql
        .exec<{ shard: number; granted: number; spent: number }>("SELECT shard, granted, spent FROM shard_budget")
        .toArray()
        .map((r) => [r.shard, { granted: r.granted, spent: r.spent }]),
    );
  }

  /** The run's spend as its shards last said (each shard's results may reach the root later). */
  totalSpent(): number {
    return this.sql.exec<{ s: number }>("SELECT COALESCE(SUM(spent), 0) AS s FROM shard_budget").one().s;
  }
}
