/** Run status and per-pair summaries, derived from the coordinator's rows (pure, unit-tested). */
import type { Verdict } from "../pipeline/verdict";
import type { TraitAggregate } from "../rubric/aggregate";
import type { RunStatus } from "../storage/runs-repo";

export interface PairSummary {
  answering_model: string;
  parsing_model: string;
  /** Results this pair will have when the run is over (with scenarios: its turns created so far, so it grows as they run). */
  total: number;
  passed: number;
  failed: number;
  errored: number;
  /** passed / (passed + failed): judge failures are not held against the answer. Null when undefined. */
  pass_rate: number | null;
}

/** A slice of the (answering, parsing) pairs, answering-major: what one page of the summary shows. */
export interface PairWindow {
  offset: number;
  limit: number;
}

export function summarize(
  answeringIds: readonly string[],
  parsingIds: readonly string[],
  resultsPerPair: number,
  counts: readonly { answering_id: string; parsing_id: string; verdict: Verdict; n: number }[],
  window: PairWindow = { offset: 0, limit: Number.POSITIVE_INFINITY },
  /** Results a pair has beyond its questions' (scenario turns so far), keyed `answering\0parsing`. */
  extraPerPair: ReadonlyMap<string, number> = new Map(),
): PairSummary[] {
  const byPair = new Map<string, number>();
  for (const c of counts) byPair.set(`${c.answering_id}\u0000${c.parsing_id}\u0000${c.verdict}`, c.n);
  const total = answeringIds.length * parsingIds.length;
  const out: PairSummary[] = [];
  for (let i = window.offset; i < Math.min(total, window.offset + window.limit); i++) {
    const a = answeringIds[Math.floor(i / parsingIds.length)]!;
    const p = parsingIds[i % parsingIds.length]!;
    const n = (v: Verdict) => byPair.get(`${a}\u0000${p}\u0000${v}`) ?? 0;
    const passed = n("pass");
    const failed = n("fail");
    out.push({
      answering_model: a,
      parsing_model: p,
      total: resultsPerPair + (extraPerPair.get(`${a}\u0000${p}`) ?? 0),
      passed,
      failed,
      errored: n("error"),
      pass_rate: passed + failed > 0 ? passed / (passed + failed) : null,
    });
  }
  return out;
}

/** What the run status is decided from: the coordinator's job counts and what its results say. */
export interface RunFacts {
  total: number;
  done: number;
  dead: number;
  /** Jobs never started because the budget was spent or the run was cancelled. */
  skipped?: number;
  started: boolean;
  /** Results with a verdict about the answer: pass, fail or no_verdict (not error). */
  graded: number;
  /** The run was cancelled (POST /v1/runs/:id/cancel, coordinator/cancel.ts). */
  cancelled?: boolean;
  /** Results a sharded run's root refused for good (shard-report.ts): the run is missing them. */
  refused?: number;
}

/**
 * The run status, one precedence rule for every caller (status view, D1 listing, cancel,
 * webhooks): `cancelled` > `budget_exceeded` > `failed` > `partial` > `completed`, and before the
 * end `queued` / `running`.
 * - cancelled: the run was cancelled, whatever else happened.
 * - budget_exceeded: jobs were skipped because the budget was spent (the run stopped early with
 *   what it finished).
 * - failed: not one result says anything about an answer (no pass, fail or no_verdict): every job
 *   errored or was dead-lettered, e.g. a base_url nobody listens on.
 * - partial: some jobs were dead-lettered (or, sharded, some results refused by the root), the others graded.
 * - completed: every job finished with a result.
 */
export function statusOf(run: RunFacts): RunStatus {
  if (run.cancelled) return "cancelled";
  const skipped = run.skipped ?? 0;
  if (run.done + run.dead + skipped < run.total) return run.started ? "running" : "queued";
  if (skipped > 0) return "budget_exceeded";
  if (run.graded === 0) return "failed";
  if (run.dead > 0 || (run.refused ?? 0) > 0) return "partial";
  return "completed";
}

/** Results with a verdict about the answer (an `error` result is the judge's or transport's failure). */
export const gradedCount = (counts: readonly { verdict: Verdict; n: number }[]): number =>
  counts.reduce((sum, c) => (c.verdict === "error" ? sum : sum + c.n), 0);

/** One (answering, parsing, trait)'s running sums (run-totals.ts): what aggregateTraits sums from its observations. */
export type TraitTotal = {
  answering_id: string;
  parsing_id: string;
  trait: string;
  /** Observations with a value. */
  n: number;
  errored: number;
  score_sum: number;
  scored: number;
  passed: number;
  judged: number;
};

/** A trait's totals before its first observation. */
export const emptyTraitTotal = (answering_id: string, parsing_id: string, trait: string): TraitTotal => ({
  answering_id,
  parsing_id,
  trait,
  n: 0,
  errored: 0,
  score_sum: 0,
  scored: 0,
  passed: 0,
  judged: 0,
});

/** Per-trait mean score and pass rate of one (answering, parsing) pair, from the run's trait totals. */
export function pairTraits(totals: readonly TraitTotal[], answering: string, parsing: string): Record<string, TraitAggregate> {
  return Object.fromEntries(
    totals
      .filter((t) => t.answering_id === answering && t.parsing_id === parsing)
      .sort((x, y) => x.trait.localeCompare(y.trait))
      .map((t) => [
        t.trait,
        {
          n: t.n,
          errored: t.errored,
          mean_score: t.scored ? t.score_sum / t.scored : null,
          pass_rate: t.judged ? t.passed / t.judged : null,
        },
      ]),
  );
}
