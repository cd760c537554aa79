/**
 * The run's totals: verdicts per pair, usage per (pair, stage), the models the providers reported,
 * and trait sums per (pair, trait). The status, progress, summary and usage read these few rows
 * instead of grouping every result again on each status poll, SSE frame and end event (a GROUP BY
 * over a 100,000-result root held the object's thread for the whole scan on every GET /v1/runs/:id).
 *
 * They are brought up to date when read, from the rows inserted since the last read (`catchUp`):
 * each table's rowids only grow (rows are never deleted but by purge, which drops the totals too),
 * so a high-water mark per table says what is counted. Recording a result costs no extra
 * statement, and a run's rows are each folded in once, whatever the number of reads.
 *
 * Sums are taken as the GROUP BYs they replace took them: cost compensated (Kahan–Babuška–Neumaier)
 * as SQLite's SUM() compensates it, trait scores plainly in row order as aggregateTraits summed them.
 */
import type { Verdict } from "../pipeline/verdict";
import type { UsageGroup, UsageRow, UsageRowModel } from "./cost";
import { emptyTraitTotal, type TraitTotal } from "./progress";

export type VerdictCount = { answering_id: string; parsing_id: string; verdict: Verdict; n: number };

/** The totals as a snapshot reads them (snapshot.ts SnapshotRows). */
export interface RunTotalsView {
  verdicts: VerdictCount[];
  usage: UsageGroup[];
  /** Models whose calls had no price. */
  unpriced: UsageRowModel[];
  /** Every model name the providers reported (the manifest's actual_models). */
  reported: UsageRowModel[];
  traits: TraitTotal[];
}

export const RUN_TOTALS_TABLES = `
  CREATE TABLE IF NOT EXISTS totals_marks (source TEXT PRIMARY KEY, seq INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS verdict_totals (
    answering_id TEXT NOT NULL, parsing_id TEXT NOT NULL, verdict TEXT NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (answering_id, parsing_id, verdict));
  CREATE TABLE IF NOT EXISTS usage_totals (
    answering_id TEXT NOT NULL, parsing_id TEXT NOT NULL, stage TEXT NOT NULL,
    input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
    cost_sum REAL NOT NULL, cost_err REAL NOT NULL, unpriced INTEGER NOT NULL,
    PRIMARY KEY (answering_id, parsing_id, stage));
  CREATE TABLE IF NOT EXISTS usage_models (
    answering_id TEXT NOT NULL, parsing_id TEXT NOT NULL, stage TEXT NOT NULL, model TEXT NOT NULL,
    unpriced INTEGER NOT NULL, PRIMARY KEY (answering_id, parsing_id, stage, model));
  CREATE TABLE IF NOT EXISTS trait_totals (
    answering_id TEXT NOT NULL, parsing_id TEXT NOT NULL, trait TEXT NOT NULL,
    n INTEGER NOT NULL, errored INTEGER NOT NULL, score_sum REAL NOT NULL, scored INTEGER NOT NULL,
    passed INTEGER NOT NULL, judged INTEGER NOT NULL, PRIMARY KEY (answering_id, parsing_id, trait));
`;

/** A (pair, stage)'s usage: token sums, the compensated cost sum and its error term, and its unpriced rows. */
type UsageTotal = Omit<UsageGroup, "cost_usd"> & { cost_sum: number; cost_err: number; unpriced: number };
type UsageSource = Pick<UsageRow, "answering_id" | "parsing_id" | "stage" | "input_tokens" | "output_tokens" | "cost_usd">;
type TraitSource = { answering_id: string; parsing_id: string; trait: string; score: number | null; pass: number | null; errored: number };

/**
 * How one totals table is kept from its source rows: a group per key, started empty, each new row
 * of `source` added in row order. `columns` are the table's, in its order.
 */
interface Fold<R, T> {
  source: { table: string; columns: readonly (keyof R & string)[] };
  table: string;
  columns: readonly (keyof T & string)[];
  key: (x: R | T) => string;
  empty: (r: R) => T;
  add: (t: T, r: R) => void;
}

/** One step of SQLite's compensated SUM() (func.c, kahanBabuskaNeumaierStep). */
function addCompensated(t: { cost_sum: number; cost_err: number }, x: number): void {
  const s = t.cost_sum;
  const sum = s + x;
  t.cost_err += Math.abs(s) > Math.abs(x) ? s - sum + x : x - sum + s;
  t.cost_sum = sum;
}

const groupKey = (...parts: string[]) => parts.join("\u0000");

export class RunTotals {
  constructor(
    private readonly sql: SqlStorage,
    /** Runs `fn` as one transaction (the coordinator's, which also resets its mirrors on a rollback). */
    private readonly transaction: (fn: () => void) => void,
  ) {}

  /** Creates the tables (a no-op once they exist). */
  ensure(): void {
    this.sql.exec(RUN_TOTALS_TABLES);
  }

  /** Folds in the rows inserted since the last call, in one transaction with the new marks. */
  private catchUp(): void {
    const marks = new Map(
      this.sql
        .exec<{ source: string; seq: number }>("SELECT source, seq FROM totals_marks")
        .toArray()
        .map((m) => [m.source, m.seq]),
    );
    const latest = this.sql
      .exec<{ results: number | null; usage: number | null; traits: number | null }>(
        "SELECT (SELECT MAX(rowid) FROM results) AS results, (SELECT MAX(rowid) FROM usage_rows) AS usage, (SELECT MAX(rowid) FROM trait_rows) AS traits",
      )
      .one();
    const due = (source: "results" | "usage" | "traits") => (latest[source] ?? 0) > (marks.get(source) ?? 0);
    if (!due("results") && !due("usage") && !due("traits")) return;
    this.transaction(() => {
      if (due("results")) this.foldResults(marks.get("results") ?? 0, latest.results!);
      if (due("usage")) this.foldUsage(marks.get("usage") ?? 0, latest.usage!);
      if (due("traits")) this.foldTraits(marks.get("traits") ?? 0, latest.traits!);
    });
  }

  private mark(source: string, seq: number): void {
    this.sql.exec("INSERT INTO totals_marks VALUES (?, ?) ON CONFLICT (source) DO UPDATE SET seq = excluded.seq", source, seq);
  }

  private foldResults(after: number, upTo: number): void {
    // Counts are exact however they are grouped: one statement.
    this.sql.exec(
      `INSERT INTO verdict_totals SELECT answering_id, parsing_id, verdict, COUNT(*) FROM results WHERE rowid > ? AND rowid <= ?
       GROUP BY answering_id, parsing_id, verdict
       ON CONFLICT (answering_id, parsing_id, verdict) DO UPDATE SET n = n + excluded.n`,
      after,
      upTo,
    );
    this.mark("results", upTo);
  }

  private foldUsage(after: number, upTo: number): void {
    this.fold(USAGE_FOLD, after, upTo);
    this.sql.exec(
      `INSERT INTO usage_models SELECT answering_id, parsing_id, stage, model, MAX(cost_usd IS NULL) FROM usage_rows WHERE rowid > ? AND rowid <= ?
       GROUP BY answering_id, parsing_id, stage, model
       ON CONFLICT (answering_id, parsing_id, stage, model) DO UPDATE SET unpriced = max(unpriced, excluded.unpriced)`,
      after,
      upTo,
    );
    this.mark("usage", upTo);
  }

  private foldTraits(after: number, upTo: number): void {
    this.fold(TRAIT_FOLD, after, upTo);
    this.mark("traits", upTo);
  }

  /**
   * Adds the source rows with rowid in (after, upTo] to the groups of `f.table` they belong to, and
   * writes back the groups that changed.
   */
  private fold<R extends Record<string, SqlStorageValue>, T extends Record<string, SqlStorageValue>>(
    f: Fold<R, T>,
    after: number,
    upTo: number,
  ): void {
    const groups = new Map<string, T>();
    for (const t of this.sql.exec<T>(`SELECT ${f.columns.join(", ")} FROM ${f.table}`)) groups.set(f.key(t), t);
    const changed = new Set<T>();
    const rows = this.sql.exec<R>(
      `SELECT ${f.source.columns.join(", ")} FROM ${f.source.table} WHERE rowid > ? AND rowid <= ? ORDER BY rowid`,
      after,
      upTo,
    );
    for (const r of rows) {
      const k = f.key(r);
      let t = groups.get(k);
      if (!t) groups.set(k, (t = f.empty(r)));
      f.add(t, r);
      changed.add(t);
    }
    const insert = `INSERT OR REPLACE INTO ${f.table} (${f.columns.join(", ")}) VALUES (${f.columns.map(() => "?").join(", ")})`;
    for (const t of changed) this.sql.exec(insert, ...f.columns.map((c) => t[c]));
  }

  /** Results recorded, and those with a verdict about the answer (not `error`). */
  resultCounts(): { done: number; graded: number } {
    this.catchUp();
    const row = this.sql
      .exec<{ done: number | null; graded: number | null }>(
        "SELECT SUM(n) AS done, SUM(CASE WHEN verdict != 'error' THEN n ELSE 0 END) AS graded FROM verdict_totals",
      )
      .one();
    return { done: row.done ?? 0, graded: row.graded ?? 0 };
  }

  /** Everything a snapshot shows of the totals, caught up once; `reported` (the manifest's models) only when asked. */
  read({ reported }: { reported: boolean }): RunTotalsView {
    this.catchUp();
    const models = (where: string) =>
      this.sql.exec<UsageRowModel>(`SELECT answering_id, parsing_id, stage, model FROM usage_models ${where}`).toArray();
    return {
      verdicts: this.sql.exec<VerdictCount>("SELECT answering_id, parsing_id, verdict, n FROM verdict_totals").toArray(),
      // An unpriced row makes its group's cost unknown: null, never a partial sum.
      usage: this.sql
        .exec<UsageGroup>(
          `SELECT answering_id, parsing_id, stage, input_tokens, output_tokens,
             CASE WHEN unpriced > 0 THEN NULL ELSE cost_sum + cost_err END AS cost_usd FROM usage_totals`,
        )
        .toArray(),
      unpriced: models("WHERE unpriced = 1"),
      reported: reported ? models("") : [],
      traits: this.sql.exec<TraitTotal>(`SELECT ${TRAIT_FOLD.columns.join(", ")} FROM trait_totals`).toArray(),
    };
  }
}

const USAGE_FOLD: Fold<UsageSource, UsageTotal> = {
  source: { table: "usage_rows", columns: ["answering_id", "parsing_id", "stage", "input_tokens", "output_tokens", "cost_usd"] },
  table: "usage_totals",
  columns: ["answering_id", "parsing_id", "stage", "input_tokens", "output_tokens", "cost_sum", "cost_err", "unpriced"],
  key: (x) => groupKey(x.answering_id, x.parsing_id, x.stage),
  empty: (r) => ({
    answering_id: r.answering_id,
    parsing_id: r.parsing_id,
    stage: r.stage,
    input_tokens: 0,
    output_tokens: 0,
    cost_sum: 0,
    cost_err: 0,
    unpriced: 0,
  }),
  add: (g, r) => {
    g.input_tokens += r.input_tokens;
    g.output_tokens += r.output_tokens;
    if (r.cost_usd === null) g.unpriced += 1;
    else addCompensated(g, r.cost_usd);
  },
};

const TRAIT_FOLD: Fold<TraitSource, TraitTotal> = {
  source: { table: "trait_rows", columns: ["answering_id", "parsing_id", "trait", "score", "pass", "errored"] },
  table: "trait_totals",
  columns: ["answering_id", "parsing_id", "trait", "n", "errored", "score_sum", "scored", "passed", "judged"],
  key: (x) => groupKey(x.answering_id, x.parsing_id, x.trait),
  empty: (r) => emptyTraitTotal(r.answering_id, r.parsing_id, r.trait),
  add: (t, r) => {
    if (r.errored === 1) t.errored += 1;
    else t.n += 1;
    if (r.score !== null) {
      t.score_sum += r.score;
      t.scored += 1;
    }
    if (r.pass !== null) {
      t.judged += 1;
      if (r.pass === 1) t.passed += 1;
    }
  },
};
