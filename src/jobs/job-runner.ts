/**
 * Runs one job (question × answering model × replicate): the answer is produced once and judged
 * by every parsing model, one result each.
 *
 * Checkpoints make redelivery cheap and exact: the answer is checkpointed in the run's coordinator
 * (while the first judge call runs), and each result is saved (its D1 row, a large one in R2 first,
 * then the coordinator) before the next judge call. A redelivered job skips recorded results,
 * re-records results that reached D1 or R2 but not the coordinator, reuses the saved answer, and
 * so never pays for a call twice.
 *
 * Transient model failures (rate limit, 5xx, timeout, connection) ask the queue to redeliver the
 * job later, until the job's last attempt; then they are recorded as results in Karenina's retry
 * group. A rate limit's wait is a deferral: the consumer re-queues the job and the delivery does not
 * count towards the last one. Nothing is lost and nothing is counted twice.
 *
 * A re-scored run's job (src/rescore/) first takes its parent's results for the same tuple: each
 * is copied as the child's (no call) or, when the child adds traits, gets only those evaluated on
 * the parent's answer; new parsing models judge the parent's answer. Only tuples the parent never
 * answered (new answering models, new replicates) call an answering model.
 */
import type { CallableTraitPort } from "../rubric/types";
import type { ModelPort } from "../llm/port";
import { isRetryable, type LlmError } from "../llm/port";
import { knownCancelled } from "./cancel-gate";
import type { SearchPort } from "../core-shared/evidence";
import type { Clock, PipelineLog } from "../pipeline/types";
import type { ModelConfig } from "../schemas/model-config";
import type { CodeVerifierPort } from "../templates/code-verify";
import type { JobMessage } from "../schemas/queue";
import { coordinatorName } from "../storage/r2-keys";
import { coordinatorOfJob } from "../coordinator/shards";
import type { Claim, RecordedResult } from "../coordinator/rpc-types";
import { type JobRef, resolveJob, resolveTurnJob } from "../submit/spec";
import { runTurnJob } from "./scenario-turn";
import type { RunSpec } from "../storage/run-spec";
import { loadSpec } from "../storage/spec-store";
import { loadLedger, saveLedger } from "../storage/ledger-store";
import { readSavedResult } from "../storage/result-store";
import type { RetryEnv, RetryLedger, RetryPolicy } from "../llm/retrying";
import { type JobPortDeps, jobPorts } from "./job-ports";
import type { EmbeddingPlace } from "../llm/embedding-model";
import { guardOn } from "../lib/guards";
import type { AgentToolsPort } from "../pipeline/agent/answering-agent";
import { faultJob, faultPoint } from "../lib/fault-points";
import { withNewTraits } from "../rescore/reuse";
import { answerFor } from "./answer-step";
import { judge } from "./judge-step";
import { childCopy, judgeNewTraits, parentOfJob } from "./rescore-steps";
import { jobResultId, type ResultWrite, saveAndRecord } from "./save-step";

export interface CoordinatorPort {
  claim(jobId: string): Promise<Claim>;
  record(result: RecordedResult, opts?: { completesJob?: boolean }): Promise<void>;
  saveAnswer(jobId: string, answer: string): Promise<void>;
  release(jobId: string): Promise<void>;
  completeJob(jobId: string): Promise<void>;
}

export interface JobDeps {
  blobs: R2Bucket;
  db: D1Database;
  /**
   * Writes a result's D1 row and its usage ledger rows (src/tenants/usage.ts) in one batch; default
   * one batch per result (the consumer coalesces the invocation's results into one write).
   */
  writeResultRow?: (item: ResultWrite) => Promise<void>;
  /** By coordinator name (r2-keys coordinatorName). */
  coordinator: (name: string) => CoordinatorPort;
  /** A model's port for a run of `tenantId` (whose keys `prepareTenant` loaded first). */
  portFor: JobPortDeps["portFor"];
  /** The answer-delimiting nonces of one result's calls. */
  nonceFor: JobPortDeps["nonceFor"];
  /** Where the embedding check's default model runs (deployed: Workers AI; local: an OpenAI-compatible endpoint). */
  embeddingPlace?: EmbeddingPlace;
  /** Opens the provider keys the run's spec may send before its job builds ports (at most one D1 read per tenant, batch and new names). */
  prepareTenant: (tenantId: string | undefined, spec: RunSpec) => Promise<void>;
  /** Whether the operator disabled the tenant (its row as read once per batch). */
  tenantDisabled: (tenantId: string | undefined) => Promise<boolean>;
  /** Cancels a run of a disabled tenant at its root coordinator, audited as the operator's. */
  cancelForDisabledTenant: (msg: JobMessage) => Promise<void>;
  clock: Clock;
  log: PipelineLog;
  /** Runs custom_verify code (JavaScript sandbox, Python subset). */
  codeVerifier?: CodeVerifierPort;
  /** Runs callable rubric traits' JavaScript (default: the QuickJS sandbox). */
  callableTraits?: CallableTraitPort;
  /** An answering model's MCP servers, with the tenant's secrets for their auth headers (src/mcp). */
  agentToolsFor?: (tenantId: string | undefined) => AgentToolsPort | undefined;
  /** Web search for deep judgment's hallucination check, with the tenant's TAVILY_API_KEY (none without). */
  searchFor?: (tenantId: string | undefined) => SearchPort | undefined;
  /** Deliveries a job gets before transient failures are recorded as results. */
  maxAttempts: number;
  retryBaseDelaySeconds: number;
  /** Per-class retry budgets and in-place waits (src/llm/retrying.ts). */
  retryPolicy: RetryPolicy;
  retryEnv: RetryEnv;
}

/**
 * `deferral`: the job waits out a provider's retry-after (a 429, or its key's shared limiter holding
 * calls): it is delayed, not failing, and the consumer re-queues it without spending a delivery.
 */
export type JobOutcome = { kind: "ack"; note: string } | { kind: "retry"; delaySeconds: number; note: string; deferral?: true };

/** Everything one claimed delivery of a job works with, passed to each step instead of positional parameters. */
export interface JobContext {
  deps: JobDeps;
  coordinator: CoordinatorPort;
  /** What the coordinator's claim said: this delivery's number, results already recorded, the saved answer. */
  claim: {
    attempts: number;
    recorded: readonly string[];
    answer: string | null;
    /** A scenario turn's state, left by the previous turn. */
    scenario_state?: string | null;
  };
  /** Deliveries of the job so far that counted: its claims, less the ones that only waited out a retry-after. */
  spent: number;
  spec: RunSpec;
  job: JobRef;
  /** The last delivery records transient failures as results instead of handing the job back. */
  finalAttempt: boolean;
}

/** A job's model ports for this delivery, with the retry ledger they count into. */
export interface JobModels {
  ledger: RetryLedger;
  portFor: (model: ModelConfig) => ModelPort;
}

export const COMPLETE: JobOutcome = { kind: "ack", note: "job complete" };

/** claim → spec → answer → for each pending parsing model: pipeline → store → record. */
export async function runJob(msg: JobMessage, deps: JobDeps): Promise<JobOutcome> {
  // The operator disabled the tenant: nothing more of it is spent. Before the claim, so no job is
  // held: the run is cancelled (the first of its jobs to get here does it), which skips this job
  // and every other not yet started, on every shard.
  if (await deps.tenantDisabled(msg.tenant_id)) {
    await deps.cancelForDisabledTenant(msg);
    return { kind: "ack", note: "tenant disabled: its run is cancelled" };
  }
  const coordinator = deps.coordinator(coordinatorOfJob(msg));
  const claim = await coordinator.claim(msg.job_id);
  if (claim.kind === "unknown") return { kind: "ack", note: "job unknown to its run: dropped" };
  if (claim.kind === "finished") return { kind: "ack", note: `job already ${claim.state}` };
  if (claim.kind === "busy") {
    return { kind: "retry", delaySeconds: claim.retry_in_seconds, note: "another delivery is working on this job" };
  }
  if (claim.kind === "wait") {
    return { kind: "retry", delaySeconds: claim.retry_in_seconds, note: "waiting for room in the run's budget", deferral: true };
  }
  try {
    const outcome = await runClaimedJob(msg, deps, coordinator, {
      attempts: claim.attempts,
      recorded: claim.recorded,
      answer: claim.answer,
      ...(claim.scenario_state !== undefined ? { scenario_state: claim.scenario_state } : {}),
    });
    if (outcome.kind === "retry") await coordinator.release(msg.job_id);
    return outcome;
  } catch (err) {
    await coordinator.release(msg.job_id).catch(() => undefined);
    throw err;
  }
}

async function runClaimedJob(
  msg: JobMessage,
  deps: JobDeps,
  coordinator: CoordinatorPort,
  claim: JobContext["claim"],
): Promise<JobOutcome> {
  const spec = await loadSpec(deps.blobs, msg);
  if (!spec) return retryLater(deps, claim.attempts, "run spec not readable yet");
  // A deferral (JobMessage.deferrals) claimed the job too, but spent none of its deliveries.
  const spent = Math.max(1, claim.attempts - (msg.deferrals ?? 0));
  const finalAttempt = spent >= deps.maxAttempts;
  const turn = resolveTurnJob(spec, msg.job_id);
  if (turn) {
    await deps.prepareTenant(spec.tenant_id, spec);
    return runTurnJob({ deps, coordinator, claim, spent, spec, finalAttempt }, turn);
  }
  const job = resolveJob(spec, msg.job_id);
  if (!job) return { kind: "ack", note: "job id outside the run spec: dropped" };
  await deps.prepareTenant(spec.tenant_id, spec);
  const ctx: JobContext = { deps, coordinator, claim, spent, spec, job, finalAttempt };

  const pending = await pendingParsers(ctx);
  if (pending.length === 0) {
    await coordinator.completeJob(job.job_id);
    return COMPLETE;
  }
  const parent = spec.rescore ? await parentOfJob(ctx) : null;
  // A parent result is copied as is unless the child adds traits to evaluate on its answer.
  const copies = parent ? pending.filter((p) => parent.results.has(p.id) && !(spec.rescore!.new_traits.length > 0 && parent.answer)) : [];
  const toJudge = pending.filter((p) => !copies.includes(p));
  for (const [i, parsing] of copies.entries()) {
    await saveAndRecord(
      ctx,
      parsing,
      await childCopy(ctx, parent!.results.get(parsing.id)!, parsing),
      toJudge.length === 0 && i === copies.length - 1,
      null,
    );
  }
  if (toJudge.length === 0) return COMPLETE;
  const models = await jobModels(ctx);
  const { outcome: answer, checkpoint } = await answerFor(ctx, models, parent?.answer ?? null);
  if (!answer.ok && stoppedByCancel(ctx, answer.error.llm)) return stopCancelled(ctx);
  if (!answer.ok && answer.error.llm && isRetryable(answer.error.llm) && !answer.error.llm.exhausted && !ctx.finalAttempt) {
    return handBack(ctx, models, answer.error.reason, answer.error.llm);
  }
  for (const [i, parsing] of toJudge.entries()) {
    const previous = parent?.results.get(parsing.id);
    const outcome = previous ? await judgeNewTraits(ctx, models, answer, parsing) : await judge(ctx, models, answer, parsing);
    // The checkpoint is needed from here on only if this delivery fails: it has had the judge
    // call's time to land.
    await checkpoint;
    faultPoint("after_judge", { run_id: ctx.spec.run_id, job: faultJob(ctx.job), parsing: parsing.id });
    // A call of this pipeline was refused because the run was cancelled: its result is incomplete.
    if (stoppedByCancel(ctx, outcome.retryable)) return stopCancelled(ctx);
    if (outcome.retryable && !outcome.retryable.exhausted && !ctx.finalAttempt) {
      return handBack(ctx, models, outcome.result.metadata.error ?? "transient", outcome.retryable);
    }
    // The job's last result completes it in the same call to the coordinator.
    const last = i === toJudge.length - 1;
    if (previous)
      await saveAndRecord(ctx, parsing, withNewTraits(await childCopy(ctx, previous, parsing), outcome.result), last, outcome.result);
    else await saveAndRecord(ctx, parsing, outcome.result, last);
  }
  return COMPLETE;
}

/**
 * A model call refused by the cancel gate (src/jobs/cancel-gate.ts); a transient failure of a run
 * this isolate knows is cancelled counts too (a pipeline reports only its first transient error).
 */
export function stoppedByCancel(ctx: JobContext, error: LlmError | null | undefined): boolean {
  return !!error && (error.cancelled === true || (isRetryable(error) && knownCancelled(coordinatorName(ctx.spec))));
}

/**
 * The run was cancelled while this job ran: what it recorded stays, the rest is not attempted.
 * Released under a cancel, the coordinator marks the job skipped.
 */
export async function stopCancelled(ctx: JobContext): Promise<JobOutcome> {
  await ctx.coordinator.release(ctx.job.job_id);
  return { kind: "ack", note: "run cancelled: the job stops" };
}

/** The ports of this delivery; retries used on earlier deliveries count against the same budgets. */
export async function jobModels(ctx: JobContext): Promise<JobModels> {
  const ledger = await loadLedger(ctx.deps.blobs, ctx.spec, ctx.job.job_id, ctx.claim.attempts);
  return { ledger, portFor: jobPorts(ctx.spec, ctx.job, ledger, ctx.deps, ctx.deps.clock.now()) };
}

/**
 * Back to the queue, the ledger saved so the next delivery continues its budgets. A rate limit is a
 * deferral: the provider (or the key's limiter) said when to come back, nothing failed.
 */
export async function handBack(ctx: JobContext, models: JobModels, note: string, error: LlmError): Promise<JobOutcome> {
  await saveLedger(ctx.deps.blobs, ctx.spec, ctx.job.job_id, models.ledger);
  const later = retryLater(ctx.deps, ctx.spent, note, error.retryAfterMs);
  return error.kind === "rate_limit" ? { ...later, deferral: true } : later;
}

/**
 * Parsing models whose result is not yet recorded; results found in R2 are recorded on the way.
 * On a job's first attempt nothing can have been saved yet, so R2 is not asked.
 */
async function pendingParsers(ctx: JobContext): Promise<ModelConfig[]> {
  const { spec, job, claim } = ctx;
  // A first delivery with nothing recorded has nothing to skip or find: no result ids to hash
  // (finalizing each result hashes its id anyway).
  if (claim.recorded.length === 0 && claim.attempts <= 1) return [...spec.parsing_models];
  const pending: ModelConfig[] = [];
  for (const parsing of spec.parsing_models) {
    const resultId = await jobResultId(spec, job, parsing);
    if (claim.recorded.includes(resultId)) continue;
    const saved =
      claim.attempts > 1 && guardOn("saved_results") ? await readSavedResult(ctx.deps.blobs, ctx.deps.db, spec, resultId) : null;
    if (saved) await saveAndRecord(ctx, parsing, saved);
    else pending.push(parsing);
  }
  return pending;
}

function retryLater(deps: JobDeps, attempts: number, note: string, retryAfterMs?: number): Extract<JobOutcome, { kind: "retry" }> {
  const backoff = deps.retryBaseDelaySeconds * 2 ** Math.max(0, attempts - 1);
  const fromProvider = retryAfterMs ? Math.ceil(retryAfterMs / 1000) : 0;
  return { kind: "retry", delaySeconds: Math.min(300, Math.max(backoff, fromProvider)), note };
}
