/**
 * Dry-run estimate of a run's model calls and tokens, per stage and per model, without calling
 * anything (pure). It builds the very prompts the stages send, with a stand-in answer, and
 * counts tokens as ~4 characters each (message text only; a provider's schema overhead is not
 * counted).
 *
 * Assumptions (stated in the response as `assumptions`):
 * - Model answers are `assumed_answer_tokens` long (manual answers: their real text).
 * - The expected path: no abstention found, the response is sufficient, so parsing runs; deep
 *   judgment's excerpts pass validation first time (no excerpt retries); the embedding check,
 *   which runs only after a failed field verification, makes no call. `calls_max` counts every
 *   conditional call (excerpt retries, embedding + equivalence judge) instead.
 * - Agents (an MCP answering model, agentic parsing's investigation) are loops whose length the
 *   dry run cannot know: the expected path is one model turn that answers without a tool;
 *   `calls_max` counts the loop's limit (the answering model's `model_call_limit`,
 *   `agentic_parsing_max_turns`). Tool schemas sent with those turns are not counted.
 * - Dynamic agentic parsing's expected path is a sufficient decision (the investigation and its
 *   extraction count in `calls_max` only).
 * - Only calls that return a completion are counted: a 429 or 5xx that produced no tokens is not
 *   a billed call, and neither is a redelivery's repeat of work.
 */
import { judgeVisibleFields, buildJudgeSchema } from "../templates";
import type { Message } from "../llm/port";
import type { Question } from "../schemas/benchmark";
import type { ModelConfig } from "../schemas/model-config";
import { formatExcerpts } from "./deep-judgment/excerpts";
import { buildExcerptMessages, buildReasoningMessages, buildReasoningOnlyMessages } from "./deep-judgment/prompts";
import { resolveFewShotExamples } from "./few-shot";
import { buildGenerationMessages } from "./prompts/generation";
import { buildAbstentionMessages, buildSufficiencyMessages } from "./prompts/guards";
import { instructionsFor } from "../core-shared/instructions";
import { buildParsingMessages } from "./prompts/parsing";
import { buildDecisionMessages, buildExtractionMessages, buildInvestigationPrompt } from "./prompts/agentic-parsing";
import { agentLimits } from "./agent/answering-agent";
import type { AgenticParsingSettings } from "./artifacts";
import { formatTrace } from "./trace";
import type { PipelineSettings, UsageStage } from "./types";
import { estimateRubricCalls } from "../rubric/estimate";
import { mergeRubrics } from "../rubric/merge";

export const ASSUMED_ANSWER_TOKENS = 150;
/** Output of a structured judge call, per judge-visible field (a short value plus JSON syntax). */
const TOKENS_PER_FIELD = 8;
/** A sentence of reasoning (abstention/sufficiency reasoning, per-attribute deep-judgment reasoning). */
const REASONING_TOKENS = 40;
/** One excerpt with its confidence, in the excerpt call's JSON output. */
const EXCERPT_TOKENS = 40;

export interface StageEstimate {
  calls: number;
  calls_max: number;
  input_tokens: number;
  output_tokens: number;
}

/** Estimates keyed by `<role>|<model id>|<stage>`; role is "answering" or "judging". */
export type CallEstimate = Map<string, StageEstimate & { role: "answering" | "judging"; model: ModelConfig; stage: UsageStage }>;

export interface EstimateInput {
  questions: readonly Question[];
  answering_models: readonly ModelConfig[];
  parsing_models: readonly ModelConfig[];
  replicate_count: number;
  settings: PipelineSettings;
  assumed_answer_tokens?: number;
}

export const tokensOf = (text: string): number => Math.max(1, Math.ceil(text.length / 4));
const messageTokens = (messages: readonly Message[]): number => tokensOf(messages.map((m) => m.content).join("\n"));

export function estimateCalls(input: EstimateInput): CallEstimate {
  const out: CallEstimate = new Map();
  const answerTokens = input.assumed_answer_tokens ?? ASSUMED_ANSWER_TOKENS;
  const add = (
    role: "answering" | "judging",
    model: ModelConfig,
    stage: UsageStage,
    e: Partial<StageEstimate> & { input_tokens: number; output_tokens: number },
    times: number,
  ) => {
    const key = `${role}|${model.id}|${stage}`;
    const cur = out.get(key) ?? { role, model, stage, calls: 0, calls_max: 0, input_tokens: 0, output_tokens: 0 };
    const calls = e.calls ?? 1;
    cur.calls += calls * times;
    cur.calls_max += (e.calls_max ?? calls) * times;
    cur.input_tokens += e.input_tokens * times;
    cur.output_tokens += e.output_tokens * times;
    out.set(key, cur);
  };
  for (const q of input.questions) {
    for (const answering of input.answering_models) {
      const answer = answerFor(q, answering, input.settings, answerTokens);
      if (answer.call) add("answering", answering, "answer_generation", answer.call, input.replicate_count);
      for (const parsing of input.parsing_models) {
        for (const [stage, e] of judgeCalls(q, parsing, input.settings, answer.text))
          add("judging", parsing, stage, e, input.replicate_count);
      }
    }
  }
  return out;
}

function answerFor(q: Question, model: ModelConfig, settings: PipelineSettings, answerTokens: number) {
  if (model.interface === "manual") {
    const given = model.manual_answers?.[q.id] ?? "";
    return { text: typeof given === "string" ? given : formatTrace(given), call: null };
  }
  const messages = buildGenerationMessages(q.question, model.system_prompt, {
    examples: resolveFewShotExamples(settings.few_shot_config, q.id, q.few_shot_examples),
    instructions: instructionsFor(settings.prompt_config, "generation"),
  });
  // An MCP agent may take up to its model-call limit (Karenina's recursion limit) turns.
  const calls_max = model.mcp_urls_dict ? agentLimits(model).max_model_calls : 1;
  return {
    text: "x".repeat(answerTokens * 4),
    call: { calls: 1, calls_max, input_tokens: messageTokens(messages), output_tokens: answerTokens },
  };
}

type Est = Partial<StageEstimate> & { input_tokens: number; output_tokens: number };

/** Stage 11's calls (src/rubric/estimate.ts) in the rubric modes; none for a question without traits. */
function rubricCalls(q: Question, parsing: ModelConfig, s: PipelineSettings, response: string): [UsageStage, Est][] {
  if (s.evaluation_mode === "template_only") return [];
  let merged: ReturnType<typeof mergeRubrics>;
  try {
    merged = mergeRubrics(s.global_rubric ?? null, q.rubric ?? null);
  } catch {
    return [];
  }
  const ctx = {
    question: q.question,
    response,
    reference: q.raw_answer ?? null,
    strategy: s.rubric_evaluation_strategy ?? "batch",
    trait_names: s.rubric_trait_names ?? null,
    parsing,
  };
  const est = estimateRubricCalls(merged, ctx, messageTokens);
  const out: [UsageStage, Est][] = [];
  if (est.dynamic_rubric_presence_check) out.push(["dynamic_rubric_presence_check", est.dynamic_rubric_presence_check]);
  if (est.rubric_evaluation.calls_max > 0) out.push(["rubric_evaluation", est.rubric_evaluation]);
  return out;
}

function judgeCalls(q: Question, parsing: ModelConfig, s: PipelineSettings, response: string): [UsageStage, Est][] {
  const calls: [UsageStage, Est][] = [];
  const pc = s.prompt_config;
  const templateMode = s.evaluation_mode !== "rubric_only";
  if (s.abstention_enabled) {
    calls.push([
      "abstention_check",
      {
        input_tokens: messageTokens(buildAbstentionMessages(q.question, response, instructionsFor(pc, "abstention_detection"))),
        output_tokens: REASONING_TOKENS,
      },
    ]);
  }
  calls.push(...rubricCalls(q, parsing, s, response));
  const template = q.template;
  if (!templateMode || !template) return calls;
  const fields = judgeVisibleFields(template);
  const { jsonSchema } = buildJudgeSchema(template);
  if (s.sufficiency_enabled) {
    const msgs = buildSufficiencyMessages(
      q.question,
      response,
      { ...jsonSchema, required: fields.map((f) => f.name) },
      instructionsFor(pc, "sufficiency_detection"),
    );
    calls.push(["sufficiency_check", { input_tokens: messageTokens(msgs), output_tokens: REASONING_TOKENS }]);
  }
  if (fields.length === 0) return calls;
  const attrs = fields.map((f) => ({ name: f.name, description: f.description }));
  const hints = s.include_extraction_hints
    ? Object.fromEntries(fields.filter((f) => f.extraction_hint).map((f) => [f.name, f.extraction_hint!]))
    : {};
  const parseOut = fields.length * TOKENS_PER_FIELD;
  // Stage 7b replaces the plain parse, deep judgment's included (parse-template.ts).
  if (s.agentic_parsing) {
    calls.push(...agenticParseCalls(q.question, response, jsonSchema, parseOut, s.agentic_parsing, instructionsFor(pc, "agentic_parsing")));
    return [...calls, ...embeddingCalls(s)];
  }
  const dj = s.deep_judgment;
  let reasoning: Record<string, string> | undefined;
  if (dj && dj.mode !== "disabled") {
    const extra = instructionsFor(pc, "deep_judgment");
    let reasoningMsgs: Message[];
    if (dj.mode === "full") {
      const excerptMsgs = buildExcerptMessages(q.question, response, attrs, dj.max_excerpts_per_attribute, extra);
      calls.push([
        "deep_judgment_excerpts",
        {
          calls: 1,
          calls_max: 1 + dj.excerpt_retry_attempts,
          input_tokens: messageTokens(excerptMsgs),
          output_tokens: attrs.length * EXCERPT_TOKENS,
        },
      ]);
      const sample = "y".repeat(EXCERPT_TOKENS * 4);
      const excerpts = Object.fromEntries(attrs.map((a) => [a.name, [{ text: sample, confidence: "high" as const, similarity_score: 1 }]]));
      if (dj.search_enabled) {
        calls.push([
          "deep_judgment_hallucination",
          { input_tokens: tokensOf(formatExcerpts(excerpts)) + attrs.length * 500, output_tokens: attrs.length * REASONING_TOKENS },
        ]);
      }
      reasoningMsgs = buildReasoningMessages(q.question, formatExcerpts(excerpts), attrs, extra);
    } else {
      reasoningMsgs = buildReasoningOnlyMessages(q.question, response, attrs, extra);
    }
    calls.push(["deep_judgment_reasoning", { input_tokens: messageTokens(reasoningMsgs), output_tokens: attrs.length * REASONING_TOKENS }]);
    reasoning = Object.fromEntries(attrs.map((a) => [a.name, "z".repeat(REASONING_TOKENS * 4)]));
  }
  const parseMsgs = buildParsingMessages({
    question: q.question,
    response,
    jsonSchema,
    extractionHints: hints,
    systemPrompt: parsing.system_prompt,
    instructions: instructionsFor(pc, "parsing"),
    reasoning,
  });
  calls.push(["parsing", { input_tokens: messageTokens(parseMsgs), output_tokens: parseOut }]);
  return [...calls, ...embeddingCalls(s)];
}

/**
 * Runs only after a failed field verification: its two calls (embed, equivalence judge) count in
 * calls_max only, and their tokens (a few dozen) are left out of the expected path.
 */
const embeddingCalls = (s: PipelineSettings): [UsageStage, Est][] =>
  s.embedding_check?.enabled ? [["embedding_check", { calls: 0, calls_max: 2, input_tokens: 0, output_tokens: 0 }]] : [];

/**
 * Stage 7b (agentic-parse.ts): trigger "always" runs the investigation (1 to max_turns turns) and
 * one extraction; "dynamic" first makes one decision call and, on the expected sufficient path,
 * stops there: the investigation and extraction count in calls_max only.
 */
function agenticParseCalls(
  question: string,
  response: string,
  jsonSchema: Record<string, unknown>,
  parseOut: number,
  cfg: AgenticParsingSettings,
  instructions: string | undefined,
): [UsageStage, Est][] {
  const calls: [UsageStage, Est][] = [];
  const reportOut = REASONING_TOKENS + parseOut;
  if (cfg.trigger === "dynamic") {
    const msgs = buildDecisionMessages({ question, response, jsonSchema, instructions });
    calls.push(["dynamic_parsing_decision", { input_tokens: messageTokens(msgs), output_tokens: reportOut }]);
  }
  const runs = cfg.trigger === "dynamic" ? 0 : 1;
  const trace =
    cfg.judge_context === "workspace_only"
      ? null
      : cfg.materialize_trace
        ? { file: ".karenina/traces/agentic_parse_x.txt" }
        : { inline: response };
  const inv = buildInvestigationPrompt({ question, jsonSchema, trace, instructions });
  const extraction = buildExtractionMessages({ question, report: "r".repeat(reportOut * 4), jsonSchema, instructions });
  calls.push([
    "agentic_parsing_investigation",
    { calls: runs, calls_max: cfg.max_turns, input_tokens: runs * tokensOf(`${inv.system}\n${inv.user}`), output_tokens: runs * reportOut },
  ]);
  calls.push([
    "agentic_parsing_extraction",
    { calls: runs, calls_max: 1, input_tokens: runs * messageTokens(extraction), output_tokens: runs * parseOut },
  ]);
  return calls;
}
