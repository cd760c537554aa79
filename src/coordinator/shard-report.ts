/**
 * What a coordinator shard tells its root (shards.ts), and the tables on either side.
 *
 * - Shard side, `to_root`: each new result the shard recorded, kept (in the same transaction as
 *   its rows) until the root has taken it. The alarm reports the first REPORT_MAX of them with the
 *   shard's job counts, at most every REPORT_EVERY_MS; a report that fails is sent again, and the
 *   root keeps each result once (its rows are keyed by ids), so nothing is lost or counted twice.
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
}

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

/** Shard side: results the root has not taken yet. */
export class RootOutbox {
  constructor(private readonly sql: SqlStorage) {}

  add(result: RecordedResult): void {
    this.sql.exec("INSERT INTO to_root (body) VALUES (?)", JSON.stringify(result));
  }

  /** The oldest `limit` results with their sequence numbers. */
  first(limit: number): { seq: number; result: RecordedResult }[] {
    return this.sql
      .exec<{ seq: number; body: string }>("SELECT seq, body FROM to_root ORDER BY seq LIMIT ?", limit)
      .toArray()
      .map((r) => ({ seq: r.seq, result: StoredResult.parse(JSON.parse(r.body)) }));
  }

  /** The root took every result up to `upTo`. */
  remove(upTo: number): void {
    this.sql.exec("DELETE FROM to_root WHERE seq <= ?", upTo);
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
