/**
 * VerificationResult: Karenina's nested result (`spec/verification-result.md`, inventory §6),
 * with Karenina's field names, for the sections edgeval produces now: `metadata`, `template`,
 * `deep_judgment` (null unless deep judgment is enabled), `rubric`, `deep_judgment_rubric` and
 * the three root trace fields.
 *
 * The failure taxonomy is data: 14 categories in 5 groups. `failure.group` is always computed
 * from the category (an incoming group is ignored), as in Karenina.
 */
import { z } from "zod";
import { ModelIdentity } from "./model-identity";
import { MATCH_TYPES } from "../templates/template-schema";
import { EVALUATION_MODES } from "./verification-config";

export const FAILURE_GROUP = {
  content: "content",
  recursion_limit: "autofail",
  trace_validation: "autofail",
  deep_judgment: "autofail",
  deep_judgment_rubric: "autofail",
  timeout: "retry",
  connection: "retry",
  rate_limit: "retry",
  server_error: "retry",
  abstention: "abstained",
  sufficiency: "abstained",
  template_validation: "system",
  parsing: "system",
  unexpected_error: "system",
} as const satisfies Record<string, "content" | "autofail" | "retry" | "abstained" | "system">;

export type FailureCategory = keyof typeof FAILURE_GROUP;
export type FailureGroup = (typeof FAILURE_GROUP)[FailureCategory];
export const FAILURE_CATEGORIES = Object.keys(FAILURE_GROUP) as FailureCategory[];
export const FAILURE_GROUPS = ["content", "autofail", "retry", "abstained", "system"] as const satisfies readonly FailureGroup[];

export const Failure = z
  .strictObject({
    category: z.enum(FAILURE_CATEGORIES as [FailureCategory, ...FailureCategory[]]),
    stage: z.string(),
    reason: z.string().max(500),
    details: z.record(z.string(), z.unknown()).nullish(),
    group: z.enum(FAILURE_GROUPS).optional(),
  })
  .transform(({ group: _ignored, ...f }) => ({ ...f, group: FAILURE_GROUP[f.category] }));
export type Failure = z.output<typeof Failure>;

export const ResultMetadata = z.strictObject({
  question_id: z.string(),
  template_id: z.string(),
  result_id: z.string(),
  question_text: z.string(),
  raw_answer: z.string().nullable(),
  keywords: z.array(z.string()).nullable(),
  run_name: z.string().nullable(),
  replicate: z.number().int().nullable(),
  answering: ModelIdentity,
  parsing: ModelIdentity,
  answering_system_prompt: z.string().nullable(),
  parsing_system_prompt: z.string().nullable(),
  /** seconds */
  execution_time: z.number().min(0),
  timestamp: z.string(),
  completed_without_errors: z.boolean(),
  error: z.string().nullable(),
  failure: Failure.nullable(),
  caveats: z.array(z.string()),
  warnings: z.array(z.string()),
  evaluation_mode: z.enum(EVALUATION_MODES).nullable(),
  few_shot_enabled: z.boolean(),
  few_shot_example_count: z.number().int().min(0),
  /** Karenina's retry_counts: per retried error class, retries used by the job and its budget. */
  retry_counts: z.record(z.string(), z.strictObject({ used: z.number().int().min(0), budget: z.number().int().min(0) })).optional(),
  /** A scenario turn's result (src/scenarios): the scenario, the node, the turn (from 0) and the path up to this node. */
  scenario_id: z.string().nullish(),
  scenario_node: z.string().nullish(),
  scenario_turn: z.number().int().min(0).nullish(),
  scenario_path: z.array(z.string()).nullish(),
});

/** Same shape as `RegexCheckDetail` from src/templates/regex-checks.ts. */
const RegexDetail = z.strictObject({
  pattern: z.string(),
  expected: z.union([z.string(), z.number(), z.array(z.string())]),
  match_type: z.enum(MATCH_TYPES),
  matches_found: z.array(z.union([z.string(), z.array(z.string())])),
  match_count: z.number().int(),
  success_reason: z.string().optional(),
  failure_reason: z.string().optional(),
});

/** One stage's token usage; Karenina adds provider-specific details, kept as they come. */
const StageUsage = z.looseObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number(),
  model: z.string().optional(),
});

/** A message of the answer's trace (the model port's `Message`); also the answer checkpoint's (src/storage/answer-checkpoint-store.ts). */
export const PortMessage = z.strictObject({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string(),
  tool_calls: z.array(z.strictObject({ id: z.string(), name: z.string(), arguments: z.unknown() })).optional(),
  tool_call_id: z.string().optional(),
});

export const ResultTemplate = z.strictObject({
  raw_llm_response: z.string(),
  trace_messages: z.array(PortMessage),
  parsed_llm_response: z.record(z.string(), z.unknown()).nullable(),
  parsed_gt_response: z.record(z.string(), z.unknown()).nullable(),
  template_verification_performed: z.boolean(),
  verify_result: z.boolean().nullable(),
  verify_granular_result: z.number().nullable(),
  field_verification_error: z.string().nullable(),
  field_results: z.record(z.string(), z.boolean().nullable()).nullable(),
  field_scores: z.record(z.string(), z.number().nullable()).nullable(),
  composition_strategy: z.string().nullable(),
  regex_validations_performed: z.boolean(),
  regex_validation_results: z.record(z.string(), z.boolean()).nullable(),
  regex_validation_details: z.record(z.string(), RegexDetail).nullable(),
  regex_overall_success: z.boolean().nullable(),
  regex_extraction_results: z.record(z.string(), z.unknown()).nullable(),
  embedding_check_performed: z.boolean(),
  embedding_similarity_score: z.number().nullable(),
  embedding_override_applied: z.boolean(),
  embedding_model_used: z.string().nullable(),
  abstention_check_performed: z.boolean(),
  abstention_detected: z.boolean().nullable(),
  abstention_override_applied: z.boolean(),
  abstention_reasoning: z.string().nullable(),
  sufficiency_check_performed: z.boolean(),
  sufficiency_detected: z.boolean().nullable(),
  sufficiency_override_applied: z.boolean(),
  sufficiency_reasoning: z.string().nullable(),
  recursion_limit_reached: z.boolean(),
  /** Agentic parsing (stage 7b) and its dynamic decision (optional: results from before it lack them). */
  investigation_trace: z.string().nullish(),
  agentic_parsing_performed: z.boolean().optional(),
  agentic_extraction_recovery: z.string().nullish(),
  agentic_extraction_error: z.string().nullish(),
  dynamic_parsing_performed: z.boolean().optional(),
  dynamic_parse_decision: z.string().nullish(),
  dynamic_decision_reasoning: z.string().nullish(),
  /** The answering agent stopped at its wall-time limit; the trace is partial. */
  response_timeout_partial: z.boolean().optional(),
  /** An MCP answering agent's server names and Karenina's agent_metrics; null for a plain model. */
  answering_mcp_servers: z.array(z.string()).nullish(),
  agent_metrics: z.record(z.string(), z.unknown()).nullish(),
  usage_metadata: z.record(z.string(), StageUsage).nullable(),
});

const Excerpt = z.strictObject({
  text: z.string(),
  confidence: z.enum(["high", "medium", "low", "none"]),
  similarity_score: z.number().min(0).max(1),
  explanation: z.string().optional(),
  search_results: z.string().optional(),
  hallucination_risk: z.enum(["none", "low", "medium", "high"]).optional(),
  hallucination_justification: z.string().optional(),
});

/** Karenina's VerificationResultDeepJudgment (templates); present when deep judgment is enabled. */
export const ResultDeepJudgment = z.strictObject({
  deep_judgment_enabled: z.boolean(),
  deep_judgment_mode: z.enum(["disabled", "reasoning_only", "full"]),
  deep_judgment_performed: z.boolean(),
  extracted_excerpts: z.record(z.string(), z.array(Excerpt)).nullable(),
  attribute_reasoning: z.record(z.string(), z.string()).nullable(),
  deep_judgment_stages_completed: z.array(z.string()).nullable(),
  deep_judgment_model_calls: z.number().int().min(0),
  deep_judgment_excerpt_retry_count: z.number().int().min(0),
  attributes_without_excerpts: z.array(z.string()).nullable(),
  deep_judgment_search_enabled: z.boolean(),
  hallucination_risk_assessment: z.record(z.string(), z.enum(["none", "low", "medium", "high"])).nullable(),
});

const Risk = z.enum(["none", "low", "medium", "high"]);

/** Karenina's VerificationResultDeepJudgmentRubric (11 fields); present when rubric deep judgment is on. */
export const ResultDeepJudgmentRubric = z.strictObject({
  deep_judgment_rubric_performed: z.boolean(),
  extracted_rubric_excerpts: z.record(z.string(), z.array(Excerpt)).nullable(),
  rubric_trait_reasoning: z.record(z.string(), z.string()).nullable(),
  deep_judgment_rubric_scores: z.record(z.string(), z.union([z.number(), z.boolean()])).nullable(),
  standard_rubric_scores: z.record(z.string(), z.union([z.number(), z.boolean()])).nullable(),
  trait_metadata: z
    .record(
      z.string(),
      z.strictObject({
        stages_completed: z.array(z.enum(["excerpt_extraction", "hallucination_assessment", "reasoning_generation", "score_extraction"])),
        model_calls: z.number().int().min(0),
        had_excerpts: z.boolean(),
        excerpt_retry_count: z.number().int().min(0),
        excerpt_validation_failed: z.boolean(),
      }),
    )
    .nullable(),
  traits_without_valid_excerpts: z.array(z.string()).nullable(),
  rubric_hallucination_risk_assessment: z
    .record(z.string(), z.strictObject({ overall_risk: Risk, per_excerpt_risks: z.array(Risk) }))
    .nullable(),
  total_deep_judgment_model_calls: z.number().int().min(0),
  total_traits_evaluated: z.number().int().min(0),
  total_excerpt_retries: z.number().int().min(0),
});

const Score = z.union([z.number(), z.boolean()]).nullable();
const Confusion = z.strictObject({ tp: z.array(z.string()), fn: z.array(z.string()), fp: z.array(z.string()), tn: z.array(z.string()) });

/**
 * Karenina's VerificationResultRubric, present when rubric evaluation ran. A score of null is a
 * trait whose judge failed (never a "no"). edgeval adds compound traits (issue 7): their pooled
 * score and the unit-by-unit trace.
 */
export const ResultRubric = z.strictObject({
  rubric_evaluation_performed: z.boolean(),
  rubric_evaluation_strategy: z.enum(["batch", "sequential"]).nullable(),
  llm_trait_scores: z.record(z.string(), Score).nullable(),
  llm_trait_labels: z.record(z.string(), z.string()).nullable(),
  regex_trait_scores: z.record(z.string(), z.boolean()).nullable(),
  callable_trait_scores: z.record(z.string(), Score).nullable(),
  metric_trait_scores: z.record(z.string(), z.record(z.string(), z.number())).nullable(),
  metric_trait_confusion_lists: z.record(z.string(), Confusion).nullable(),
  agentic_trait_scores: z.record(z.string(), Score).nullable(),
  agentic_trait_investigation_traces: z.record(z.string(), z.string().nullable()).nullable(),
  agentic_trait_extraction_metadata: z.record(z.string(), z.unknown()).nullable(),
  compound_trait_scores: z.record(z.string(), z.number().nullable()).nullable(),
  compound_trait_traces: z.record(z.string(), z.record(z.string(), z.unknown())).nullable(),
  dynamic_rubric_promoted_traits: z.array(z.string()).nullable(),
  dynamic_rubric_skipped_traits: z.record(z.string(), z.string()).nullable(),
  trait_provenance: z.record(z.string(), z.enum(["global", "question_specific", "dynamic"])).nullable(),
});
export type ResultRubric = z.output<typeof ResultRubric>;

export const VerificationResult = z.strictObject({
  metadata: ResultMetadata,
  template: ResultTemplate.nullable(),
  deep_judgment: ResultDeepJudgment.nullish(),
  rubric: ResultRubric.nullish(),
  deep_judgment_rubric: ResultDeepJudgmentRubric.nullish(),
  evaluation_input: z.string().nullable(),
  used_full_trace: z.boolean(),
  trace_extraction_error: z.string().nullable(),
});
export type VerificationResult = z.output<typeof VerificationResult>;
export type VerificationResultInput = z.input<typeof VerificationResult>;
export type ResultMetadata = z.output<typeof ResultMetadata>;
export type ResultTemplate = z.output<typeof ResultTemplate>;
export type ResultDeepJudgment = z.output<typeof ResultDeepJudgment>;
export type ResultDeepJudgmentRubric = z.output<typeof ResultDeepJudgmentRubric>;
