/**
 * The wire shapes of rubric deep judgment in a verification config (Karenina's names):
 * `deep_judgment_rubric_mode` and `deep_judgment_rubric_config`. What they mean and how a trait's
 * settings are resolved from them: src/rubric/deep-judgment/config.ts.
 */
import { z } from "zod";

export const DEEP_JUDGMENT_RUBRIC_MODES = ["disabled", "enable_all", "use_checkpoint", "custom"] as const;
export type DeepJudgmentRubricMode = (typeof DEEP_JUDGMENT_RUBRIC_MODES)[number];

/** Karenina's DeepJudgmentTraitConfig. */
export const DeepJudgmentTraitConfig = z.strictObject({
  enabled: z.boolean().default(true),
  excerpt_enabled: z.boolean().default(true),
  max_excerpts: z.number().int().min(1).nullish(),
  fuzzy_match_threshold: z.number().min(0).max(1).nullish(),
  excerpt_retry_attempts: z.number().int().min(0).nullish(),
  search_enabled: z.boolean().default(false),
});
export type DeepJudgmentTraitConfig = z.output<typeof DeepJudgmentTraitConfig>;

/** Karenina's DeepJudgmentRubricCustomConfig (`deep_judgment_rubric_config`). */
export const DeepJudgmentRubricCustomConfig = z.strictObject({
  global: z.record(z.string(), DeepJudgmentTraitConfig).default({}),
  question_specific: z.record(z.string(), z.record(z.string(), DeepJudgmentTraitConfig)).default({}),
});
export type DeepJudgmentRubricCustomConfig = z.output<typeof DeepJudgmentRubricCustomConfig>;
