/**
 * What the pipeline is given and what it carries between stages. Platform-free: models arrive
 * as ports, time as a clock; nothing here knows about queues, D1 or R2.
 */
import type { LlmError, Message, ModelPort, Usage } from "../llm/port";
import type { Question } from "../schemas/benchmark";
import type { ModelConfig } from "../schemas/model-config";
import type { CodeVerifierPort } from "../templates/code-verify";
import type { FailureCategory, VerificationResult } from "../schemas/result";

export type EvaluationMode = "template_only" | "template_and_rubric" | "rubric_only";

export type StageName =
  | "validate_template"
  | "generate_answer"
  | "parse_template"
  | "verify_template"
  | "finalize_result";

/** The generated (or supplied) answer: produced once per job and shared by every judge. */
export interface AnswerArtifact {
  raw_llm_response: string;
  trace_messages: Message[];
  usage: Usage | null;
}

/** A stage's failure, already in Karenina's taxonomy. `llm` keeps the model error for retry decisions. */
export interface StageError {
  category: FailureCategory;
  stage: StageName;
  reason: string;
  llm?: LlmError;
}

export type AnswerOutcome = { ok: true; answer: AnswerArtifact } | { ok: false; error: StageError };

export interface PipelineSettings {
  evaluation_mode: EvaluationMode;
  include_extraction_hints: boolean;
}

export interface PipelineInput {
  run_id: string;
  run_name: string | null;
  question: Question;
  answering: ModelConfig;
  parsing: ModelConfig;
  replicate: number;
  settings: PipelineSettings;
  /** Answer already produced for this job (answer cache / checkpoint): generation is skipped. */
  answer?: AnswerOutcome;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export interface PipelineLog {
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
}

export interface PipelinePorts {
  answerer: ModelPort;
  judge: ModelPort;
  clock: Clock;
  log?: PipelineLog;
  /** Runs a template's custom_verify code; without it such templates fail verification (never pass). */
  codeVerifier?: CodeVerifierPort;
}

type TemplateSection = NonNullable<VerificationResult["template"]>;

export interface VerificationArtifact {
  verify_result: boolean;
  verify_granular_result: number | null;
  field_results: Record<string, boolean | null>;
  field_scores: Record<string, number | null>;
  composition_strategy: string | null;
  field_verification_error: string | null;
  regex_validations_performed: boolean;
  regex_validation_results: Record<string, boolean> | null;
  regex_validation_details: TemplateSection["regex_validation_details"];
  regex_overall_success: boolean | null;
  regex_extraction_results: Record<string, unknown> | null;
}

/** Everything the stages have produced so far. Stages return patches; the orchestrator merges. */
export interface PipelineState {
  started_at_ms: number;
  answer?: AnswerArtifact;
  parsed?: Record<string, unknown>;
  parse_performed: boolean;
  verification?: VerificationArtifact;
  error?: StageError;
  usage: Partial<Record<"answer_generation" | "parsing", Usage>>;
  stages_run: StageName[];
}

export type StagePatch = Partial<Omit<PipelineState, "started_at_ms" | "stages_run">>;

export interface Stage {
  name: StageName;
  /** Runtime skip condition; the default for most stages is "no earlier error". */
  shouldRun(state: PipelineState, input: PipelineInput): boolean;
  run(state: PipelineState, input: PipelineInput, ports: PipelinePorts): Promise<StagePatch>;
}

export interface PipelineOutcome {
  result: VerificationResult;
  /** Set when the run ended on a transient model failure that a later attempt may not hit. */
  retryable: LlmError | null;
}
