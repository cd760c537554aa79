/**
 * The run's snapshot (GET /v1/runs/:id, its summary pages, the end event): status, progress, the
 * per-pair summaries with their usage and trait aggregates, the run's usage and manifest, from the
 * coordinator's rows (pure: the rows are read by the caller).
 */
import type { RunStatus } from "../storage/runs-repo";
import { runUsage, type UsageGroup, type UsageRowModel, unpricedModels } from "./cost";
import type { JobCounts } from "./job-table";
import { type RunManifest, withActualModels } from "./manifest";
import { gradedCount, type PairWindow, pairTraits, statusOf, summarize, type TraitTotal } from "./progress";
import type { VerdictCount } from "./run-totals";
import type { RunSnapshot } from "./rpc-types";

/** What a snapshot is made of. */
export interface SnapshotRows {
  run_id: string;
  answering: readonly string[];
  parsing: readonly string[];
  results_per_pair: number;
  /** Scenario turn jobs so far per pair (`answering\0parsing`, scenario-turns.ts): results beyond the questions'. */
  turns_per_pair?: ReadonlyMap<string, number>;
  started: boolean;
  cancelled: boolean;
  budget_usd: number | undefined;
  finished_at: string | undefined;
  manifest: RunManifest | null;
  jobs: JobCounts;
  verdicts: readonly VerdictCount[];
  usage: readonly UsageGroup[];
  unpriced: readonly UsageRowModel[];
  /** Every model the providers reported (read only when there is a manifest to fill in). */
  reported: readonly UsageRowModel[];
  traits: readonly TraitTotal[];
  /** Results the root of a sharded run refused (shard-report.ts). */
  refused?: number;
}

/** `pairs`: which (answering, parsing) pairs the summary holds (default all; the HTTP view pages them). */
export function runSnapshot(rows: SnapshotRows, pairs?: PairWindow): RunSnapshot {
  const { answering, parsing, results_per_pair: perPair, verdicts, usage, unpriced } = rows;
  const turns = rows.turns_per_pair ?? new Map<string, number>();
  const summary = summarize(answering, parsing, perPair, verdicts, pairs, turns).map((s) => {
    const pair = { answering_id: s.answering_model, parsing_id: s.parsing_model };
    return {
      ...s,
      usage: { ...runUsage(usage, pair), unpriced_models: unpricedModels(unpriced, pair) },
      traits: pairTraits(rows.traits, s.answering_model, s.parsing_model),
    };
  });
  return {
    run_id: rows.run_id,
    status: runStatus(rows.jobs, rows.started, gradedCount(verdicts), rows.cancelled, rows.refused),
    progress: {
      total: answering.length * parsing.length * perPair + [...turns.values()].reduce((a, n) => a + n, 0),
      done: verdicts.reduce((a, r) => a + r.n, 0),
    },
    summary,
    pairs_total: answering.length * parsing.length,
    jobs: rows.jobs,
    usage: { ...runUsage(usage), unpriced_models: unpricedModels(unpriced) },
    budget_usd: rows.budget_usd ?? null,
    manifest: rows.manifest ? withActualModels(rows.manifest, rows.reported) : null,
    finished_at: rows.finished_at ?? null,
  };
}

/** The run's status from its job counts and graded results (progress.ts statusOf, one precedence for every caller). */
export function runStatus(jobs: JobCounts, started: boolean, graded: number, cancelled: boolean, refused = 0): RunStatus {
  return statusOf({ ...jobs, started, graded, cancelled, refused });
}
