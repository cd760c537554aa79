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
import type { LlmError, Message } from "../../llm/port";
import { buildJudgeSchema, judgeVisibleFields } from "../../templates";
import type { DeepJudgmentArtifact, DeepJudgmentSettings } from "../artifacts";
import { stageErrorFromLlm } from "../llm-failure";
import { warn } from "../overrides";
import { instructionsFor } from "../../core-shared/instructions";
import { buildParsingMessages } from "../prompts/parsing";
import { evaluationText, extractionHints } from "../stages/parse-inputs";
import type { PipelineInput, PipelinePorts, PipelineState, StagePatch } from "../types";
import { extractExcerpts, formatExcerpts } from "./excerpts";
import { assessHallucination } from "../../core-shared/hallucination";
import { type Attribute, buildReasoningMessages, buildReasoningOnlyMessages } from "./prompts";

/** One deep-judgment run: what it has recorded so far, shared by its steps. */
interface Run {
  input: PipelineInput;
  ports: PipelinePorts;
  settings: DeepJudgmentSettings;
  attributes: Attribute[];
  question: string;
  response: string;
  extra: string | undefined;
  dj: DeepJudgmentArtifact;
  usage: PipelineState["usage"];
  warnings: string[] | undefined;
}

type Step = { ok: true } | { ok: false; error: LlmError; what: string };
const OK: Step = { ok: true };

export async function parseWithDeepJudgment(
  state: PipelineState,
  input: PipelineInput,
  ports: PipelinePorts,
  settings: DeepJudgmentSettings,
): Promise<StagePatch> {
  const run: Run = {
    input,
    ports,
    settings,
    attributes: judgeVisibleFields(input.question.template!).map((f) => ({ name: f.name, description: f.description })),
    question: input.question.question,
    response: evaluationText(state),
    extra: instructionsFor(input.settings.prompt_config, "deep_judgment"),
    dj: emptyArtifact(settings),
    usage: { ...state.usage },
    warnings: state.warnings,
  };
  let reasoningMessages: Message[];
  if (settings.mode === "full") {
    const step = await excerptsStep(run);
    if (!step.ok) return failure(run, step);
    reasoningMessages = buildReasoningMessages(run.question, formatExcerpts(run.dj.extracted_excerpts!), run.attributes, run.extra);
  } else {
    reasoningMessages = buildReasoningOnlyMessages(run.question, run.response, run.attributes, run.extra);
  }
  const reasoned = await reasoningStep(run, reasoningMessages);
  if (!reasoned.ok) return failure(run, reasoned);
  return finalParse(run);
}

function emptyArtifact(settings: DeepJudgmentSettings): DeepJudgmentArtifact {
  return {
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
}

function failure(run: Run, step: Extract<Step, { ok: false }>): StagePatch {
  return {
    deep_judgment: run.dj,
    usage: run.usage,
    warnings: run.warnings,
    error: stageErrorFromLlm("parse_template", step.error, `deep judgment: ${step.what}`),
  };
}

async function excerptsStep(run: Run): Promise<Step> {
  const { dj, settings, ports } = run;
  const ex = await extractExcerpts(ports.judge, {
    question: run.question,
    response: run.response,
    attributes: run.attributes,
    instructions: run.extra,
    max: settings.max_excerpts_per_attribute,
    threshold: settings.fuzzy_match_threshold,
    retries: settings.excerpt_retry_attempts,
  });
  dj.deep_judgment_model_calls += ex.calls;
  if (ex.usage) run.usage.deep_judgment_excerpts = ex.usage;
  if (!ex.ok) return { ok: false, error: ex.error, what: "excerpt extraction failed" };
  dj.extracted_excerpts = ex.excerpts;
  dj.attributes_without_excerpts = ex.missing;
  dj.deep_judgment_excerpt_retry_count = ex.retries;
  dj.deep_judgment_stages_completed!.push("excerpts");
  if (ex.missing.length)
    ports.log?.warn("deep_judgment_missing_excerpts", { question_id: run.input.question.id, attributes: ex.missing, retries: ex.retries });
  return settings.search_enabled ? searchStep(run) : OK;
}

async function searchStep(run: Run): Promise<Step> {
  const { dj, ports } = run;
  if (!ports.search) {
    run.warnings = warn(
      ports,
      run.warnings,
      "deep_judgment_search_unavailable",
      "deep judgment search is enabled but no search port is configured; hallucination risk not assessed",
    );
    return OK;
  }
  const h = await assessHallucination(ports.judge, ports.search, run.question, dj.extracted_excerpts!, run.extra);
  dj.deep_judgment_model_calls++;
  for (const w of h.warnings) run.warnings = warn(ports, run.warnings, "deep_judgment_search_failed", w);
  if (!h.ok) return { ok: false, error: h.error, what: "hallucination assessment failed" };
  run.usage.deep_judgment_hallucination = h.usage;
  dj.extracted_excerpts = h.excerpts;
  dj.hallucination_risk_assessment = h.risk;
  dj.deep_judgment_stages_completed!.push("hallucination");
  return OK;
}

async function reasoningStep(run: Run, messages: Message[]): Promise<Step> {
  const names = run.attributes.map((a) => a.name);
  const res = await run.ports.judge.structured({
    messages,
    call_site: "deep_judgment/reasoning",
    schemaName: "DeepJudgmentReasoning",
    jsonSchema: { type: "object", properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])), required: names },
    schema: z.object(Object.fromEntries(names.map((n) => [n, z.string().nullish()]))),
  });
  run.dj.deep_judgment_model_calls++;
  if (!res.ok) return { ok: false, error: res.error, what: "reasoning failed" };
  run.usage.deep_judgment_reasoning = res.value.usage;
  run.dj.attribute_reasoning = Object.fromEntries(names.map((n) => [n, (res.value.value[n] as string | null | undefined) ?? ""]));
  run.dj.deep_judgment_stages_completed!.push("reasoning");
  return OK;
}

async function finalParse(run: Run): Promise<StagePatch> {
  const { jsonSchema, schema } = buildJudgeSchema(run.input.question.template!);
  const messages = buildParsingMessages({
    question: run.question,
    response: run.response,
    jsonSchema,
    extractionHints: extractionHints(run.input),
    systemPrompt: run.input.parsing.system_prompt,
    instructions: instructionsFor(run.input.settings.prompt_config, "parsing"),
    reasoning: run.dj.attribute_reasoning ?? undefined,
  });
  const parsed = await run.ports.judge.structured({ messages, schemaName: "Answer", jsonSchema, schema, call_site: "deep_judgment/parse" });
  run.dj.deep_judgment_model_calls++;
  if (!parsed.ok) return failure(run, { ok: false, error: parsed.error, what: "final parse failed" });
  run.usage.parsing = parsed.value.usage;
  run.dj.deep_judgment_stages_completed!.push("parameters");
  run.dj.deep_judgment_performed = true;
  return {
    parsed: parsed.value.value as Record<string, unknown>,
    parse_performed: true,
    usage: run.usage,
    deep_judgment: run.dj,
    warnings: run.warnings,
  };
}
