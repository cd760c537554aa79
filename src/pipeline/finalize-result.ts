/**
 * Stage 13 — FinalizeResult. Always runs, last. Turns the pipeline state into Karenina's nested
 * VerificationResult (metadata + template sections) and classifies the outcome.
 */
import type { Usage } from "../llm/port";
import { groundTruthOf } from "../templates";
import { modelIdentity } from "../schemas/model-config";
import type { VerificationResult } from "../schemas/result";
import { classifyFailure } from "./failure";
import { computeResultId, computeTemplateId } from "./ids";
import type { PipelineInput, PipelinePorts, PipelineState } from "./types";

export async function finalizeResult(
  state: PipelineState,
  input: PipelineInput,
  ports: PipelinePorts,
): Promise<VerificationResult> {
  const { question, answering, parsing } = input;
  const failure = classifyFailure(state);
  const nowMs = ports.clock.now();
  const v = state.verification;
  const template = question.template;
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
      }),
      question_text: question.question,
      raw_answer: question.raw_answer ?? null,
      keywords: question.keywords ?? null,
      run_name: input.run_name,
      replicate: input.replicate,
      answering: modelIdentity(answering),
      parsing: modelIdentity(parsing),
      answering_system_prompt: answering.system_prompt ?? null,
      parsing_system_prompt: parsing.system_prompt ?? null,
      execution_time: Math.max(0, nowMs - state.started_at_ms) / 1000,
      timestamp: new Date(nowMs).toISOString(),
      completed_without_errors: !state.error,
      error: state.error?.reason ?? null,
      failure,
      caveats: [],
      warnings: [],
      evaluation_mode: input.settings.evaluation_mode,
      few_shot_enabled: false,
      few_shot_example_count: 0,
    },
    template: {
      raw_llm_response: state.answer?.raw_llm_response ?? "",
      trace_messages: state.answer?.trace_messages ?? [],
      parsed_llm_response: state.parsed ?? null,
      parsed_gt_response: template ? groundTruthOf(template) : null,
      template_verification_performed: v !== undefined,
      verify_result: v ? v.verify_result : null,
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
      embedding_check_performed: false,
      embedding_similarity_score: null,
      embedding_override_applied: false,
      embedding_model_used: null,
      abstention_check_performed: false,
      abstention_detected: null,
      abstention_override_applied: false,
      abstention_reasoning: null,
      sufficiency_check_performed: false,
      sufficiency_detected: null,
      sufficiency_override_applied: false,
      sufficiency_reasoning: null,
      recursion_limit_reached: false,
      usage_metadata: usageMetadata(state.usage),
    },
    evaluation_input: state.answer?.raw_llm_response ?? null,
    used_full_trace: false,
    trace_extraction_error: null,
  };
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
