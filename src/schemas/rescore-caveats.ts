/**
 * What a re-scored run does not carry over from its parent (src/rescore/README.md): said in the 202 of
 * POST /v1/runs/:id/rescore and kept with the child (`runs.rescore_caveats_json`), so GET /v1/runs/:id
 * and the run's dashboard page say it too. A file of its own because both rescore.ts and run-views.ts
 * use it, and rescore.ts imports run-views.ts.
 */
import { z } from "zod";

/**
 * Part of the parent a child does not carry, said so that no re-score drops work unannounced.
 * Today only scenarios: each turn's question depends on the answers before it, so a new judge or
 * trait on a scenario means running its chain again.
 */
export const RescoreLeftOut = z.strictObject({
  what: z.literal("scenarios"),
  /** The parent's scenarios (by name) that the child does not run. */
  ids: z.array(z.string()),
  /** The parent's results of them (one per turn) that the child does not copy. */
  results: z.number().int().min(0),
  /** Why, and what to do instead. */
  reason: z.string(),
});

/**
 * The parent's results the child cannot reuse because the parent never recorded them (it was
 * cancelled, ran out of budget, or lost jobs to the dead-letter queue): the child answers and
 * grades those tuples afresh, answering calls included, which a re-score otherwise never makes for
 * the parent's tuples. Said so that the spend is no surprise.
 */
export const RescoreAfresh = z.strictObject({
  results: z.number().int().min(1),
  reason: z.string(),
});

/** Both, as the child stores them: `left_out` empty and `graded_afresh` null when it carries everything. */
export const RescoreCaveats = z.strictObject({ left_out: z.array(RescoreLeftOut), graded_afresh: RescoreAfresh.nullable() });

export type RescoreLeftOut = z.output<typeof RescoreLeftOut>;
export type RescoreAfresh = z.output<typeof RescoreAfresh>;
export type RescoreCaveats = z.output<typeof RescoreCaveats>;
