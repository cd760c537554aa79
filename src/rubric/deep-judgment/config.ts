/**
 * Deep judgment for rubrics: which LLM traits get it, and with what settings.
 *
 * `deep_judgment_rubric_mode`:
 *   disabled       — no trait.
 *   enable_all     — every boolean/score LLM trait, global defaults, excerpts per
 *                    `deep_judgment_rubric_global_excerpts`.
 *   use_checkpoint — the trait's own `deep_judgment_*` fields (null → global default).
 *   custom         — `deep_judgment_rubric_config`: question_specific[qid][trait] → global[trait]
 *                    → not found = disabled (first match wins).
 * Literal and template-kind traits are never deep-judged here (their score is not a single bool
 * or integer derived from a conclusion); they stay on the standard path.
 */
import {
  type DeepJudgmentRubricCustomConfig,
  type DeepJudgmentRubricMode,
  type DeepJudgmentTraitConfig,
} from "../../schemas/deep-judgment-rubric";

export interface DeepJudgmentRubricSettings {
  mode: DeepJudgmentRubricMode;
  global_excerpts: boolean;
  max_excerpts_default: number;
  fuzzy_match_threshold_default: number;
  excerpt_retry_attempts_default: number;
  /** enable_all only: search validation for every trait (Karenina's deep_judgment_rubric_search_enabled). */
  search_enabled: boolean;
  search_tool: string;
  config: DeepJudgmentRubricCustomConfig | null;
}

export const DEFAULT_DEEP_JUDGMENT_RUBRIC: DeepJudgmentRubricSettings = {
  mode: "disabled",
  global_excerpts: true,
  max_excerpts_default: 7,
  fuzzy_match_threshold_default: 0.8,
  excerpt_retry_attempts_default: 2,
  search_enabled: false,
  search_tool: "tavily",
  config: null,
};

/** The settings one trait is deep-judged with. */
export interface ResolvedTraitConfig {
  excerpt_enabled: boolean;
  max_excerpts: number;
  fuzzy_match_threshold: number;
  excerpt_retry_attempts: number;
  search_enabled: boolean;
}

/** What resolution reads of an LLM trait (the loose trait object as it came from the benchmark). */
export interface DjTraitLike {
  name: string;
  kind: unknown;
  [field: string]: unknown;
}

export function isDeepJudgeable(trait: DjTraitLike): boolean {
  return trait.kind === "boolean" || trait.kind === "score";
}

/** null = this trait is evaluated the standard way. */
export function resolveTraitConfig(trait: DjTraitLike, questionId: string, s: DeepJudgmentRubricSettings): ResolvedTraitConfig | null {
  if (!isDeepJudgeable(trait)) return null;
  const fill = (c: Partial<DeepJudgmentTraitConfig> & { excerpt_enabled: boolean; search_enabled: boolean }): ResolvedTraitConfig => ({
    excerpt_enabled: c.excerpt_enabled,
    max_excerpts: c.max_excerpts ?? s.max_excerpts_default,
    fuzzy_match_threshold: c.fuzzy_match_threshold ?? s.fuzzy_match_threshold_default,
    excerpt_retry_attempts: c.excerpt_retry_attempts ?? s.excerpt_retry_attempts_default,
    search_enabled: c.search_enabled,
  });
  switch (s.mode) {
    case "disabled":
      return null;
    case "enable_all":
      return fill({ excerpt_enabled: s.global_excerpts, search_enabled: s.search_enabled });
    case "use_checkpoint": {
      if (trait.deep_judgment_enabled !== true) return null;
      return fill({
        excerpt_enabled: trait.deep_judgment_excerpt_enabled !== false,
        max_excerpts: numberOrNull(trait.deep_judgment_max_excerpts),
        fuzzy_match_threshold: numberOrNull(trait.deep_judgment_fuzzy_match_threshold),
        excerpt_retry_attempts: numberOrNull(trait.deep_judgment_excerpt_retry_attempts),
        search_enabled: trait.deep_judgment_search_enabled === true,
      });
    }
    case "custom": {
      const c = s.config?.question_specific[questionId]?.[trait.name] ?? s.config?.global[trait.name];
      return c && c.enabled ? fill(c) : null;
    }
  }
}

function numberOrNull(x: unknown): number | null {
  return typeof x === "number" && Number.isFinite(x) ? x : null;
}
