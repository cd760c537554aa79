/**
 * What a coordinator shard tells its root (shards.ts), and the tables on either side.
 *
 * - Shard side, `to_root`: each new result the shard recorded, kept (in the same transaction as
 *   its rows) until the root has taken it. The alarm reports the first REPORT_MAX of them with the
 *   shard's job counts, at most every REPORT_EVERY_MS; a report that fails is sent again, and the
 *   root keeps each result once (its rows are keyed by ids), so nothing is lost or counted twice.
 *   The root answers each result on its own (accepted, a duplicate, or refused with its reason), so
 *   a result it refuses for good never holds back the ones after it: the shard keeps the refusal
 *   (`refused_results`, and an error log line) and drops it from `to_root`. A row the shard itself
 *   cannot read back is refused the same way, without being sent.
 * - Root side, `shard_jobs`: each shard's latest job counts. A shard's counts only grow (jobs
 *   only close), so a late or repeated report never moves them back (MAX per column).
 */
import { z } from "zod";
import type { Same } from "../lib/same-shape";
import { VerdictName } from "../schemas/api";
import type { JobCounts } from "./job-table";
import type { RecordedResult } from "./rpc-types";

/** A shard reports this long after a change at the soonest: one root call carries many results. */
export const REPORT_EVERY_MS = 200;
/** Results per report (an RPC argument, well under its size limit). */
export const REPORT_MAX = 500;

export type ClosedCounts = Omit<JobCounts, "total">;

export interface ShardReport {
  shard: number;
  /** New results since the last report the root took, in recording order. */
  results: RecordedResult[];
  /** Null when results are left for the next report (the counts come with the last of them). */
  jobs: ClosedCounts | null;
  /** A job of the shard was claimed: the run is running. */
  started: boolean;
  /** The shard's recorded spend (budgeted runs: the root's view of each shard's use of its allowance, shard-allowance.ts). */
  spent_usd?: number;
  /** The shard has no open job left: it hands back the allowance it did not spend. */
  finished?: boolean;
  /** Rows the shard could not read back (refused there, reason `unreadable`): the root keeps them too. */
  unreadable?: Refusal[];
}

/** A result that will never reach the root, as the shard names it. */
export interface Refusal {
  result_id: string;
  job_id: string;
  detail: string;
}

/** Why the root refused a result for good (the shard keeps it as a failure, never silently). */
export type RefusalReason = "unknown_pair" | "rows_rejected" | "unreadable";

/** The root's answer for one reported result, in the report's order. */
export type ResultOutcome = { outcome: "accepted" | "duplicate" } | { outcome: "refused"; reason: RefusalReason; detail: string };

/** The root's answer: the run-wide stops a shard applies to its jobs not yet started. */
export interface RootFlags {
  cancelled_at: string | null;
  budget_spent: boolean;
  /** The run's recorded cost as the root knows it (a shard adds what it recorded since). */
  spent_usd: number;
}

/** A recorded result as the shard keeps it for its root (JSON in `to_root`). */
const StoredResult = z.strictObject({
  result_id: z.string(),
  job_id: z.string(),
  question_id: z.string().optional(),
  answering_id: z.string(),
  parsing_id: z.string(),
  verdict: VerdictName,
  usage: z
    .array(
      z.strictObject({
        key: z.string(),
        job_id: z.string(),
        answering_id: z.string(),
        parsing_id: z.string(),
        stage: z.string(),
        model: z.string(),
        input_tokens: z.number(),
        output_tokens: z.number(),
        cost_usd: z.number().nullable(),
      }),
    )
    .optional(),
  traits: z
    .array(z.strictObject({ trait: z.string(), score: z.number().nullable(), pass: z.boolean().nullable(), errored: z.boolean() }))
    .optional(),
});

/** Fails to compile when RecordedResult and the stored shape drift apart. */
const sameShape: Same<z.output<typeof StoredResult>, RecordedResult> = true;
void sameShape;

/** A `to_root` row: its result, or why it cannot be read back (`body`: the raw text, to name its ids). */
export type OutboxRow = { seq: number; result: RecordedResult } | { seq: number; unreadable: string; body: string };

/** The root's answer to a report: the run-wide stops, and each result's outcome in the report's order. */
export interface ReportAnswer extends RootFlags {
  outcomes: ResultOutcome[];
}

/** Shard side: results the root has not taken yet, and those it refused. */
export class RootOutbox {
  constructor(private readonly sql: SqlStorage) {}

  add(result: RecordedResult): void {
    this.sql.exec("INSERT INTO to_root (body) VALUES (?)", JSON.stringify(result));
  }

  /** The oldest `limit` rows with their sequence numbers. */
  first(limit: number): OutboxRow[] {
    return this.sql
      .exec<{ seq: number; body: string }>("SELECT seq, body FROM to_root ORDER BY seq LIMIT ?", limit)
      .toArray()
      .map((r) => {
        try {
          return { seq: r.seq, result: StoredResult.parse(JSON.parse(r.body)) };
        } catch (err) {
          return { seq: r.seq, unreadable: err instanceof Error ? err.message : String(err), body: r.body };
        }
      });
  }

  /** The root took (or refused) every result up to `upTo`. */
  remove(upTo: number): void {
    this.sql.exec("DELETE FROM to_root WHERE seq <= ?", upTo);
  }

  /** Results refused for good (a root: the run is missing them, so it ends partial). */
  refusedCount(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM refused_results").one().n;
  }

  /** A result that will never reach the root, kept with its reason. */
  refused(resultId: string, jobId: string, reason: RefusalReason, detail: string, now: number): void {
    this.sql.exec(
      "INSERT INTO refused_results (result_id, job_id, reason, detail, at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(result_id) DO NOTHING",
      resultId,
      jobId,
      reason,
      detail.slice(0, 500),
      now,
    );
  }
}

/** Root side: each shard's latest job counts. */
export class ShardCounts {
  constructor(private readonly sql: SqlStorage) {}

  update(shard: number, jobs: ClosedCounts): void {
    this.sql.exec(
      `INSERT INTO shard_jobs (shard, done, dead, skipped) VALUES (?, ?, ?, ?)
       ON CONFLICT(shard) DO UPDATE SET done = MAX(done, excluded.done), dead = MAX(dead, excluded.dead), skipped = MAX(skipped, excluded.skipped)`,
      shard,
      jobs.done,
      jobs.dead,
      jobs.skipped,
    );
  }

  /** The run's job counts: every shard's summed, over the run's total. */
  counts(total: number): JobCounts {
    const s = this.sql
      .exec<ClosedCounts>(
        "SELECT COALESCE(SUM(done), 0) AS done, COALESCE(SUM(dead), 0) AS dead, COALESCE(SUM(skipped), 0) AS skipped FROM shard_jobs",
      )
      .one();
    return { total, done: s.done, dead: s.dead, skipped: s.skipped };
  }
}
