/**
 * Stage 13 — FinalizeResult. Always runs, last. Turns the pipeline state into Karenina's nested
 * VerificationResult (metadata, template, deep_judgment, root trace fields), classifies the
 * outcome and appends caveats.
 *
 * verify_result: an autofail, an abstention or an insufficient response forces false; otherwise
 * it is VerifyTemplate's verdict (after any embedding override), or null when verification did
 * not run.
 */
import type { Usage } from "../llm/port";
import { groundTruthOf } from "../templates";
import { modelIdentity } from "../schemas/model-identity";
import type { ResultDeepJudgment, VerificationResult } from "../schemas/result";
import { type DeepJudgmentRubricSection, emptySection } from "../rubric/deep-judgment";
import { emptySection as emptyRubricSection } from "../rubric/evaluate";
import { classifyFailure, collectCaveats, retryCounts } from "./failure";
import { resolveFewShotExamples } from "./few-shot";
import { emptyAgenticParse } from "./artifacts";
import { computeResultId, computeTemplateId } from "./ids";
import type { PipelineInput, PipelinePorts, PipelineState } from "./types";

export async function finalizeResult(state: PipelineState, input: PipelineInput, ports: PipelinePorts): Promise<VerificationResult> {
  const { question, answering, parsing } = input;
  const failure = classifyFailure(state);
  const nowMs = ports.clock.now();
  const template = question.template;
  const fewShot =
    answering.interface === "manual"
      ? 0
      : resolveFewShotExamples(input.settings.few_shot_config, question.id, question.few_shot_examples).length;
  return {
    metadata: {
      question_id: question.id,
      template_id: await computeTemplateId(template),
      result_id: await computeResultId({
        run_id: input.run_id,
        question_id: question.id,
        answering,
        parsing,
        replicate: input.replicate,
        ...(input.scenario ? { scenario: input.scenario } : {}),
      }),
      question_text: question.question,
      raw_answer: question.raw_answer ?? null,
      keywords: question.keywords ?? null,
      run_name: input.run_name,
      // Karenina's batch_runner.py:199: `replicate = None if config.replicate_count == 1 else rep`
      // (result_id above still hashes the index, so ids stay stable).
      replicate: input.settings.replicate_count === 1 ? null : input.replicate,
      answering: modelIdentity(answering),
      parsing: modelIdentity(parsing),
      answering_system_prompt: answering.system_prompt ?? null,
      parsing_system_prompt: parsing.system_prompt ?? null,
      execution_time: Math.max(0, nowMs - state.started_at_ms) / 1000,
      timestamp: new Date(nowMs).toISOString(),
      completed_without_errors: !state.error,
      error: state.error?.reason ?? null,
      failure,
      caveats: collectCaveats(state, input),
      warnings: state.warnings ?? [],
      evaluation_mode: input.settings.evaluation_mode,
      few_shot_enabled: fewShot > 0,
      few_shot_example_count: fewShot,
      ...(input.retries ? { retry_counts: retryCounts(input.retries) } : {}),
      ...(input.scenario ? { ...input.scenario, scenario_path: [...input.scenario.scenario_path] } : {}),
    },
    template: templateSection(state, template ? groundTruthOf(template) : null),
    deep_judgment: deepJudgmentSection(state, input),
    rubric: rubricSection(state),
    deep_judgment_rubric: deepJudgmentRubricSection(state, input),
    evaluation_input: state.evaluation?.text ?? null,
    used_full_trace: state.evaluation?.used_full_trace ?? input.settings.use_full_trace_for_template ?? false,
    trace_extraction_error: state.evaluation?.trace_extraction_error ?? null,
  };
}

function finalVerdict(state: PipelineState): boolean | null {
  if (state.autofail || state.abstention?.override_applied || state.sufficiency?.override_applied) return false;
  return state.verification ? state.verification.verify_result : null;
}

function templateSection(state: PipelineState, groundTruth: Record<string, unknown> | null): NonNullable<VerificationResult["template"]> {
  const v = state.verification;
  const abst = state.abstention;
  const suff = state.sufficiency;
  const emb = state.embedding;
  return {
    raw_llm_response: state.answer?.raw_llm_response ?? "",
    trace_messages: state.answer?.trace_messages ?? [],
    parsed_llm_response: state.parsed ?? null,
    parsed_gt_response: groundTruth,
    template_verification_performed: v !== undefined,
    verify_result: finalVerdict(state),
    verify_granular_result: v?.verify_granular_result ?? null,
    field_verification_error: v?.field_verification_error ?? null,
    field_results: v?.field_results ?? null,
    field_scores: v?.field_scores ?? null,
    composition_strategy: v?.composition_strategy ?? null,
    regex_validations_performed: v?.regex_validations_performed ?? false,
    regex_validation_results: v?.regex_validation_results ?? null,
    regex_validation_details: v?.regex_validation_details ?? null,
    regex_overall_success: v?.regex_overall_success ?? null,
    regex_extraction_results: v?.regex_extraction_results ?? null,
    embedding_check_performed: emb?.performed ?? false,
    embedding_similarity_score: emb?.similarity_score ?? null,
    embedding_override_applied: emb?.override_applied ?? false,
    embedding_model_used: emb?.model_used ?? null,
    abstention_check_performed: abst?.performed ?? false,
    abstention_detected: abst?.detected ?? null,
    abstention_override_applied: abst?.override_applied ?? false,
    abstention_reasoning: abst?.reasoning ?? null,
    sufficiency_check_performed: suff?.performed ?? false,
    sufficiency_detected: suff?.detected ?? null,
    sufficiency_override_applied: suff?.override_applied ?? false,
    sufficiency_reasoning: suff?.reasoning ?? null,
    recursion_limit_reached: state.answer?.recursion_limit_reached ?? false,
    response_timeout_partial: state.answer?.response_timeout_partial ?? false,
    ...(state.agentic_parse ?? emptyAgenticParse()),
    answering_mcp_servers: state.answer?.answering_mcp_servers ?? null,
    agent_metrics: state.answer?.agent_metrics ?? null,
    usage_metadata: usageMetadata(state.usage),
  };
}

/** Present whenever deep judgment is enabled for the run, even if it did not get to run. */
function deepJudgmentSection(state: PipelineState, input: PipelineInput): ResultDeepJudgment | null {
  const dj = input.settings.deep_judgment;
  if (!dj || dj.mode === "disabled") return null;
  return (
    state.deep_judgment ?? {
      deep_judgment_enabled: true,
      deep_judgment_mode: dj.mode,
      deep_judgment_performed: false,
      extracted_excerpts: null,
      attribute_reasoning: null,
      deep_judgment_stages_completed: null,
      deep_judgment_model_calls: 0,
      deep_judgment_excerpt_retry_count: 0,
      attributes_without_excerpts: null,
      deep_judgment_search_enabled: dj.search_enabled,
      hallucination_risk_assessment: null,
    }
  );
}

/** Stage 11's section with stage 11b's agentic scores folded in; null when neither ran. */
function rubricSection(state: PipelineState): VerificationResult["rubric"] {
  const ag = state.agentic_rubric;
  if (!state.rubric && !ag?.agentic_rubric_evaluation_performed) return null;
  const base = state.rubric ?? { ...emptyRubricSection(null), rubric_evaluation_performed: true };
  if (!ag?.agentic_rubric_evaluation_performed) return base;
  return {
    ...base,
    agentic_trait_scores: ag.agentic_trait_scores,
    agentic_trait_investigation_traces: ag.agentic_trait_investigation_traces,
  };
}

/** Present whenever rubric deep judgment is on and rubrics are evaluated, even if it did not get to run. */
function deepJudgmentRubricSection(state: PipelineState, input: PipelineInput): DeepJudgmentRubricSection | null {
  if (state.deep_judgment_rubric) return state.deep_judgment_rubric;
  const mode = input.settings.deep_judgment_rubric?.mode ?? "disabled";
  return mode !== "disabled" && input.settings.evaluation_mode !== "template_only" ? emptySection(false) : null;
}

function usageMetadata(usage: PipelineState["usage"]) {
  const stages = Object.entries(usage) as [string, Usage][];
  if (stages.length === 0) return null;
  const total = stages.reduce(
    (acc, [, u]) => ({
      input_tokens: acc.input_tokens + u.input_tokens,
      output_tokens: acc.output_tokens + u.output_tokens,
      total_tokens: acc.total_tokens + u.total_tokens,
    }),
    { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
  );
  return { ...Object.fromEntries(stages), total };
}
