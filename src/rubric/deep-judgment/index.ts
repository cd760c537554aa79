/**
 * Deep judgment for rubrics — the seam with stage 11 (RubricEvaluation):
 *
 *   const { deep, standard } = partitionDeepJudgmentTraits(llmTraits, question.id, settings);
 *   // stage 11 evaluates `standard` as usual, then:
 *   const dj = await evaluateDeepJudgmentTraits(judge, deep, ctx);
 *   // merge dj.scores into llm_trait_scores, and record
 *   //   state.deep_judgment_rubric = withStandardScores(dj.section, standardScores)
 *
 * Traits are judged one after another (Karenina does them sequentially; the calls of one trait
 * depend on each other anyway). Stage 12 reads `traits_without_valid_excerpts`.
 */
import type { LlmError, ModelPort, Usage } from "../../llm/port";
import type { Excerpt, SearchPort } from "../../core-shared/evidence";
import { addUsage } from "../../core-shared/usage";
import { type DeepJudgmentRubricSettings, type DjTraitLike, resolveTraitConfig, type ResolvedTraitConfig } from "./config";
import type { DjTrait } from "./prompts";
import { deepJudgeTrait, type TraitMetadata, type TraitRisk } from "./trait";

export * from "./config";
export { deepJudgeTrait, scoreFromConclusion } from "./trait";

/** Karenina's VerificationResultDeepJudgmentRubric (11 fields). */
export interface DeepJudgmentRubricSection {
  deep_judgment_rubric_performed: boolean;
  extracted_rubric_excerpts: Record<string, Excerpt[]> | null;
  rubric_trait_reasoning: Record<string, string> | null;
  deep_judgment_rubric_scores: Record<string, number | boolean> | null;
  standard_rubric_scores: Record<string, number | boolean> | null;
  trait_metadata: Record<string, TraitMetadata> | null;
  traits_without_valid_excerpts: string[] | null;
  rubric_hallucination_risk_assessment: Record<string, TraitRisk> | null;
  total_deep_judgment_model_calls: number;
  total_traits_evaluated: number;
  total_excerpt_retries: number;
}

export interface DeepTrait<T extends DjTraitLike = DjTraitLike> {
  trait: T;
  config: ResolvedTraitConfig;
}

export function partitionDeepJudgmentTraits<T extends DjTraitLike>(
  traits: readonly T[],
  questionId: string,
  settings: DeepJudgmentRubricSettings | undefined,
): { deep: DeepTrait<T>[]; standard: T[] } {
  const deep: DeepTrait<T>[] = [];
  const standard: T[] = [];
  for (const trait of traits) {
    const config = settings ? resolveTraitConfig(trait, questionId, settings) : null;
    if (config) deep.push({ trait, config });
    else standard.push(trait);
  }
  return { deep, standard };
}

export interface DeepJudgmentContext {
  question: string;
  /** What the rubric judge reads (final AI message or full trace, per use_full_trace_for_rubric). */
  response: string;
  instructions?: string;
  search?: SearchPort;
}

export interface DeepJudgmentOutcome {
  /** Trait → score; null where a judge call failed. */
  scores: Record<string, number | boolean | null>;
  section: DeepJudgmentRubricSection;
  usage: Usage | undefined;
  warnings: string[];
  /** The first judge failure, for the job's retry decision. */
  error?: LlmError;
}

export async function evaluateDeepJudgmentTraits(
  judge: ModelPort,
  deep: readonly DeepTrait[],
  ctx: DeepJudgmentContext,
): Promise<DeepJudgmentOutcome> {
  const section = emptySection(deep.length > 0);
  const scores: Record<string, number | boolean | null> = {};
  const warnings: string[] = [];
  let usage: Usage | undefined;
  let error: LlmError | undefined;
  for (const { trait, config } of deep) {
    const t = djTrait(trait);
    const r = await deepJudgeTrait(judge, t, config, { ...ctx, callSite: "dj_rubric" });
    scores[t.name] = r.score;
    if (r.score !== null) (section.deep_judgment_rubric_scores ??= {})[t.name] = r.score;
    if (r.excerpts) (section.extracted_rubric_excerpts ??= {})[t.name] = r.excerpts;
    if (r.reasoning !== null) (section.rubric_trait_reasoning ??= {})[t.name] = r.reasoning;
    if (r.risk) (section.rubric_hallucination_risk_assessment ??= {})[t.name] = r.risk;
    (section.trait_metadata ??= {})[t.name] = r.metadata;
    if (r.metadata.excerpt_validation_failed) (section.traits_without_valid_excerpts ??= []).push(t.name);
    section.total_deep_judgment_model_calls += r.metadata.model_calls;
    section.total_excerpt_retries += r.metadata.excerpt_retry_count;
    section.total_traits_evaluated++;
    if (r.usage) usage = addUsage(usage, r.usage);
    warnings.push(...r.warnings);
    if (r.error) {
      error ??= r.error;
      warnings.push(`deep judgment for trait ${t.name} failed: ${r.error.message}`);
    }
  }
  return { scores, section, usage, warnings, error };
}

export function emptySection(performed: boolean): DeepJudgmentRubricSection {
  return {
    deep_judgment_rubric_performed: performed,
    extracted_rubric_excerpts: null,
    rubric_trait_reasoning: null,
    deep_judgment_rubric_scores: null,
    standard_rubric_scores: null,
    trait_metadata: null,
    traits_without_valid_excerpts: null,
    rubric_hallucination_risk_assessment: null,
    total_deep_judgment_model_calls: 0,
    total_traits_evaluated: 0,
    total_excerpt_retries: 0,
  };
}

/** Stage 11 records the standard path's scores beside the deep ones (Karenina's comparison field). */
export function withStandardScores(
  section: DeepJudgmentRubricSection,
  standard: Record<string, number | boolean | null>,
): DeepJudgmentRubricSection {
  const kept = Object.entries(standard).filter((e): e is [string, number | boolean] => e[1] !== null);
  return { ...section, standard_rubric_scores: kept.length ? Object.fromEntries(kept) : null };
}

function djTrait(trait: DjTraitLike): DjTrait {
  const text = (k: string) => (typeof trait[k] === "string" && (trait[k] as string).trim() ? (trait[k] as string) : null);
  const num = (k: string, d: number) => (typeof trait[k] === "number" ? (trait[k] as number) : d);
  return {
    name: trait.name,
    description: text("description") ?? text("summary") ?? trait.name,
    kind: trait.kind === "boolean" ? "boolean" : "score",
    min_score: num("min_score", 1),
    max_score: num("max_score", 5),
  };
}
