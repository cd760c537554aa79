/**
 * Stage 11 — RubricEvaluation. Independent of template verification: it reads the answer (full
 * trace by default, `use_full_trace_for_rubric`) and scores the merged rubric (global + question,
 * plus dynamic traits the presence check promotes). Included in template_and_rubric and
 * rubric_only; skipped per question when the merged rubric has no trait, when there is no
 * answer, or when trace validation failed and only the final AI message was asked for.
 * Non-fatal, as in Karenina: if evaluation fails the rubric section is absent and a warning says why.
 */
import { instructionsFor } from "../../core-shared/instructions";
import { mergeRubrics, traitCount } from "../../rubric/merge";
import { evaluateRubric } from "../../rubric/evaluate";
import { checkFailed } from "../overrides";
import { prepareEvaluationInput } from "../trace";
import type { PipelineInput, Stage } from "../types";

function merged(input: PipelineInput) {
  return mergeRubrics(input.settings.global_rubric ?? null, input.question.rubric ?? null);
}

/** Whether this question has anything to evaluate (a merge error is reported by run()). */
export function hasRubric(input: PipelineInput): boolean {
  try {
    const m = merged(input);
    return traitCount(m.rubric) + traitCount(m.dynamic) > 0;
  } catch {
    return true;
  }
}

export const rubricEvaluation: Stage = {
  name: "rubric_evaluation",
  // Karenina's stages skip once the context has an error (BaseVerificationStage.should_run,
  // verification/stages/core/base.py:658, which rubric_evaluation.py:100 calls first): a template
  // parse error stops the rubric too.
  shouldRun: (state, input) =>
    !state.error &&
    state.answer !== undefined &&
    !(state.autofail?.category === "trace_validation" && input.settings.use_full_trace_for_rubric === false) &&
    hasRubric(input),
  async run(state, input, ports) {
    const answer = state.answer!;
    const full = input.settings.use_full_trace_for_rubric ?? true;
    const evaluation = prepareEvaluationInput(answer.raw_llm_response, answer.is_trace ? answer.trace_messages : null, full);
    try {
      const out = await evaluateRubric(
        {
          merged: merged(input),
          question_id: input.question.id,
          question: input.question.question,
          response: evaluation.text,
          reference: input.question.raw_answer ?? null,
          strategy: input.settings.rubric_evaluation_strategy ?? "batch",
          trait_names: input.settings.rubric_trait_names ?? null,
          ...(instructionsFor(input.settings.prompt_config, "rubric_evaluation")
            ? { instructions: instructionsFor(input.settings.prompt_config, "rubric_evaluation")! }
            : {}),
          parsing: input.parsing,
          ...(input.settings.deep_judgment_rubric ? { deep_judgment: input.settings.deep_judgment_rubric } : {}),
        },
        {
          judge: ports.judge,
          ...(ports.callableTraits ? { callable: ports.callableTraits } : {}),
          ...(ports.judgeModels ? { judgeModels: ports.judgeModels } : {}),
          ...(ports.search ? { search: ports.search } : {}),
        },
      );
      for (const w of out.warnings) ports.log?.warn("rubric_trait_failed", { message: w });
      const transient = state.transient_error ?? out.transient;
      return {
        ...(out.warnings.length ? { warnings: [...(state.warnings ?? []), ...out.warnings] } : {}),
        ...(transient ? { transient_error: transient } : {}),
        rubric: out.section,
        ...(out.deep_judgment_rubric ? { deep_judgment_rubric: out.deep_judgment_rubric } : {}),
        usage: { ...state.usage, ...out.usage },
      };
    } catch (err) {
      return checkFailed(
        ports,
        state,
        "rubric_evaluation_failed",
        `rubric evaluation failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  },
};
