/** POST /v1/runs/:id/rescore (src/rescore/README.md): what a child run adds to its parent. */
import { z } from "zod";
import { ModelConfig } from "./model-config";
import { Rubric } from "./rubric";
import { SubmittedRun } from "./run-views";

export const RescoreRequest = z
  .strictObject({
    run_name: z.string().min(1).max(200).optional(),
    /** New answering models (Karenina's extend_template): their answers are new calls. */
    answering_models: z.array(ModelConfig).max(50).optional(),
    /** New parsing (judge) models: they grade the parent's answers, no answering call. */
    parsing_models: z.array(ModelConfig).max(50).optional(),
    /** At least the parent's; replicates above it are new answering calls. */
    replicate_count: z.number().int().min(1).max(1000).optional(),
    /** Traits added to the run's global rubric (Karenina's extend_rubric); their names must be new. */
    rubric: Rubric.optional(),
  })
  .refine((b) => b.answering_models?.length || b.parsing_models?.length || b.replicate_count !== undefined || b.rubric, {
    error: "send something to add: answering_models, parsing_models, replicate_count or rubric",
  });
export type RescoreRequest = z.output<typeof RescoreRequest>;

/**
 * Part of the parent a child does not carry, said in the 202 so that no re-score drops work
 * unannounced. Today only scenarios: each turn's question depends on the answers before it, so a
 * new judge or trait on a scenario means running its chain again.
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
 * the parent's tuples. Said in the 202 so that the spend is no surprise.
 */
export const RescoreAfresh = z.strictObject({
  results: z.number().int().min(1),
  reason: z.string(),
});

/**
 * 202 of POST /v1/runs/:id/rescore: the child run, what of the parent it leaves out (empty:
 * nothing), and how many of the parent's results it grades afresh for want of them (null: none).
 */
export const RescoreStarted = SubmittedRun.extend({ left_out: z.array(RescoreLeftOut), graded_afresh: RescoreAfresh.nullable() });
export type RescoreLeftOut = z.output<typeof RescoreLeftOut>;
export type RescoreAfresh = z.output<typeof RescoreAfresh>;
