/**
 * The wire types of the client, inferred from the zod schemas the server validates with and
 * answers by (the same ones /openapi.json publishes). Type-only imports: nothing of the server is
 * loaded at run time, so the client runs in Node (type stripping), browsers and workers alike.
 */
import type { z } from "zod";
import type {
  CreateExportRequest as CreateExportRequestSchema,
  CreateRunRequest as CreateRunRequestSchema,
  ExportQuery as ExportQuerySchema,
  RunSubmission as RunSubmissionSchema,
} from "../schemas/api.ts";
import type * as O from "../schemas/results-out-views.ts";
import type { RescoreRequest as RescoreRequestSchema, RescoreStarted as RescoreStartedSchema } from "../schemas/rescore.ts";
import type {
  CreateScheduleRequest as CreateScheduleRequestSchema,
  UpdateScheduleRequest as UpdateScheduleRequestSchema,
} from "../schemas/schedules.ts";
import type { ErrorResponse } from "../schemas/api-error.ts";
import type { Benchmark } from "../schemas/benchmark.ts";
import type * as B from "../schemas/benchmark-views.ts";
import type { CalibrateRequest as CalibrateRequestSchema, JudgeRequest as JudgeRequestSchema } from "../schemas/judge.ts";
import type * as J from "../schemas/judge-outcome.ts";
import type { VerificationResult as VerificationResultSchema } from "../schemas/result.ts";
import type * as R from "../schemas/run-views.ts";
import type * as T from "../schemas/tenant-views.ts";
import type * as SJ from "../schemas/stored-judge-views.ts";
import type {
  CreateJudgeTokenRequest as CreateJudgeTokenRequestSchema,
  PromptfooRequest as PromptfooRequestSchema,
  StoredJudgeRequest as StoredJudgeRequestSchema,
} from "../schemas/stored-judges.ts";
import type { CreateKeyRequest as CreateKeyRequestSchema, PutSecretRequest as PutSecretRequestSchema } from "../schemas/tenants.ts";

/** What the server sends is what its handlers build: the schemas' input side. */
type Wire<S extends z.ZodType> = z.input<S>;

export type CreateRunRequest = Wire<typeof CreateRunRequestSchema>;
/** A run with its config spelled out, or naming a stored preset (`preset_id`, `config` as overrides). */
export type RunSubmission = Wire<typeof RunSubmissionSchema>;
export type BenchmarkBody = Wire<typeof Benchmark>;
export type JudgeRequest = Wire<typeof JudgeRequestSchema>;
export type CalibrateRequest = Wire<typeof CalibrateRequestSchema>;
export type CreateKeyRequest = Wire<typeof CreateKeyRequestSchema>;
export type PutSecretRequest = Wire<typeof PutSecretRequestSchema>;

export type CreateExportRequest = Wire<typeof CreateExportRequestSchema>;
export type RescoreRequest = Wire<typeof RescoreRequestSchema>;
export type ExportQuery = Wire<typeof ExportQuerySchema>;
export type CreateScheduleRequest = Wire<typeof CreateScheduleRequestSchema>;
export type UpdateScheduleRequest = Wire<typeof UpdateScheduleRequestSchema>;

export type ApiErrorBody = Wire<typeof ErrorResponse>;
export type SubmittedRun = Wire<typeof R.SubmittedRun>;
/** The child run of a re-score, and what of its parent it leaves out (`left_out`; empty: nothing). */
export type RescoreStarted = Wire<typeof RescoreStartedSchema>;
export type DryRunEstimate = Wire<typeof R.DryRunEstimate>;
export type RunStatus = Wire<typeof R.RunStatus>;
export type RunStatusName = Wire<typeof R.RunStatusName>;
export type RunList = Wire<typeof R.RunList>;
export type RunListItem = Wire<typeof R.RunListItem>;
export type PairSummary = Wire<typeof R.PairSummary>;
export type SummaryPage = Wire<typeof R.SummaryPage>;
export type ResultPage = Wire<typeof R.ResultPage>;
export type ListedResult = Wire<typeof R.ListedResult>;
export type VerificationResult = Wire<typeof VerificationResultSchema>;
export type DeletedRun = Wire<typeof R.DeletedRun>;

export type ExportView = Wire<typeof O.ExportView>;
export type ExportList = Wire<typeof O.ExportList>;
export type RunComparison = Wire<typeof O.RunComparison>;
export type ScheduleView = Wire<typeof O.ScheduleView>;
export type ScheduleDetail = Wire<typeof O.ScheduleDetail>;
export type ScheduleList = Wire<typeof O.ScheduleList>;
export type DeletedSchedule = Wire<typeof O.DeletedSchedule>;

export type BenchmarkListing = Wire<typeof B.BenchmarkListing>;
export type BenchmarkList = Wire<typeof B.BenchmarkList>;
export type StoredBenchmark = Wire<typeof B.StoredBenchmark>;
export type ImportedCheckpoint = Wire<typeof B.ImportedCheckpoint>;
export type DeletedBenchmark = Wire<typeof B.DeletedBenchmark>;

export type JudgeOutcome = Wire<typeof J.JudgeOutcome>;
export type CalibrationReport = Wire<typeof J.CalibrationReport>;

export type StoredJudgeRequest = Wire<typeof StoredJudgeRequestSchema>;
export type CreateJudgeTokenRequest = Wire<typeof CreateJudgeTokenRequestSchema>;
export type PromptfooRequest = Wire<typeof PromptfooRequestSchema>;
export type StoredJudgeView = Wire<typeof SJ.StoredJudgeView>;
export type StoredJudgeList = Wire<typeof SJ.StoredJudgeList>;
export type DeletedStoredJudge = Wire<typeof SJ.DeletedStoredJudge>;
export type JudgeTokenView = Wire<typeof SJ.JudgeTokenView>;
export type JudgeTokenList = Wire<typeof SJ.JudgeTokenList>;
export type MintedJudgeToken = Wire<typeof SJ.MintedJudgeToken>;
export type PromptfooVerdict = Wire<typeof SJ.PromptfooVerdict>;

export type KeyView = Wire<typeof T.KeyView>;
export type MintedKey = Wire<typeof T.MintedKey>;
export type KeyList = Wire<typeof T.KeyList>;
export type SecretView = Wire<typeof T.SecretView>;
export type SecretList = Wire<typeof T.SecretList>;
export type DeletedSecret = Wire<typeof T.DeletedSecret>;
export type MonthUsage = Wire<typeof T.MonthUsage>;

/** Statuses after which a run changes no more. */
export const TERMINAL_STATUSES: readonly RunStatusName[] = ["completed", "partial", "failed", "cancelled", "budget_exceeded"];
