/**
 * Dry-run estimate of stage 11's judge calls for one answer (pure; called by
 * src/pipeline/estimate.ts). It builds the prompts the evaluators send and counts their tokens
 * with the caller's counter. Expected path: every call succeeds first time; dynamic traits are
 * one presence call, and evaluating them (unknown until the check) counts in `calls_max` only.
 * Deep-judged traits are counted as standard ones (their extra calls are the deep-judgment
 * estimate's business); agentic traits belong to stage 11b.
 */
import type { Message } from "../llm/port";
import { buildGraph, estimateCalls as judgeGraphCalls } from "../judges";
import type { ModelConfig } from "../schemas/model-config";
import type { LLMRubricTrait } from "../schemas/rubric";
import { BATCH_SCORES_SCHEMA } from "./llm-traits";
import { filterTraits, type MergedRubric, namesOf, type TraitLists } from "./merge";
import {
  batchScoresMessages,
  literalMessages,
  metricMessages,
  presenceMessages,
  type PromptContext,
  singleTraitMessages,
  templateTraitMessages,
} from "./prompts";

export interface EstimateContext {
  question: string;
  response: string;
  reference: string | null;
  strategy: "batch" | "sequential";
  trait_names: readonly string[] | null;
  /** The run's parsing model: compound traits without a provider use it. */
  parsing: ModelConfig;
}

export interface RubricCallEstimate {
  calls: number;
  calls_max: number;
  input_tokens: number;
  output_tokens: number;
}

/** A short JSON value per trait in the judge's reply. */
const TOKENS_PER_TRAIT = 8;
const TOKENS_PER_METRIC_TRAIT = 60;

export function estimateRubricCalls(
  merged: MergedRubric,
  ctx: EstimateContext,
  count: (messages: readonly Message[]) => number,
): { rubric_evaluation: RubricCallEstimate; dynamic_rubric_presence_check: RubricCallEstimate | null } {
  const fixed = callsFor(filterTraits(merged.rubric, ctx.trait_names), ctx, count);
  if (!merged.dynamic) return { rubric_evaluation: fixed, dynamic_rubric_presence_check: null };
  const dynamic = filterTraits(merged.dynamic, ctx.trait_names);
  const concepts = namesOf(dynamic).map((name) => ({ name, text: name }));
  if (!concepts.length) return { rubric_evaluation: fixed, dynamic_rubric_presence_check: null };
  const extra = callsFor(dynamic, ctx, count);
  return {
    rubric_evaluation: { ...fixed, calls_max: fixed.calls_max + extra.calls },
    dynamic_rubric_presence_check: {
      calls: 1,
      calls_max: 1,
      input_tokens: count(presenceMessages(concepts, ctx.response)),
      output_tokens: concepts.length * TOKENS_PER_TRAIT,
    },
  };
}

function callsFor(r: TraitLists, c: EstimateContext, count: (m: readonly Message[]) => number): RubricCallEstimate {
  const out: RubricCallEstimate = { calls: 0, calls_max: 0, input_tokens: 0, output_tokens: 0 };
  const add = (messages: Message[], traits: number, perTrait = TOKENS_PER_TRAIT) => {
    out.calls++;
    out.calls_max++;
    out.input_tokens += count(messages);
    out.output_tokens += traits * perTrait;
  };
  const base: PromptContext = { question: c.question, answer: c.response };
  const ctxFor = (t: LLMRubricTrait) => (t.include_ground_truth && c.reference ? { ...base, reference: c.reference } : base);
  const scalar = r.llm_traits.filter((t) => t.kind === "boolean" || t.kind === "score");
  const literal = r.llm_traits.filter((t) => t.kind === "literal");
  if (c.strategy === "batch") {
    for (const withRef of [false, true]) {
      const s = scalar.filter((t) => (t.include_ground_truth === true && !!c.reference) === withRef);
      const l = literal.filter((t) => (t.include_ground_truth === true && !!c.reference) === withRef);
      const ctx = withRef ? { ...base, reference: c.reference! } : base;
      if (s.length) add(batchScoresMessages(s, ctx, BATCH_SCORES_SCHEMA), s.length);
      if (l.length) add(literalMessages(l, ctx, {}, false), l.length);
    }
  } else {
    for (const t of scalar) add(singleTraitMessages(t, ctxFor(t), {}), 1);
    for (const t of literal) add(literalMessages([t], ctxFor(t), {}, true), 1);
  }
  for (const t of r.llm_traits.filter((t) => typeof t.kind === "object")) {
    const schema = (t.kind as { schema: Record<string, unknown> }).schema;
    add(templateTraitMessages(t, ctxFor(t), schema), Object.keys((schema.properties as object | undefined) ?? {}).length);
  }
  for (const t of r.metric_traits) add(metricMessages(t, base), 1, TOKENS_PER_METRIC_TRAIT);
  for (const t of r.compound_traits) {
    const built = buildGraph(t.config.provider ? t.config : { ...t.config, provider: c.parsing });
    const n = "graph" in built ? judgeGraphCalls(built.graph) : 1;
    const prompt: Message[] = [{ role: "user", content: `${c.question}\n${c.response}` }];
    for (let i = 0; i < n; i++) add(prompt, 1, TOKENS_PER_METRIC_TRAIT);
  }
  return out;
}
