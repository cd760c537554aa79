/**
 * What the /v1/runs routes answer. The handlers build their bodies typed by these schemas
 * (`z.input<…>`), and /openapi.json publishes them, so the documented shape and the served one
 * cannot drift apart without a type error or a failing contract test (test/e2e/openapi-contract).
 */
import { z } from "zod";
import { RescoreAfresh, RescoreLeftOut } from "./rescore-caveats";
import { FieldWarning } from "./field-warning";
import { VerificationResult, ResultTemplate } from "./result";

const Usd = z.number().nullable();

export const UsageTotals = z.strictObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number(),
  /** Null when any call counted here has no price (unknown, never 0). */
  cost_usd: Usd,
});

/** Tokens and cost of a run or of one model pair; an answer shared by several judges counts once. */
export const RunUsage = z.strictObject({
  answering: UsageTotals,
  judging: UsageTotals.extend({ per_stage: z.record(z.string(), UsageTotals) }),
  total: UsageTotals,
  unpriced_models: z.array(z.string()),
});

export const TraitAggregate = z.strictObject({
  n: z.number(),
  errored: z.number(),
  mean_score: z.number().nullable(),
  pass_rate: z.number().nullable(),
});

/** One (answering, parsing) model pair of a run. */
export const PairSummary = z.strictObject({
  answering_model: z.string(),
  parsing_model: z.string(),
  /** Results the pair will have; a scenario's turns count as they are created, so with scenarios it grows during the run. */
  total: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
  errored: z.number().int(),
  /** passed / (passed + failed); null when the pair has neither yet. */
  pass_rate: z.number().nullable(),
  usage: RunUsage,
  traits: z.record(z.string(), TraitAggregate),
});

const ManifestModel = z.strictObject({
  id: z.string(),
  role: z.enum(["answering", "parsing"]),
  interface: z.string(),
  model_name: z.string(),
});

/** The manifest as the run's coordinator keeps it from submit (src/coordinator/manifest.ts): the models as configured. */
export const StoredRunManifest = z.strictObject({
  edgeval_version: z.string(),
  prompt_versions: z.record(z.string(), z.string()),
  models: z.array(ManifestModel),
});

/** The manifest a run view shows: each model with what its provider reported it ran. */
export const RunManifest = StoredRunManifest.extend({
  models: z.array(ManifestModel.extend({ actual_models: z.array(z.string()) })),
});

/** A run's status; after queued and running, the first that applies of the rest (README, GET /v1/runs/:id). */
export const RunStatusName = z.enum(["queued", "running", "completed", "partial", "failed", "cancelled", "budget_exceeded"]);

export const SubmittedRun = z.strictObject({
  run_id: z.string(),
  /** GET this for the run's status. */
  status_url: z.string(),
  /** What the run accepted but will not act on (a Karenina option set but not applied here), at its field. */
  warnings: z.array(FieldWarning),
});

const EstimateTotals = {
  calls: z.number(),
  calls_max: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cost_usd: Usd,
};

/** POST /v1/runs with `dry_run: true`: nothing written, no model called. */
export const DryRunEstimate = z.strictObject({
  estimate: z.strictObject({
    ...EstimateTotals,
    per_stage: z.record(z.string(), z.strictObject(EstimateTotals)),
    per_model: z.record(z.string(), z.strictObject({ ...EstimateTotals, role: z.enum(["answering", "judging"]) })),
    unpriced_models: z.array(z.string()),
    prices_as_of: z.string(),
    assumptions: z.array(z.string()),
  }),
  /** E.g. a secret a real run would need that is not set yet. */
  warnings: z.array(FieldWarning),
});

export const RunListItem = z.strictObject({
  run_id: z.string(),
  run_name: z.string().nullable(),
  benchmark_name: z.string().nullable(),
  status: RunStatusName,
  total_results: z.number().int(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  status_url: z.string(),
});

export const RunList = z.strictObject({
  runs: z.array(RunListItem),
  next_cursor: z.string().nullable(),
});

export const RunStatus = z.strictObject({
  run_id: z.string(),
  run_name: z.string().nullable(),
  benchmark_name: z.string().nullable(),
  status: RunStatusName,
  /** Results done and expected (with scenarios `total` grows as their turns are created). */
  progress: z.strictObject({ total: z.number().int(), done: z.number().int() }),
  /** At most 100 pairs, answering-major; the rest through summary_next_url. */
  summary: z.array(PairSummary),
  summary_total: z.number().int(),
  summary_next_url: z.string().nullable(),
  usage: RunUsage,
  budget_usd: z.number().nullable(),
  /** Null for runs submitted before manifests existed. */
  manifest: RunManifest.nullable(),
  /**
   * Re-scoring (POST /v1/runs/:id/rescore): the run this one re-scored, and the runs that re-scored this one (oldest first).
   * A re-scored run also keeps what its 202 said it does without: `left_out` (the parent's scenarios it does not
   * run; empty when none) and `graded_afresh` (the parent's tuples it answers and grades afresh; null when none).
   * Both are null on a run that is not a re-score, and on one re-scored before they were recorded (8 Dec 2026).
   */
  lineage: z.strictObject({
    parent_run_id: z.string().nullable(),
    children: z.array(z.string()),
    left_out: z.array(RescoreLeftOut).nullable(),
    graded_afresh: RescoreAfresh.nullable(),
  }),
  created_at: z.string(),
  finished_at: z.string().nullable(),
});
export type RunStatusView = z.input<typeof RunStatus>;

export const SummaryPage = z.strictObject({
  summary: z.array(PairSummary),
  next_cursor: z.string().nullable(),
});

/** A result as the list shows it: the trace messages are left out (GET …/results/:result_id has them). */
export const ListedResult = VerificationResult.extend({
  template: ResultTemplate.omit({ trace_messages: true }).nullable(),
});

export const ResultPage = z.strictObject({
  results: z.array(ListedResult),
  next_cursor: z.string().nullable(),
});

export const DeletedRun = z.strictObject({
  run_id: z.string(),
  deleted: z.literal(true),
  objects: z.number().int(),
  cache_entries: z.number().int(),
});

/** GET /v1/runs/:id/events as a whole: Server-Sent Events, not JSON; each frame is a `RunEvent`. */
export const RunEventStream = z
  .string()
  .describe("text/event-stream: result, progress, status and done events (each a RunEvent), `: heartbeat` comments");
