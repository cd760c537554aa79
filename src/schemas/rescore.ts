/** POST /v1/runs/:id/rescore (src/rescore/README.md): what a child run adds to its parent. */
import { z } from "zod";
import { ModelConfig } from "./model-config";
import { RescoreAfresh, RescoreCaveats, RescoreLeftOut } from "./rescore-caveats";
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
 * 202 of POST /v1/runs/:id/rescore: the child run, what of the parent it leaves out (empty:
 * nothing), and how many of the parent's results it grades afresh for want of them (null: none).
 */
export const RescoreStarted = SubmittedRun.extend(RescoreCaveats.shape);
export { RescoreAfresh, RescoreLeftOut };
