/**
 * Deep judgment for templates, run inside ParseTemplate (Karenina's evaluators/template/
 * deep_judgment.py):
 *   full:           excerpts (validated, retried) → [search + hallucination risk, if enabled] →
 *                   reasoning from the excerpts → final parse
 *   reasoning_only: reasoning straight from the response → final parse
 * The final parse is the ordinary parsing call with the reasoning added as evidence. A judge
 * call that fails fails parsing (the judge failed, not the answer); the deep_judgment section
 * still says how far it got.
 */
import { z } from "zod";
import type { Message } from "../../llm/port";
import { buildJudgeSchema, judgeVisibleFields } from "../../templates";
import type { DeepJudgmentArtifact, DeepJudgmentSettings } from "../artifacts";
import { stageErrorFromLlm } from "../llm-failure";
import { instructionsFor } from "../prompts/instructions";
import { buildParsingMessages } from "../prompts/parsing";
import { evaluationText, extractionHints } from "../stages/parse-inputs";
import type { PipelineInput, PipelinePorts, PipelineState, StagePatch } from "../types";
import { extractExcerpts, formatExcerpts } from "./excerpts";
import { assessHallucination } from "./hallucination";
import { warn } from "../overrides";
import type { Attribute } from "./prompts";
import { buildReasoningMessages, buildReasoningOnlyMessages } from "./prompts";

export async function parseWithDeepJudgment(
  state: PipelineState,
  input: PipelineInput,
  ports: PipelinePorts,
  settings: DeepJudgmentSettings,
): Promise<StagePatch> {
  const template = input.question.template!;
  const attributes: Attribute[] = judgeVisibleFields(template).map((f) => ({ name: f.name, description: f.description }));
  const response = evaluationText(state);
  const question = input.question.question;
  const extra = instructionsFor(input.settings.prompt_config, "deep_judgment");
  const dj: DeepJudgmentArtifact = {
    deep_judgment_enabled: true,
    deep_judgment_mode: settings.mode,
    deep_judgment_performed: false,
    extracted_excerpts: null,
    attribute_reasoning: null,
    deep_judgment_stages_completed: [],
    deep_judgment_model_calls: 0,
    deep_judgment_excerpt_retry_count: 0,
    attributes_without_excerpts: null,
    deep_judgment_search_enabled: settings.search_enabled,
    hallucination_risk_assessment: null,
  };
  const usage = { ...state.usage };
  let warnings = state.warnings;
  const failed = (error: Parameters<typeof stageErrorFromLlm>[1], what: string): StagePatch => ({
    deep_judgment: dj,
    usage,
    error: stageErrorFromLlm("parse_template", error, `deep judgment: ${what}`),
  });

  let reasoningMessages: Message[];
  if (settings.mode === "full") {
    const ex = await extractExcerpts(ports.judge, {
      question,
      response,
      attributes,
      instructions: extra,
      max: settings.max_excerpts_per_attribute,
      threshold: settings.fuzzy_match_threshold,
      retries: settings.excerpt_retry_attempts,
    });
    dj.deep_judgment_model_calls += ex.calls;
    if (ex.usage) usage.deep_judgment_excerpts = ex.usage;
    if (!ex.ok) return failed(ex.error, "excerpt extraction failed");
    dj.extracted_excerpts = ex.excerpts;
    dj.attributes_without_excerpts = ex.missing;
    dj.deep_judgment_excerpt_retry_count = ex.retries;
    dj.deep_judgment_stages_completed!.push("excerpts");
    if (ex.missing.length) ports.log?.warn("deep_judgment_missing_excerpts", { question_id: input.question.id, attributes: ex.missing, retries: ex.retries });
    if (settings.search_enabled) {
      if (!ports.search) {
        warnings = warn(ports, warnings, "deep_judgment_search_unavailable", "deep judgment search is enabled but no search port is configured; hallucination risk not assessed");
      } else {
        const h = await assessHallucination(ports.judge, ports.search, question, ex.excerpts, extra);
        dj.deep_judgment_model_calls++;
        for (const w of h.warnings) warnings = warn(ports, warnings, "deep_judgment_search_failed", w);
        if (!h.ok) return { ...failed(h.error, "hallucination assessment failed"), warnings };
        usage.deep_judgment_hallucination = h.usage;
        dj.extracted_excerpts = h.excerpts;
        dj.hallucination_risk_assessment = h.risk;
        dj.deep_judgment_stages_completed!.push("hallucination");
      }
    }
    reasoningMessages = buildReasoningMessages(question, formatExcerpts(dj.extracted_excerpts!), attributes, extra);
  } else {
    reasoningMessages = buildReasoningOnlyMessages(question, response, attributes, extra);
  }

  const names = attributes.map((a) => a.name);
  const reasoning = await ports.judge.structured({
    messages: reasoningMessages,
    schemaName: "DeepJudgmentReasoning",
    jsonSchema: { type: "object", properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])), required: names },
    schema: z.object(Object.fromEntries(names.map((n) => [n, z.string().nullish()]))),
  });
  dj.deep_judgment_model_calls++;
  if (!reasoning.ok) return { ...failed(reasoning.error, "reasoning failed"), warnings };
  usage.deep_judgment_reasoning = reasoning.value.usage;
  dj.attribute_reasoning = Object.fromEntries(names.map((n) => [n, (reasoning.value.value[n] as string | null | undefined) ?? ""]));
  dj.deep_judgment_stages_completed!.push("reasoning");

  const { jsonSchema, schema } = buildJudgeSchema(template);
  const messages = buildParsingMessages({
    question,
    response,
    jsonSchema,
    extractionHints: extractionHints(input),
    systemPrompt: input.parsing.system_prompt,
    instructions: instructionsFor(input.settings.prompt_config, "parsing"),
    reasoning: dj.attribute_reasoning,
  });
  const parsed = await ports.judge.structured({ messages, schemaName: "Answer", jsonSchema, schema });
  dj.deep_judgment_model_calls++;
  if (!parsed.ok) return { ...failed(parsed.error, "final parse failed"), warnings };
  usage.parsing = parsed.value.usage;
  dj.deep_judgment_stages_completed!.push("parameters");
  dj.deep_judgment_performed = true;
  return { parsed: parsed.value.value as Record<string, unknown>, parse_performed: true, usage, deep_judgment: dj, warnings };
}
