/** Response shapes of the results-out routes (issue 21): grouped summaries, exports, run comparison, schedules. */
import { z } from "zod";
import { EXPORT_FORMATS, GROUP_BYS, ResultFilterQuery } from "./api";
import { RunStatusName, SummaryPage } from "./run-views";

const ByK = z.record(z.string(), z.number().nullable());

export const GroupSummaryView = z.strictObject({
  group: z.record(z.string(), z.union([z.string(), z.number(), z.null()])),
  results: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
  errored: z.number().int(),
  no_verdict: z.number().int(),
  pass_rate: z.number().nullable(),
  tokens: z.strictObject({ input_tokens: z.number(), output_tokens: z.number(), total_tokens: z.number() }),
  cost_usd: z.number().nullable(),
  pass_at_k: ByK,
  pass_hat_k: ByK,
  trait: z
    .strictObject({ n: z.number().int(), errored: z.number().int(), mean_score: z.number().nullable(), pass_rate: z.number().nullable() })
    .optional(),
});

export const GroupedSummaryPage = z.strictObject({
  group_by: z.enum(GROUP_BYS),
  replicate_count: z.number().int(),
  groups: z.array(GroupSummaryView),
  groups_total: z.number().int(),
  next_cursor: z.string().nullable(),
});

/** GET /v1/runs/:id/summary: the pairs without group_by, the groups with it. */
export const SummaryResponse = z.union([SummaryPage, GroupedSummaryPage]);

/** An export file as text: Karenina's CSV or NDJSON (one result per line). */
export const ExportFile = z.string();

/**
 * Karenina's results export v2.2 (the JSON download): the document's outline. Each result is one
 * of Karenina's `VerificationResult`s, validated in the tests against src/exports/karenina-result.schema.json.
 */
export const KareninaResultsExport = z.object({
  format_version: z.literal("2.2"),
  metadata: z.object({ job_id: z.string(), job_summary: z.record(z.string(), z.unknown()) }).loose(),
  shared_data: z.object({ rubric_definition: z.unknown() }).loose(),
  results: z.array(z.record(z.string(), z.unknown())),
});

/**
 * Why a failed export failed (src/exports/export-failure.ts words each): the run was deleted meanwhile,
 * stored results could not be read back, the build kept failing (a passing server problem), or a
 * failure recorded before the reasons were.
 */
export const ExportFailureReason = z.enum(["run_deleted", "stored_data_missing", "kept_failing", "unknown"]);
export type ExportFailure = z.output<typeof ExportFailureReason>;

/** Which of the run's results an export holds: the filter it was made with, as sent (empty: every result). */
export const ExportFilter = z.strictObject(ResultFilterQuery);

export const ExportView = z.strictObject({
  export_id: z.string(),
  run_id: z.string(),
  format: z.enum(EXPORT_FORMATS),
  filter: ExportFilter,
  status: z.enum(["building", "ready", "failed"]),
  results_done: z.number().int(),
  results_total: z.number().int(),
  bytes: z.number().int().nullable(),
  /** A failed export: what failed and what to do, in words for a person (null unless failed). */
  error: z.string().nullable(),
  /** A failed export: why, for a program (null unless failed). */
  failure_reason: ExportFailureReason.nullable(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  status_url: z.string(),
  download_url: z.string(),
});

/** GET /v1/runs/:id/exports: a run's exports, newest first. */
export const ExportList = z.strictObject({ exports: z.array(ExportView), next_cursor: z.string().nullable() });

const ModelPairComparison = z.strictObject({
  a_answering_model: z.string(),
  b_answering_model: z.string(),
  /** Run B's parsing model, and run A's unless a_parsing_model names another (judges compared). */
  parsing_model: z.string(),
  a_parsing_model: z.string().optional(),
  paired: z.number().int(),
  excluded: z.number().int(),
  a_passed: z.number().int(),
  b_passed: z.number().int(),
  a_pass_rate: z.number().nullable(),
  b_pass_rate: z.number().nullable(),
  delta: z.number().nullable(),
  pass_to_fail: z.number().int(),
  fail_to_pass: z.number().int(),
  p_value: z.number(),
  significant: z.boolean(),
});

export const RunComparison = z.strictObject({
  a: z.string(),
  b: z.string(),
  /** Each run's status when compared. */
  a_status: RunStatusName,
  b_status: RunStatusName,
  /** Both runs have ended; false while either is queued or running: the figures cover the results recorded so far. */
  complete: z.boolean(),
  alpha: z.number(),
  model_pairs: z.array(ModelPairComparison),
  unmatched: z.strictObject({ only_in_a: z.number().int(), only_in_b: z.number().int() }),
  questions_with_flips: z.number().int(),
  questions: z.array(
    z.strictObject({
      question_id: z.string(),
      pass_to_fail: z.number().int(),
      fail_to_pass: z.number().int(),
      flips: z.array(
        z.strictObject({
          a_answering_model: z.string(),
          b_answering_model: z.string(),
          parsing_model: z.string(),
          a_parsing_model: z.string().optional(),
          replicate: z.number().int(),
          a: z.enum(["pass", "fail"]),
          b: z.enum(["pass", "fail"]),
        }),
      ),
    }),
  ),
  next_cursor: z.string().nullable(),
});

export const ScheduleView = z.strictObject({
  schedule_id: z.string(),
  name: z.string(),
  cron: z.string(),
  benchmark_id: z.string(),
  preset_id: z.string().nullable(),
  /** With preset_id: overrides of the preset's top-level keys; without: the whole VerificationConfig. */
  config: z.record(z.string(), z.unknown()),
  enabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const ScheduleDetail = ScheduleView.extend({
  recent_runs: z.array(
    z.strictObject({
      minute: z.string(),
      run_id: z.string().nullable(),
      skipped: z.string().nullable(),
      compared_with: z.string().nullable(),
      compared_at: z.string().nullable(),
      regression: z.boolean().nullable(),
      model_pairs: z.array(ModelPairComparison).nullable(),
    }),
  ),
});

export const ScheduleList = z.strictObject({ schedules: z.array(ScheduleView), next_cursor: z.string().nullable() });
export const DeletedSchedule = z.strictObject({ schedule_id: z.string(), deleted: z.literal(true) });
