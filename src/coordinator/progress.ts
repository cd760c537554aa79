/** Run status and per-pair summaries, derived from the coordinator's rows (pure, unit-tested). */
import type { Verdict } from "../pipeline/verdict";
import { aggregateTraits, type TraitAggregate } from "../rubric/aggregate";
import type { RunStatus } from "../storage/runs-repo";

export interface PairSummary {
  answering_model: string;
  parsing_model: string;
  /** Results this pair will have when the run is over. */
  total: number;
  passed: number;
  failed: number;
  errored: number;
  /** passed / (passed + failed): judge failures are not held against the answer. Null when undefined. */
  pass_rate: number | null;
}

export function summarize(
  answeringIds: readonly string[],
  parsingIds: readonly string[],
  resultsPerPair: number,
  counts: readonly { answering_id: string; parsing_id: string; verdict: Verdict; n: number }[],
): PairSummary[] {
  return answeringIds.flatMap((a) =>
    parsingIds.map((p) => {
      const n = (v: Verdict) =>
        counts.find((c) => c.answering_id === a && c.parsing_id === p && c.verdict === v)?.n ?? 0;
      const passed = n("pass");
      const failed = n("fail");
      return {
        answering_model: a,
        parsing_model: p,
        total: resultsPerPair,
        passed,
        failed,
        errored: n("error"),
        pass_rate: passed + failed > 0 ? passed / (passed + failed) : null,
      };
    }),
  );
}

export function statusOf(jobs: { total: number; done: number; dead: number; skipped?: number; started: boolean }): RunStatus {
  const skipped = jobs.skipped ?? 0;
  if (jobs.done + jobs.dead + skipped < jobs.total) return jobs.started ? "running" : "queued";
  // Jobs skipped for the budget: the run stopped early, with what it finished.
  if (skipped > 0) return "budget_exceeded";
  if (jobs.dead === 0) return "completed";
  return jobs.done === 0 ? "failed" : "partial";
}

/** Per-trait mean score and pass rate of one (answering, parsing) pair, from the coordinator's trait rows. */
export function pairTraits(
  rows: readonly { answering_id: string; parsing_id: string; trait: string; score: number | null; pass: number | null; errored: number }[],
  answering: string,
  parsing: string,
): Record<string, TraitAggregate> {
  return aggregateTraits(
    rows
      .filter((r) => r.answering_id === answering && r.parsing_id === parsing)
      .map((r) => ({ trait: r.trait, score: r.score, pass: r.pass === null ? null : r.pass === 1, errored: r.errored === 1 })),
  );
}
