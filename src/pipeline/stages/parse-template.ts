/**
 * Stage 7 — ParseTemplate. The judge fills the template's fields from the answer. It sees the
 * template's JSON schema with the ground truth hidden. Output that does not validate is a
 * `parsing` failure (the judge failed), never a verdict. A template with no judge-visible field
 * (regex-only) makes no call.
 */
import { buildJudgeSchema, judgeVisibleFields } from "../../templates";
import { buildParsingMessages } from "../prompts/parsing";
import { stageErrorFromLlm } from "../llm-failure";
import type { Stage } from "../types";

export const parseTemplate: Stage = {
  name: "parse_template",
  shouldRun: (state) => !state.error && state.answer !== undefined,
  async run(state, input, ports) {
    const template = input.question.template!;
    const visible = judgeVisibleFields(template);
    if (visible.length === 0) return { parsed: {}, parse_performed: false };

    const { jsonSchema, schema } = buildJudgeSchema(template);
    const hints: Record<string, string> = {};
    if (input.settings.include_extraction_hints) {
      for (const f of visible) if (f.extraction_hint) hints[f.name] = f.extraction_hint;
    }
    const messages = buildParsingMessages({
      question: input.question.question,
      response: state.answer!.raw_llm_response,
      jsonSchema,
      extractionHints: hints,
      systemPrompt: input.parsing.system_prompt,
    });
    const res = await ports.judge.structured({ messages, schemaName: "Answer", jsonSchema, schema });
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
