/** The answer step of a job: the answer checkpointed by an earlier delivery, or a new one, checkpointed. */
import { produceAnswer } from "../pipeline/stages/generate-answer";
import type { AnswerArtifact, AnswerOutcome } from "../pipeline/types";
import { guardOn } from "../lib/guards";
import { r2AgentCheckpoint } from "../storage/agent-checkpoint-store";
import { loadAnswerCheckpoint, parseAnswerCheckpoint, saveAnswerCheckpoint } from "../storage/answer-checkpoint-store";
import { faultJob, faultPoint } from "../lib/fault-points";
import type { JobContext, JobModels } from "./job-runner";

/**
 * The job's answer: the checkpoint if there is one, else generated now and checkpointed. The
 * checkpoint is a row of the run's coordinator (it comes back with `claim`; a DO write costs a
 * fraction of an R2 put: bench/binding-costs); an answer too large for a row goes to R2. On a
 * first attempt no checkpoint can exist yet, so neither is asked.
 *
 * The checkpoint write runs alongside the first judge call (it is batched with other jobs' writes
 * and need not hold up the call); the job waits for it before recording or handing back. A write
 * that fails only costs a regenerated answer if this delivery fails too, so it is logged, not fatal.
 */
export async function answerFor(
  ctx: JobContext,
  models: JobModels,
  reused: AnswerArtifact | null,
): Promise<{ outcome: AnswerOutcome; checkpoint: Promise<void> }> {
  const { spec, job, claim, deps, coordinator } = ctx;
  const { portFor } = models;
  const none = Promise.resolve();
  // Manual answers live in the spec already; there is nothing to save.
  if (job.answering.interface === "manual") {
    return {
      outcome: await produceAnswer({ ...job, settings: spec.settings }, { answerer: portFor(job.answering), clock: deps.clock }),
      checkpoint: none,
    };
  }
  const reuse = guardOn("answer_checkpoint");
  const saved = claim.answer !== null && reuse ? checkpointed(ctx, parseAnswerCheckpoint(claim.answer)) : null;
  if (saved) return { outcome: { ok: true, answer: saved }, checkpoint: none };
  // A re-scored run's job reads the answer its parent's results graded: no call, nothing to save.
  if (reused) return { outcome: { ok: true, answer: reused }, checkpoint: none };
  const inR2 = claim.attempts > 1 && reuse && claim.answer === null ? await loadAnswerCheckpoint(deps.blobs, spec, job.job_id) : undefined;
  const savedInR2 = inR2 === undefined ? null : checkpointed(ctx, inR2);
  if (savedInR2) return { outcome: { ok: true, answer: savedInR2 }, checkpoint: none };
  // An MCP agent saves its progress as it goes: a redelivery carries on from its last step.
  const agent = job.answering.mcp_urls_dict
    ? { agentTools: deps.agentToolsFor?.(spec.tenant_id), agentCheckpoint: r2AgentCheckpoint(deps.blobs, spec, job.job_id, claim.attempts) }
    : {};
  const outcome = await produceAnswer(
    { ...job, settings: spec.settings },
    { answerer: portFor(job.answering), clock: deps.clock, ...agent },
  );
  if (!outcome.ok) return { outcome, checkpoint: none };
  faultPoint("after_answer", { run_id: spec.run_id, job: faultJob(job) });
  const json = JSON.stringify(outcome.answer);
  const write =
    json.length <= MAX_ANSWER_IN_COORDINATOR
      ? coordinator.saveAnswer(job.job_id, json)
      : saveAnswerCheckpoint(deps.blobs, spec, job.job_id, json);
  const checkpoint = write.catch((err: unknown) => deps.log.warn("answer_checkpoint_failed", { job_id: job.job_id, error: String(err) }));
  return { outcome, checkpoint };
}

/** A checkpoint that is not an answer is logged and not reused: the answer is generated again. */
function checkpointed(ctx: JobContext, answer: AnswerArtifact | null): AnswerArtifact | null {
  if (!answer) ctx.deps.log.warn("answer_checkpoint_unreadable", { job_id: ctx.job.job_id });
  return answer;
}

/** Durable Object SQLite values hold up to 2 MB; answers longer than this (UTF-16 units) go to R2. */
const MAX_ANSWER_IN_COORDINATOR = 512 * 1024;
