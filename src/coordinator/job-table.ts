/**
 * The run's `jobs` rows (pending → running → done | dead | skipped) and their answer checkpoints.
 * Every state change is one synchronous statement. The count of open jobs (pending or running) is
 * read once and then kept up to date by every statement that closes jobs (`RETURNING` one row per
 * job moved), so asking "is the run over?" after each finished job costs no SQL.
 */

export type JobState = "pending" | "running" | "done" | "dead" | "skipped";
export type FinalState = "done" | "dead" | "skipped";
export interface JobRow {
  state: JobState;
  attempts: number;
  updated_at: number;
}
/** `skipped`: jobs never started because the run's budget was spent or the run was cancelled. */
export type JobCounts = { total: number; done: number; dead: number; skipped: number };

export const isFinal = (state: JobState): state is FinalState => state === "done" || state === "dead" || state === "skipped";

/** How stale the budget's count of running jobs may be before a claim that would wait reads it again. */
const BUDGET_RECOUNT_MS = 1_000;

export class JobTable {
  private openCount: number | undefined;
  /**
   * A budgeted run's running jobs and finished count (budget.ts), read on the first claim that asks
   * and then kept up to date here. A job the stall watch re-sends leaves `running` behind this
   * table's back, so a claim about to wait reads them again once they are a second old.
   */
  private budgetTrack: { running: Set<string>; finished: number; readAt: number } | undefined;

  constructor(private readonly sql: SqlStorage) {}

  insertPending(jobIds: readonly string[], now: number): void {
    for (const id of jobIds) this.sql.exec("INSERT INTO jobs (job_id, state, attempts, updated_at) VALUES (?, 'pending', 0, ?)", id, now);
    this.openCount = undefined;
  }

  /** One job added to a running run (a scenario's next turn); false when it exists already. */
  insertIfNew(jobId: string, now: number): boolean {
    const added =
      this.sql
        .exec(
          "INSERT INTO jobs (job_id, state, attempts, updated_at) VALUES (?, 'pending', 0, ?) ON CONFLICT(job_id) DO NOTHING RETURNING 1",
          jobId,
          now,
        )
        .toArray().length > 0;
    if (added && this.openCount !== undefined) this.openCount += 1;
    return added;
  }

  row(jobId: string): JobRow | undefined {
    return this.sql
      .exec<{ state: JobState; attempts: number; updated_at: number }>(
        "SELECT state, attempts, updated_at FROM jobs WHERE job_id = ?",
        jobId,
      )
      .toArray()[0];
  }

  /** A claim: the job is running under a fresh lease, its delivery counted. */
  start(jobId: string, attempts: number, now: number): void {
    this.sql.exec("UPDATE jobs SET state = 'running', attempts = ?, updated_at = ? WHERE job_id = ?", attempts, now, jobId);
    this.budgetTrack?.running.add(jobId);
  }

  /** A result that does not finish its job renews the job's lease. */
  renewLease(jobId: string, now: number): void {
    this.sql.exec("UPDATE jobs SET updated_at = ? WHERE job_id = ?", now, jobId);
  }

  /** The consumer gave the job back: pending again, for its redelivery. */
  release(jobId: string, now: number): void {
    this.sql.exec("UPDATE jobs SET state = 'pending', updated_at = ? WHERE job_id = ? AND state = 'running'", now, jobId);
    this.budgetTrack?.running.delete(jobId);
  }

  /** Skips one job whatever its state (a claim under a spent budget or a cancel). */
  skip(jobId: string, now: number): void {
    this.close(this.sql.exec("UPDATE jobs SET state = 'skipped', updated_at = ? WHERE job_id = ? RETURNING 1", now, jobId));
    this.budgetTrack?.running.delete(jobId);
  }

  /** Skips one job still open (a job given back in a cancelled run). */
  skipOpen(jobId: string, now: number): void {
    this.close(
      this.sql.exec(
        "UPDATE jobs SET state = 'skipped', updated_at = ? WHERE job_id = ? AND state IN ('pending', 'running') RETURNING 1",
        now,
        jobId,
      ),
    );
    this.budgetTrack?.running.delete(jobId);
  }

  /** Every job not started yet is skipped (budget spent, run cancelled); running jobs finish. */
  skipPending(now: number): void {
    this.close(this.sql.exec("UPDATE jobs SET state = 'skipped', updated_at = ? WHERE state = 'pending' RETURNING 1", now));
  }

  /** The job is over: its answer checkpoint goes (its results hold the answer); closing it twice changes nothing. */
  finish(jobId: string, state: "done" | "dead", now: number): void {
    this.sql.exec("DELETE FROM answers WHERE job_id = ?", jobId);
    const moved = this.close(
      this.sql.exec(
        "UPDATE jobs SET state = ?, updated_at = ? WHERE job_id = ? AND state NOT IN ('done', 'dead', 'skipped') RETURNING 1",
        state,
        now,
        jobId,
      ),
    );
    if (this.budgetTrack) {
      this.budgetTrack.running.delete(jobId);
      this.budgetTrack.finished += moved;
    }
  }

  /** Jobs still pending or running; counted once, then kept up to date by `close`. */
  open(): number {
    this.openCount ??= this.sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE state NOT IN ('done', 'dead', 'skipped')")
      .one().n;
    return this.openCount;
  }

  counts(): JobCounts {
    return this.sql
      .exec<JobCounts>(
        `SELECT COUNT(*) AS total, COALESCE(SUM(state = 'done'), 0) AS done, COALESCE(SUM(state = 'dead'), 0) AS dead,
           COALESCE(SUM(state = 'skipped'), 0) AS skipped FROM jobs`,
      )
      .one();
  }

  /**
   * What a budgeted run's next start is weighed against (budget.ts): the jobs running, `jobId`
   * excluded (a redelivery of a job whose lease ran out is not behind itself), and the jobs
   * finished. `recount`: read them again if a second old.
   */
  budgetUse(jobId: string, now: number, recount = false): { running: number; finished: number } {
    if (!this.budgetTrack || (recount && now - this.budgetTrack.readAt > BUDGET_RECOUNT_MS)) {
      const running = new Set(
        this.sql
          .exec<{ job_id: string }>("SELECT job_id FROM jobs WHERE state = 'running'")
          .toArray()
          .map((r) => r.job_id),
      );
      const { finished } = this.sql
        .exec<{ finished: number }>("SELECT COALESCE(SUM(state IN ('done', 'dead')), 0) AS finished FROM jobs")
        .one();
      this.budgetTrack = { running, finished, readAt: now };
    }
    const { running, finished } = this.budgetTrack;
    return { running: running.size - (running.has(jobId) ? 1 : 0), finished };
  }

  /** The rows may have changed behind the open count (a rolled-back transaction, a purge). */
  forget(): void {
    this.openCount = undefined;
    this.budgetTrack = undefined;
  }

  /** The answer an earlier attempt checkpointed (JSON), if any. */
  answer(jobId: string): string | null {
    return this.sql.exec<{ answer: string }>("SELECT answer FROM answers WHERE job_id = ?", jobId).toArray()[0]?.answer ?? null;
  }

  saveAnswer(jobId: string, answer: string): void {
    this.sql.exec(
      "INSERT INTO answers (job_id, answer) VALUES (?, ?) ON CONFLICT(job_id) DO UPDATE SET answer = excluded.answer",
      jobId,
      answer,
    );
  }

  /** Takes an UPDATE … RETURNING that moved open jobs to a final state (one row per job moved). */
  private close(moved: SqlStorageCursor<Record<string, SqlStorageValue>>): number {
    const n = moved.toArray().length;
    if (this.openCount !== undefined) this.openCount -= n;
    return n;
  }
}
