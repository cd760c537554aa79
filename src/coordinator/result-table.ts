/**
 * The run's recorded results and what each brought: its `results` row, its usage rows (cost.ts)
 * and its per-trait rows. Every row is keyed by ids and inserted with ON CONFLICT DO NOTHING, so
 * recording a result twice stores and counts it once. The run's totals are folded from these rows
 * when read (run-totals.ts); the event stream pages through `results` by rowid.
 */
import type { ResultEventRow } from "./run-events";
import type { RecordedResult } from "./rpc-types";

export interface Inserted {
  /** The result's sequence number (its rowid) when it is new, null for a repeat. */
  seq: number | null;
  /** The cost of the usage rows that were new (a repeat adds nothing to the running spend). */
  addedUsd: number;
  /** New usage rows of a model without a price (their cost is unknown, not zero). */
  addedUnpriced: number;
}

export class ResultTable {
  constructor(private readonly sql: SqlStorage) {}

  insert(result: RecordedResult): Inserted {
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
    let addedUsd = 0;
    let addedUnpriced = 0;
    for (const u of result.usage ?? []) {
      // RETURNING yields a row only when the row is new.
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
      for (const row of inserted) {
        if (row.cost_usd === null) addedUnpriced++;
        else addedUsd += row.cost_usd;
      }
    }
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
    return { seq, addedUsd, addedUnpriced };
  }

  /** The ids of a job's recorded results (a redelivery skips them). */
  idsOfJob(jobId: string): string[] {
    return this.sql
      .exec<{ result_id: string }>("SELECT result_id FROM results WHERE job_id = ?", jobId)
      .toArray()
      .map((r) => r.result_id);
  }

  /** The keys of a job's usage rows (the dead-letter consumer keeps these ledger rows). */
  usageKeysOfJob(jobId: string): string[] {
    return this.sql
      .exec<{ key: string }>("SELECT key FROM usage_rows WHERE job_id = ?", jobId)
      .toArray()
      .map((r) => r.key);
  }

  /** The event stream's page of results after sequence `seq`. */
  after(seq: number, limit: number): ResultEventRow[] {
    return this.sql
      .exec<ResultEventRow>(
        "SELECT rowid AS seq, result_id, question_id, answering_id, parsing_id, verdict FROM results WHERE rowid > ? ORDER BY rowid LIMIT ?",
        seq,
        limit,
      )
      .toArray();
  }
}
