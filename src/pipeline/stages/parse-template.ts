/**
 * Stage 7 — ParseTemplate. The judge fills the template's fields from the evaluation input (the
 * final AI message, or the full trace). It sees the template's JSON schema with the ground truth
 * hidden. Output that does not validate is a `parsing` failure (the judge failed), never a
 * verdict. A template with no judge-visible field (regex-only) makes no call.
 *
 * With deep judgment on, the judge first quotes and reasons, then parses (deep-judgment/run.ts).
 * With agentic parsing on, stage 7b runs instead (agentic-parse.ts: decision, investigation, extraction).
 * Skipped after an autofail, an abstention or an insufficient response (the spec's cascade).
 */
import { buildJudgeSchema, judgeVisibleFields } from "../../templates";
import { buildParsingMessages } from "../prompts/parsing";
import { instructionsFor } from "../../core-shared/instructions";
import { parseWithDeepJudgment } from "../deep-judgment/run";
import { stageErrorFromLlm } from "../llm-failure";
import type { PipelineState, Stage } from "../types";
import { evaluationText, extractionHints } from "./parse-inputs";
import { agenticParse } from "./agentic-parse";

export function parsingBlocked(state: PipelineState): boolean {
  return !!state.autofail || !!state.abstention?.override_applied || !!state.sufficiency?.override_applied;
}

export const parseTemplate: Stage = {
  name: "parse_template",
  shouldRun: (state) => !state.error && state.answer !== undefined && !parsingBlocked(state),
  async run(state, input, ports) {
    const template = input.question.template!;
    const visible = judgeVisibleFields(template);
    if (visible.length === 0) return { parsed: {}, parse_performed: false };

    const agentic = input.settings.agentic_parsing;
    if (agentic) return agenticParse(state, input, ports, agentic);

    const dj = input.settings.deep_judgment;
    if (dj && dj.mode !== "disabled") return parseWithDeepJudgment(state, input, ports, dj);

    const { jsonSchema, schema } = buildJudgeSchema(template);
    const messages = buildParsingMessages({
      question: input.question.question,
      response: evaluationText(state),
      jsonSchema,
      extractionHints: extractionHints(input),
      systemPrompt: input.parsing.system_prompt,
      instructions: instructionsFor(input.settings.prompt_config, "parsing"),
    });
    const res = await ports.judge.structured({ messages, schemaName: "Answer", jsonSchema, schema, call_site: "parse_template" });
    if (!res.ok) {
      return { error: stageErrorFromLlm("parse_template", res.error, "judge could not fill the template") };
    }
    return {
      parsed: res.value.value as Record<string, unknown>,
      parse_performed: true,
      usage: { ...state.usage, parsing: res.value.usage },
    };
  },
};
