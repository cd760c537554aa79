/**
 * Rubric evaluation for one answer (stage 11's body, platform-free): dynamic traits resolved by
 * the presence check, the `rubric_trait_names` filter, then every kind evaluated; LLM traits with
 * deep judgment go to src/rubric/deep-judgment/ (the seam in README.md). Agentic traits belong to
 * stage 11b. Nothing here throws for a judge failure: the trait is null and a warning says why.
 */
import type { LlmError, ModelPort, Usage } from "../llm/port";
import type { JudgePorts } from "../judges/types";
import type { SearchPort } from "../core-shared/evidence";
import { addUsage } from "../core-shared/usage";
import type { ModelConfig } from "../schemas/model-config";
import {
  type DeepJudgmentRubricSection,
  type DeepJudgmentRubricSettings,
  evaluateDeepJudgmentTraits,
  partitionDeepJudgmentTraits,
  withStandardScores,
} from "./deep-judgment";
import { evaluateCallableTrait } from "./callable";
import { evaluateCompoundTrait } from "./compound";
import { resolveDynamic } from "./dynamic";
import { evaluateLlmTraits } from "./llm-traits";
import { filterTraits, type MergedRubric, namesOf, type TraitLists } from "./merge";
import { evaluateMetricTrait } from "./metric";
import { evaluateRegexTrait } from "./regex";
import type { CallableTraitPort, EvalLog, Provenance, RubricSection } from "./types";

export interface RubricEvalInput {
  merged: MergedRubric;
  question_id: string;
  question: string;
  /** What the judges read (full trace or final AI message, per use_full_trace_for_rubric). */
  response: string;
  /** The question's raw answer, for traits with include_ground_truth. */
  reference: string | null;
  strategy: "batch" | "sequential";
  trait_names: readonly string[] | null;
  instructions?: string;
  /** The run's parsing model: the default provider of compound traits. */
  parsing: ModelConfig;
  deep_judgment?: DeepJudgmentRubricSettings;
}

export interface RubricEvalPorts {
  judge: ModelPort;
  callable?: CallableTraitPort;
  /** Models for compound traits' units; without it every unit uses `judge`. */
  judgeModels?: JudgePorts;
  search?: SearchPort;
}

export interface RubricEvalOutcome {
  section: RubricSection;
  deep_judgment_rubric: DeepJudgmentRubricSection | null;
  usage: { rubric_evaluation?: Usage; dynamic_rubric_presence_check?: Usage };
  warnings: string[];
  transient?: LlmError;
}

export function emptySection(strategy: RubricSection["rubric_evaluation_strategy"]): RubricSection {
  return {
    rubric_evaluation_performed: false,
    rubric_evaluation_strategy: strategy,
    llm_trait_scores: null,
    llm_trait_labels: null,
    regex_trait_scores: null,
    callable_trait_scores: null,
    metric_trait_scores: null,
    metric_trait_confusion_lists: null,
    agentic_trait_scores: null,
    agentic_trait_investigation_traces: null,
    agentic_trait_extraction_metadata: null,
    compound_trait_scores: null,
    compound_trait_traces: null,
    dynamic_rubric_promoted_traits: null,
    dynamic_rubric_skipped_traits: null,
    trait_provenance: null,
  };
}

const orNull = <T extends object>(o: T): T | null => (Object.keys(o).length ? o : null);

function withPromoted(rubric: TraitLists, promoted: TraitLists): TraitLists {
  return Object.fromEntries(
    Object.entries(rubric).map(([k, list]) => [k, [...list, ...promoted[k as keyof TraitLists]]]),
  ) as unknown as TraitLists;
}

export async function evaluateRubric(input: RubricEvalInput, ports: RubricEvalPorts): Promise<RubricEvalOutcome> {
  const log: EvalLog & { transient?: LlmError; presenceUsage?: Usage } = { usage: [], warnings: [] };
  const section = emptySection(input.strategy);
  const provenance: Record<string, Provenance> = { ...input.merged.provenance };
  let rubric = input.merged.rubric;
  if (input.merged.dynamic) {
    const dyn = await resolveDynamic(input.merged.dynamic, input.response, input.trait_names, ports.judge, log);
    rubric = withPromoted(rubric, dyn.promoted);
    for (const n of dyn.promoted_names) provenance[n] = "dynamic";
    section.dynamic_rubric_promoted_traits = dyn.promoted_names;
    section.dynamic_rubric_skipped_traits = dyn.skipped;
  }
  rubric = filterTraits(rubric, input.trait_names);
  const evaluated = new Set(namesOf(rubric));
  section.trait_provenance = orNull(Object.fromEntries(Object.entries(provenance).filter(([n]) => evaluated.has(n))));
  const context = { question: input.question, answer: input.response, ...(input.instructions ? { instructions: input.instructions } : {}) };

  // LLM traits: deep-judgment ones through src/rubric/deep-judgment, the rest the standard way.
  const { deep, standard } = partitionDeepJudgmentTraits(rubric.llm_traits, input.question_id, input.deep_judgment);
  const llm = await evaluateLlmTraits(standard, input.strategy, { judge: ports.judge, context, reference: input.reference, log });
  let dj: DeepJudgmentRubricSection | null = null;
  if (deep.length) {
    const out = await evaluateDeepJudgmentTraits(ports.judge, deep, {
      question: input.question,
      response: input.response,
      ...(input.instructions ? { instructions: input.instructions } : {}),
      ...(ports.search ? { search: ports.search } : {}),
    });
    dj = withStandardScores(out.section, llm.scores);
    Object.assign(llm.scores, out.scores);
    log.warnings.push(...out.warnings);
    if (out.usage) log.usage.push(out.usage);
    if (out.error && !log.transient) log.transient = out.error;
  }
  if (rubric.llm_traits.length) {
    section.llm_trait_scores = llm.scores;
    section.llm_trait_labels = orNull(llm.labels);
  }
  if (rubric.regex_traits.length) section.regex_trait_scores = regexScores(rubric, input.response, log);
  if (rubric.callable_traits.length) section.callable_trait_scores = await callableScores(rubric, input.response, ports, log);
  if (rubric.metric_traits.length) await metricScores(rubric, context, ports.judge, section, log);
  if (rubric.compound_traits.length) await compoundScores(rubric, input, ports, section, log);
  section.rubric_evaluation_performed = true;
  const total = log.usage.reduce<Usage | undefined>((a, u) => addUsage(a, u), undefined);
  return {
    section,
    deep_judgment_rubric: dj,
    usage: {
      ...(total ? { rubric_evaluation: total } : {}),
      ...(log.presenceUsage ? { dynamic_rubric_presence_check: log.presenceUsage } : {}),
    },
    warnings: log.warnings,
    ...(log.transient ? { transient: log.transient } : {}),
  };
}

function regexScores(rubric: TraitLists, text: string, log: EvalLog): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const t of rubric.regex_traits) {
    const r = evaluateRegexTrait(t, text);
    if (typeof r === "boolean") out[t.name] = r;
    else log.warnings.push(`regex trait ${t.name}: ${r.error}`);
  }
  return out;
}

async function callableScores(rubric: TraitLists, text: string, ports: RubricEvalPorts, log: EvalLog) {
  const out: Record<string, number | boolean | null> = {};
  for (const t of rubric.callable_traits) {
    const r = await evaluateCallableTrait(t, text, ports.callable);
    out[t.name] = r.ok ? r.value : null;
    if (!r.ok) log.warnings.push(r.error);
  }
  return out;
}

async function metricScores(
  rubric: TraitLists,
  context: { question: string; answer: string; instructions?: string },
  judge: ModelPort,
  section: RubricSection,
  log: EvalLog & { transient?: LlmError },
) {
  const scores: NonNullable<RubricSection["metric_trait_scores"]> = {};
  const lists: NonNullable<RubricSection["metric_trait_confusion_lists"]> = {};
  for (const t of rubric.metric_traits) {
    const r = await evaluateMetricTrait(t, judge, context, log);
    if (!r) continue;
    scores[t.name] = r.scores;
    lists[t.name] = r.lists;
  }
  section.metric_trait_scores = scores;
  section.metric_trait_confusion_lists = lists;
}

async function compoundScores(rubric: TraitLists, input: RubricEvalInput, ports: RubricEvalPorts, section: RubricSection, log: EvalLog) {
  const judgePorts: JudgePorts = ports.judgeModels ?? { model: () => ports.judge };
  section.compound_trait_scores = {};
  section.compound_trait_traces = {};
  for (const t of rubric.compound_traits) {
    const r = await evaluateCompoundTrait(
      t,
      { question: input.question, answer: input.response, reference: input.reference },
      input.parsing,
      judgePorts,
    );
    if ("error" in r) {
      section.compound_trait_scores[t.name] = null;
      log.warnings.push(r.error);
      continue;
    }
    section.compound_trait_scores[t.name] = r.score;
    section.compound_trait_traces[t.name] = r.trace;
    if (r.trace.error) log.warnings.push(`compound trait ${t.name}: ${r.trace.reason}`);
    if (r.usage.total_tokens)
      log.usage.push({
        input_tokens: r.usage.input_tokens,
        output_tokens: r.usage.output_tokens,
        total_tokens: r.usage.total_tokens,
        model: r.usage.models[0] ?? "",
      });
  }
}
