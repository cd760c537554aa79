/**
 * What the checks around parsing record (guards, embedding check, deep judgment, autofails) and
 * the settings that switch them on. Kept apart from types.ts so each check's shape sits in one
 * place; types.ts composes them into the pipeline state.
 */
import type { ModelConfig } from "../schemas/model-config";
import type { FewShotConfig } from "./few-shot";
import type { Excerpt, HallucinationRisk } from "../core-shared/evidence";
import type { PromptConfig } from "../core-shared/instructions";

/** Abstention or sufficiency check, as recorded in the result's template section. */
export interface GuardArtifact {
  performed: boolean;
  /** abstention: true = abstained; sufficiency: true = sufficient (Karenina's naming). */
  detected: boolean | null;
  /** verify_result was forced to false by this check. */
  override_applied: boolean;
  reasoning: string | null;
}

export interface EmbeddingArtifact {
  performed: boolean;
  similarity_score: number | null;
  override_applied: boolean;
  model_used: string | null;
}

/** A guard stage that failed the answer outright (Karenina's autofail group). */
export interface AutofailArtifact {
  category: "recursion_limit" | "trace_validation" | "deep_judgment" | "deep_judgment_rubric";
  /** deep_judgment_rubric_autofail is stage 12, which arrives with rubric evaluation. */
  stage: "recursion_limit_autofail" | "trace_validation_autofail" | "deep_judgment_autofail" | "deep_judgment_rubric_autofail";
  reason: string;
}

export type DeepJudgmentMode = "disabled" | "reasoning_only" | "full";
export interface DeepJudgmentArtifact {
  deep_judgment_enabled: boolean;
  deep_judgment_mode: DeepJudgmentMode;
  deep_judgment_performed: boolean;
  extracted_excerpts: Record<string, Excerpt[]> | null;
  attribute_reasoning: Record<string, string> | null;
  deep_judgment_stages_completed: string[] | null;
  deep_judgment_model_calls: number;
  deep_judgment_excerpt_retry_count: number;
  attributes_without_excerpts: string[] | null;
  deep_judgment_search_enabled: boolean;
  hallucination_risk_assessment: Record<string, HallucinationRisk> | null;
}

export interface DeepJudgmentSettings {
  mode: DeepJudgmentMode;
  max_excerpts_per_attribute: number;
  fuzzy_match_threshold: number;
  excerpt_retry_attempts: number;
  search_enabled: boolean;
  search_tool: string;
}

export interface EmbeddingCheckSettings {
  enabled: boolean;
  model: string;
  threshold: number;
  /** The config's embedding_check_provider; the edge resolves who embeds (src/llm/embedding-model.ts). */
  provider?: ModelConfig | null;
}

/** Agentic parsing (stage 7b, src/pipeline/stages/agentic-parse.ts): Karenina's agentic_parsing_* options. */
export interface AgenticParsingSettings {
  trigger: "always" | "dynamic";
  judge_context: "workspace_only" | "trace_and_workspace" | "trace_only";
  max_turns: number;
  timeout_s: number;
  materialize_trace: boolean;
  persist_trace: boolean;
}

/** What stage 7b records: Karenina's result fields of agentic and dynamic parsing. */
export interface AgenticParseArtifact {
  investigation_trace: string | null;
  agentic_parsing_performed: boolean;
  agentic_extraction_recovery: "local_json" | null;
  agentic_extraction_error: string | null;
  dynamic_parsing_performed: boolean;
  dynamic_parse_decision: "direct" | "escalated" | null;
  dynamic_decision_reasoning: string | null;
}

/** Karenina's defaults: no agentic or dynamic parsing happened. */
export const emptyAgenticParse = (): AgenticParseArtifact => ({
  investigation_trace: null,
  agentic_parsing_performed: false,
  agentic_extraction_recovery: null,
  agentic_extraction_error: null,
  dynamic_parsing_performed: false,
  dynamic_parse_decision: null,
  dynamic_decision_reasoning: null,
});

/** Optional so run specs written before these features still load (absent = Karenina's default). */
export interface CheckSettings {
  use_full_trace_for_template?: boolean;
  use_full_trace_for_rubric?: boolean;
  /** Grade an agent's trace cut off by its wall-time limit (absent = true, Karenina's default). */
  allow_partial_trace_scoring?: boolean;
  abstention_enabled?: boolean;
  sufficiency_enabled?: boolean;
  embedding_check?: EmbeddingCheckSettings;
  deep_judgment?: DeepJudgmentSettings;
  few_shot_config?: FewShotConfig | null;
  prompt_config?: PromptConfig | null;
  /** Stage 7b in place of the plain parse (absent = off). */
  agentic_parsing?: AgenticParsingSettings;
}

export const DEFAULT_DEEP_JUDGMENT: DeepJudgmentSettings = {
  mode: "disabled",
  max_excerpts_per_attribute: 3,
  fuzzy_match_threshold: 0.8,
  excerpt_retry_attempts: 2,
  search_enabled: false,
  search_tool: "tavily",
};
