/**
 * What the pipeline is given and what it carries between stages. Platform-free: models arrive
 * as ports, time as a clock; nothing here knows about queues, D1 or R2.
 */
import type { LlmError, Message, ModelPort, TransientKind, Usage } from "../llm/port";
import type { Question } from "../schemas/benchmark";
import type { ModelConfig } from "../schemas/model-config";
import type { CodeVerifierPort } from "../templates/code-verify";
import type { FailureCategory, VerificationResult } from "../schemas/result";
import type { SearchPort } from "../core-shared/evidence";
import type {
  AgenticParseArtifact,
  AutofailArtifact,
  CheckSettings,
  DeepJudgmentArtifact,
  EmbeddingArtifact,
  GuardArtifact,
} from "./artifacts";
import type { EvaluationInput } from "./trace";
import type { AgentMetrics } from "./agent/metrics";
import type { AgentToolsPort } from "./agent/answering-agent";
import type { AgentCheckpointPort } from "../core-shared/agent-types";
import type { JudgePorts } from "../judges/types";
import type { Rubric } from "../schemas/rubric";
import type { CallableTraitPort, RubricSection } from "../rubric/types";
import type { DeepJudgmentRubricSection, DeepJudgmentRubricSettings } from "../rubric/deep-judgment";
import type { AgenticRubricArtifact, AgenticRubricSettings, WorkspacePort } from "../rubric/agentic/types";

export type EvaluationMode = "template_only" | "template_and_rubric" | "rubric_only";

export type StageName =
  | "validate_template"
  | "generate_answer"
  | "recursion_limit_autofail"
  | "trace_validation_autofail"
  | "abstention_check"
  | "sufficiency_check"
  | "parse_template"
  | "verify_template"
  | "embedding_check"
  | "deep_judgment_autofail"
  | "rubric_evaluation"
  | "deep_judgment_rubric_autofail"
  | "agentic_rubric_evaluation"
  | "finalize_result";

/** usage_metadata keys (Karenina's stage names for token accounting). */
export type UsageStage =
  | "answer_generation"
  | "abstention_check"
  | "sufficiency_check"
  | "parsing"
  | "deep_judgment_excerpts"
  | "deep_judgment_hallucination"
  | "deep_judgment_reasoning"
  | "embedding_check"
  | "rubric_evaluation"
  | "dynamic_rubric_presence_check"
  | "agentic_rubric_evaluation"
  | "dynamic_parsing_decision"
  | "agentic_parsing_investigation"
  | "agentic_parsing_extraction";

/** The generated (or supplied) answer: produced once per job and shared by every judge. */
export interface AnswerArtifact {
  raw_llm_response: string;
  trace_messages: Message[];
  usage: Usage | null;
  /** The caller supplied a message trace (manual interface): judges read it as a trace. */
  is_trace?: boolean;
  /** An agent stopped at its model-call or tool-call limit (Karenina's recursion limit). */
  recursion_limit_reached?: boolean;
  /** An agent stopped at its wall-time limit: the trace is partial. */
  response_timeout_partial?: boolean;
  /** Karenina's agent_metrics of an MCP agent (src/pipeline/agent/metrics.ts). */
  agent_metrics?: AgentMetrics;
  /** The answering agent's MCP server names. */
  answering_mcp_servers?: string[];
}

/** A stage's failure, already in Karenina's taxonomy. `llm` keeps the model error for retry decisions. */
export interface StageError {
  category: FailureCategory;
  stage: StageName;
  reason: string;
  llm?: LlmError;
  /** A retry-group failure no retry could change (an agent's partial trace not scored): never "retries exhausted". */
  not_retried?: true;
}

export type AnswerOutcome = { ok: true; answer: AnswerArtifact } | { ok: false; error: StageError };

export interface PipelineSettings extends CheckSettings {
  evaluation_mode: EvaluationMode;
  /** The run's replicate count: with 1 the result's `replicate` is null, as in Karenina. */
  replicate_count?: number;
  include_extraction_hints: boolean;
  /** The benchmark's global rubric, merged with each question's own by stage 11. */
  global_rubric?: Rubric | null;
  rubric_evaluation_strategy?: "batch" | "sequential" | null;
  /** Only these traits are evaluated (null = all). */
  rubric_trait_names?: string[] | null;
  /** Deep judgment for rubric LLM traits (absent = disabled). */
  deep_judgment_rubric?: DeepJudgmentRubricSettings;
  /** Agentic rubric traits, stage 11b (absent = Karenina's defaults). */
  agentic_rubric?: AgenticRubricSettings;
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
  /**
   * The job's retry ledger: retries used per transient class, in place or on earlier deliveries,
   * and each class's budget. `used` is the ledger the job's model ports count into, read when the
   * result is finalized, so this pipeline's own retries count too (metadata.retry_counts, caveat
   * `retries_used`). Absent outside queue jobs (no retry_counts then).
   */
  retries?: RetryLedgerView;
  /** A scenario turn (src/scenarios): which turn this is, stamped on the result and in its id. */
  scenario?: ScenarioTurnRef;
  /** A scenario turn's conversation so far, sent before the question (oldest first). */
  history?: Message[];
}

/** Karenina's scenario fields of a turn's result. */
export interface ScenarioTurnRef {
  scenario_id: string;
  scenario_node: string;
  scenario_turn: number;
  scenario_path: string[];
}

export interface RetryLedgerView {
  used: Readonly<Record<TransientKind, number>>;
  budgets: Readonly<Record<TransientKind, number>>;
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
  /** Embeddings for the embedding check (the edge resolves it, src/llm/embedding-model.ts); defaults to the judge's port. */
  embedder?: ModelPort;
  /** The model name `embedder` is asked for; defaults to the config's embedding_check_model. */
  embedderModel?: string;
  /** Web search for deep judgment's hallucination check; without it search is skipped with a warning. */
  search?: SearchPort;
  /** Runs callable rubric traits' JavaScript (the QuickJS sandbox at the edge); without it they are null with a warning. */
  callableTraits?: CallableTraitPort;
  /** Models for compound rubric traits' units; without it every unit uses `judge`. */
  judgeModels?: JudgePorts;
  /** The question's workspace (an R2 prefix at the edge) for agentic rubric traits and agentic parsing. */
  workspace?: WorkspacePort;
  /** Opens an answering model's MCP servers (src/mcp); without it an MCP model's answer is an error. */
  agentTools?: AgentToolsPort;
  /** Saves the answering agent's progress across deliveries (the job runner's R2 checkpoint). */
  agentCheckpoint?: AgentCheckpointPort;
}

type TemplateSection = NonNullable<VerificationResult["template"]>;

export interface VerificationArtifact {
  /** null: the checks could not decide (a regex past its budget, custom code that failed to run). */
  verify_result: boolean | null;
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
  /** The field part alone (before AND-ing regex): what the embedding check may override. */
  field_verification_result?: boolean | null;
}

/** Everything the stages have produced so far. Stages return patches; the orchestrator merges. */
export interface PipelineState {
  started_at_ms: number;
  answer?: AnswerArtifact;
  parsed?: Record<string, unknown>;
  parse_performed: boolean;
  verification?: VerificationArtifact;
  error?: StageError;
  usage: Partial<Record<UsageStage, Usage>>;
  stages_run: StageName[];
  /** What template judges read (final AI message or full trace), set once the answer exists. */
  evaluation?: EvaluationInput;
  autofail?: AutofailArtifact;
  abstention?: GuardArtifact;
  sufficiency?: GuardArtifact;
  embedding?: EmbeddingArtifact;
  deep_judgment?: DeepJudgmentArtifact;
  /** Stage 7b's agentic / dynamic parsing record. */
  agentic_parse?: AgenticParseArtifact;
  /** Stage 11's rubric section. */
  rubric?: RubricSection;
  /** Stage 11's deep judgment of rubric traits (read by stage 12 and FinalizeResult). */
  deep_judgment_rubric?: DeepJudgmentRubricSection;
  /** Stage 11b's agentic trait scores and investigation traces. */
  agentic_rubric?: AgenticRubricArtifact;
  /** Non-fatal problems (a check whose judge failed), recorded in metadata.warnings. */
  warnings?: string[];
  /**
   * A non-fatal check failed on a transient model error: the result stands, but a later
   * delivery could run the check, so the job runner retries while it has attempts left.
   */
  transient_error?: LlmError;
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
  /** Set when the run ended on (or a non-fatal check hit) a transient model failure that a later attempt may not hit. */
  retryable: LlmError | null;
}
