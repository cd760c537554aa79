/**
 * The verification pipeline: ONE ordered stage list, filtered by the evaluation-mode matrix
 * (data, below), run with early skip on error; FinalizeResult always runs last.
 *
 * Karenina numbering, with the places later issues fill:
 *   1 ValidateTemplate · 2 GenerateAnswer · [3 RecursionLimitAutoFail · 4 TraceValidationAutoFail ·
 *   5 AbstentionCheck · 6 SufficiencyCheck] · 7 ParseTemplate · 8 VerifyTemplate ·
 *   [9 EmbeddingCheck · 10 DeepJudgmentAutoFail · 11 RubricEvaluation · 12 DeepJudgmentRubricAutoFail ·
 *   11b AgenticRubricEvaluation] · 13 FinalizeResult
 * A stage that throws is contained: its error becomes `unexpected_error` and later stages skip.
 */
import { isRetryable } from "../llm/port";
import { finalizeResult } from "./finalize-result";
import { generateAnswer } from "./stages/generate-answer";
import { parseTemplate } from "./stages/parse-template";
import { validateTemplate } from "./stages/validate-template";
import { verifyTemplate } from "./stages/verify-template";
import { truncate } from "./llm-failure";
import type {
  EvaluationMode,
  PipelineInput,
  PipelineOutcome,
  PipelinePorts,
  PipelineState,
  Stage,
  StageName,
} from "./types";

const TEMPLATE_MODES: readonly EvaluationMode[] = ["template_only", "template_and_rubric"];
const ALL_MODES: readonly EvaluationMode[] = ["template_only", "template_and_rubric", "rubric_only"];

/** The stage list and the mode matrix, in one place. */
export const STAGES: readonly { stage: Stage; modes: readonly EvaluationMode[] }[] = [
  { stage: validateTemplate, modes: TEMPLATE_MODES },
  { stage: generateAnswer, modes: ALL_MODES },
  { stage: parseTemplate, modes: TEMPLATE_MODES },
  { stage: verifyTemplate, modes: TEMPLATE_MODES },
];

export function stagesFor(mode: EvaluationMode): Stage[] {
  return STAGES.filter((s) => s.modes.includes(mode)).map((s) => s.stage);
}

export async function runPipeline(input: PipelineInput, ports: PipelinePorts): Promise<PipelineOutcome> {
  let state: PipelineState = {
    started_at_ms: ports.clock.now(),
    parse_performed: false,
    usage: {},
    stages_run: [],
  };
  for (const stage of stagesFor(input.settings.evaluation_mode)) {
    if (!stage.shouldRun(state, input)) continue;
    const patch = await runContained(stage, state, input, ports);
    state = { ...state, ...patch, stages_run: [...state.stages_run, stage.name] };
  }
  const result = await finalizeResult(state, input, ports);
  const llm = state.error?.llm;
  return { result, retryable: llm && isRetryable(llm) ? llm : null };
}

async function runContained(stage: Stage, state: PipelineState, input: PipelineInput, ports: PipelinePorts) {
  try {
    return await stage.run(state, input, ports);
  } catch (err) {
    ports.log?.warn("stage_threw", { stage: stage.name, error: String(err) });
    const name: StageName = stage.name;
    return {
      error: { category: "unexpected_error" as const, stage: name, reason: truncate(`${name} threw: ${String(err)}`) },
    };
  }
}
