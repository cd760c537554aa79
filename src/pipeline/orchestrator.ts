/**
 * The verification pipeline: ONE ordered stage list, filtered by the evaluation-mode matrix and
 * the run's switches (data, below), run with early skip on error; FinalizeResult always runs last.
 *
 * Karenina numbering:
 *   1 ValidateTemplate · 2 GenerateAnswer · 3 RecursionLimitAutoFail · 4 TraceValidationAutoFail ·
 *   5 AbstentionCheck · 6 SufficiencyCheck · 7 ParseTemplate · 8 VerifyTemplate ·
 *   9 EmbeddingCheck · 10 DeepJudgmentAutoFail · 11 RubricEvaluation · 12 DeepJudgmentRubricAutoFail ·
 *   11b AgenticRubricEvaluation (after 12, as Karenina orders it) · 13 FinalizeResult
 * Each stage's own `shouldRun` carries the runtime skip cascade (abstention → no parse, …).
 * A stage that throws is contained: its error becomes `unexpected_error` and later stages skip.
 */
import { isRetryable } from "../llm/port";
import { finalizeResult } from "./finalize-result";
import { recursionLimitAutoFail, traceValidationAutoFail } from "./stages/autofail-guards";
import { rubricEvaluation } from "./stages/rubric-evaluation";
import { deepJudgmentAutoFail } from "./stages/deep-judgment-autofail";
import { deepJudgmentRubricAutoFail } from "./stages/deep-judgment-rubric-autofail";
import { agenticRubricEvaluation } from "./stages/agentic-rubric-evaluation";
import { embeddingCheck } from "./stages/embedding-check";
import { generateAnswer } from "./stages/generate-answer";
import { abstentionCheck, sufficiencyCheck } from "./stages/guard-checks";
import { parseTemplate } from "./stages/parse-template";
import { validateTemplate } from "./stages/validate-template";
import { verifyTemplate } from "./stages/verify-template";
import { truncate } from "./llm-failure";
import type {
  EvaluationMode,
  PipelineInput,
  PipelineOutcome,
  PipelinePorts,
  PipelineSettings,
  PipelineState,
  Stage,
  StageName,
} from "./types";

const TEMPLATE_MODES: readonly EvaluationMode[] = ["template_only", "template_and_rubric"];
const ALL_MODES: readonly EvaluationMode[] = ["template_only", "template_and_rubric", "rubric_only"];
const RUBRIC_MODES: readonly EvaluationMode[] = ["template_and_rubric", "rubric_only"];

interface StageEntry {
  stage: Stage;
  modes: readonly EvaluationMode[];
  /** Included only when the run switches it on (Karenina builds its list from the config). */
  when?: (s: PipelineSettings) => boolean;
}

/** The stage list, the mode matrix and the config switches, in one place. */
export const STAGES: readonly StageEntry[] = [
  { stage: validateTemplate, modes: TEMPLATE_MODES },
  { stage: generateAnswer, modes: ALL_MODES },
  { stage: recursionLimitAutoFail, modes: ALL_MODES },
  { stage: traceValidationAutoFail, modes: ALL_MODES },
  { stage: abstentionCheck, modes: ALL_MODES, when: (s) => s.abstention_enabled === true },
  { stage: sufficiencyCheck, modes: TEMPLATE_MODES, when: (s) => s.sufficiency_enabled === true },
  { stage: parseTemplate, modes: TEMPLATE_MODES },
  { stage: verifyTemplate, modes: TEMPLATE_MODES },
  { stage: embeddingCheck, modes: TEMPLATE_MODES },
  { stage: deepJudgmentAutoFail, modes: TEMPLATE_MODES, when: (s) => (s.deep_judgment?.mode ?? "disabled") !== "disabled" },
  // 11 RubricEvaluation: the question may still have no trait (its shouldRun checks the merged rubric).
  { stage: rubricEvaluation, modes: RUBRIC_MODES },
  { stage: deepJudgmentRubricAutoFail, modes: RUBRIC_MODES, when: (s) => (s.deep_judgment_rubric?.mode ?? "disabled") !== "disabled" },
  // 11b AgenticRubricEvaluation: after 12 as in Karenina (disjoint traits); its shouldRun checks for agentic traits.
  { stage: agenticRubricEvaluation, modes: RUBRIC_MODES },
];

export function stagesFor(settings: PipelineSettings): Stage[] {
  return STAGES.filter((s) => s.modes.includes(settings.evaluation_mode) && (s.when?.(settings) ?? true)).map((s) => s.stage);
}

export async function runPipeline(input: PipelineInput, ports: PipelinePorts): Promise<PipelineOutcome> {
  let state: PipelineState = {
    started_at_ms: ports.clock.now(),
    parse_performed: false,
    usage: {},
    stages_run: [],
  };
  for (const stage of stagesFor(input.settings)) {
    if (!stage.shouldRun(state, input)) continue;
    const patch = await runContained(stage, state, input, ports);
    state = { ...state, ...patch, stages_run: [...state.stages_run, stage.name] };
  }
  const result = await finalizeResult(state, input, ports);
  const llm = state.error?.llm ?? state.transient_error;
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
