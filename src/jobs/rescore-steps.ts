/** A re-scored run's steps (src/rescore/): its parent's results and answer for the job, copied or judged again. */
import type { AnswerOutcome } from "../pipeline/types";
import type { ModelConfig } from "../schemas/model-config";
import type { VerificationResult } from "../schemas/result";
import { DEFAULT_TENANT } from "../tenants/tenants-repo";
import { loadParentJob, type ParentJob } from "../rescore/parent-job";
import { asChildResult, onlyTraits } from "../rescore/reuse";
import type { JobContext, JobModels } from "./job-runner";
import { judge } from "./judge-step";
import { jobResultId } from "./save-step";

/** The parent's results and answer for this job (a re-scored run's only). */
export function parentOfJob(ctx: JobContext): Promise<ParentJob> {
  const { spec, job, deps } = ctx;
  const parent = { tenant_id: spec.tenant_id ?? DEFAULT_TENANT, run_id: spec.rescore!.parent_run_id };
  return loadParentJob(deps.blobs, deps.db, parent, {
    question_id: job.question.id,
    answering_id: job.answering.id,
    replicate: job.replicate,
  });
}

/** A parent result as the child's: the child's result id, run name and replicate numbering. */
export async function childCopy(ctx: JobContext, result: VerificationResult, parsing: ModelConfig): Promise<VerificationResult> {
  const { spec, job } = ctx;
  const result_id = await jobResultId(spec, job, parsing);
  return asChildResult(result, { result_id, run_name: spec.run_name, replicate: spec.replicate_count === 1 ? null : job.replicate });
}

/**
 * Only the traits a re-score adds, on the job's answer: a rubric-only pipeline whose rubric is
 * those traits alone (no template, no guards), so the calls made are the new traits' calls.
 */
export function judgeNewTraits(ctx: JobContext, models: JobModels, answer: AnswerOutcome, parsing: ModelConfig) {
  const { spec, job } = ctx;
  const settings = {
    ...spec.settings,
    evaluation_mode: "rubric_only" as const,
    abstention_enabled: false,
    sufficiency_enabled: false,
    global_rubric: onlyTraits(spec.settings.global_rubric, spec.rescore!.new_traits),
    rubric_trait_names: null,
  };
  return judge(
    { ...ctx, spec: { ...spec, settings }, job: { ...job, question: { ...job.question, rubric: undefined } } },
    models,
    answer,
    parsing,
  );
}
