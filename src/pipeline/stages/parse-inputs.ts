/** What every parsing call (plain or deep judgment) is given besides the schema. */
import { judgeVisibleFields } from "../../templates";
import type { PipelineInput, PipelineState } from "../types";

export function evaluationText(state: PipelineState): string {
  return state.evaluation?.text ?? state.answer!.raw_llm_response;
}

export function extractionHints(input: PipelineInput): Record<string, string> {
  const hints: Record<string, string> = {};
  if (!input.settings.include_extraction_hints) return hints;
  for (const f of judgeVisibleFields(input.question.template!)) if (f.extraction_hint) hints[f.name] = f.extraction_hint;
  return hints;
}
