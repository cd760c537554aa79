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
import { createCallableTraitRunner } from "../adapters/rubric-callable";
import { traitObservations } from "../rubric/aggregate";
import type { ModelPort } from "../llm/port";
import { isRetryable, type LlmError } from "../llm/port";
import { knownCancelled } from "./cancel-gate";
import { produceAnswer } from "../pipeline/stages/generate-answer";
import { computeResultId } from "../pipeline/ids";
import { runPipeline } from "../pipeline/orchestrator";
import type { SearchPort } from "../core-shared/evidence";
import type { AnswerArtifact, AnswerOutcome, Clock, PipelineLog } from "../pipeline/types";
import type { ModelConfig } from "../schemas/model-config";
import { type LedgerRow, ledgerInsertStatements, ledgerRows } from "../tenants/usage";
import { DEFAULT_TENANT } from "../tenants/tenants-repo";
import type { CodeVerifierPort } from "../templates/code-verify";
import type { JobMessage } from "../schemas/queue";
import type { VerificationResult } from "../schemas/result";
import { coordinatorName } from "../storage/r2-keys";
import { coordinatorOfJob } from "../coordinator/shards";
import type { Claim, RecordedResult } from "../coordinator/rpc-types";
import { type JobRef, resolveJob, resolveTurnJob } from "../submit/spec";
import { runTurnJob } from "./scenario-turn";
import type { RunSpec } from "../storage/run-spec";
import { loadSpec } from "../storage/spec-store";
import { loadLedger, saveLedger } from "../storage/ledger-store";
import { saveResult, readSavedResult } from "../storage/result-store";
import { type ResultRowRecord, resultUpsertStatements } from "../storage/results-repo";
import type { RetryEnv, RetryLedger, RetryPolicy } from "../llm/retrying";
import { type JobPortDeps, jobPorts } from "./job-ports";
import { r2Workspace, workspacePrefix } from "../adapters/workspace";
import { usageRows } from "../coordinator/cost";
import { priceTable } from "../llm/prices";
import { embeddingModel, type EmbeddingPlace } from "../llm/embedding-model";
import { modelRetryPolicy } from "../adapters/edge-models";
import { guardOn } from "../lib/guards";
import type { AgentToolsPort } from "../pipeline/agent/answering-agent";
import { r2AgentCheckpoint } from "../storage/agent-checkpoint-store";
import { loadAnswerCheckpoint, parseAnswerCheckpoint, saveAnswerCheckpoint } from "../storage/answer-checkpoint-store";
import { faultJob, faultPoint } from "../lib/fault-points";
import { loadParentJob, type ParentJob } from "../rescore/parent-job";
import { asChildResult, onlyTraits, withNewTraits } from "../rescore/reuse";

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
  /** Loads the tenant's provider keys before its job builds ports (one D1 read per tenant and batch). */
  prepareTenant: (tenantId: string | undefined) => Promise<void>;
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

const defaultCallableRunner = createCallableTraitRunner();

/** A result's D1 row and the tenant ledger rows of its usage, written together. */
export interface ResultWrite {
  row: ResultRowRecord;
  ledger: LedgerRow[];
}

/** One D1 batch (one transaction) for results and their ledger rows: one round trip for all of them. */
export async function writeResults(db: D1Database, items: readonly ResultWrite[]): Promise<void> {
  const ledger = items.flatMap((i) => i.ledger);
  const statements = resultUpsertStatements(
    db,
    items.map((i) => i.row),
  );
  if (ledger.length > 0) statements.push(...ledgerInsertStatements(db, ledger));
  if (statements.length > 0) await db.batch(statements);
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

/** The id of the job's result by one parsing model (src/pipeline/ids.ts). */
export function jobResultId(spec: RunSpec, job: JobRef, parsing: ModelConfig): Promise<string> {
  return computeResultId({
    run_id: spec.run_id,
    question_id: job.question.id,
    answering: job.answering,
    parsing,
    replicate: job.replicate,
  });
}

/** claim → spec → answer → for each pending parsing model: pipeline → store → record. */
export async function runJob(msg: JobMessage, deps: JobDeps): Promise<JobOutcome> {
  const coordinator = deps.coordinator(coordinatorOfJob(msg));
  const claim = await coordinator.claim(msg.job_id);
  if (claim.kind === "unknown") return { kind: "ack", note: "job unknown to its run: dropped" };
  if (claim.kind === "finished") return { kind: "ack", note: `job already ${claim.state}` };
  if (claim.kind === "busy") {
    return { kind: "retry", delaySeconds: claim.retry_in_seconds, note: "another delivery is working on this job" };
  }
  if (claim.kind === "wait") {
    return { kind: "retry", delaySeconds: claim.retry_in_seconds, note: "waiting for the run's budget allowance", deferral: true };
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
    await deps.prepareTenant(spec.tenant_id);
    return runTurnJob({ deps, coordinator, claim, spent, spec, finalAttempt }, turn);
  }
  const job = resolveJob(spec, msg.job_id);
  if (!job) return { kind: "ack", note: "job id outside the run spec: dropped" };
  await deps.prepareTenant(spec.tenant_id);
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

/** The parent's results and answer for this job (a re-scored run's only). */
function parentOfJob(ctx: JobContext): Promise<ParentJob> {
  const { spec, job, deps } = ctx;
  const parent = { tenant_id: spec.tenant_id ?? DEFAULT_TENANT, run_id: spec.rescore!.parent_run_id };
  return loadParentJob(deps.blobs, deps.db, parent, {
    question_id: job.question.id,
    answering_id: job.answering.id,
    replicate: job.replicate,
  });
}

/** A parent result as the child's: the child's result id, run name and replicate numbering. */
async function childCopy(ctx: JobContext, result: VerificationResult, parsing: ModelConfig): Promise<VerificationResult> {
  const { spec, job } = ctx;
  const result_id = await jobResultId(spec, job, parsing);
  return asChildResult(result, { result_id, run_name: spec.run_name, replicate: spec.replicate_count === 1 ? null : job.replicate });
}

/**
 * Only the traits a re-score adds, on the job's answer: a rubric-only pipeline whose rubric is
 * those traits alone (no template, no guards), so the calls made are the new traits' calls.
 */
function judgeNewTraits(ctx: JobContext, models: JobModels, answer: AnswerOutcome, parsing: ModelConfig) {
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
  return { ledger, portFor: jobPorts(ctx.spec, ctx.job, ledger, ctx.deps) };
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

/** One parsing model's pipeline over the job's answer. */
export function judge(ctx: JobContext, models: JobModels, answer: AnswerOutcome, parsing: ModelConfig) {
  const { spec, job, deps } = ctx;
  return runPipeline(
    {
      run_id: spec.run_id,
      run_name: spec.run_name,
      question: job.question,
      answering: job.answering,
      parsing,
      replicate: job.replicate,
      settings: spec.settings,
      answer,
      // The ledger the ports count into, in place or across deliveries: finalizeResult reads it for
      // retry_counts and the retries_used caveat, this pipeline's own retries included.
      retries: { used: models.ledger, budgets: modelRetryPolicy(deps.retryPolicy, parsing).budgets },
      ...(job.scenario ? { scenario: job.scenario } : {}),
    },
    {
      answerer: models.portFor(job.answering),
      judge: models.portFor(parsing),
      ...embedderFor(spec, parsing, models.portFor, deps.embeddingPlace),
      clock: deps.clock,
      log: deps.log,
      codeVerifier: deps.codeVerifier,
      search: deps.searchFor?.(spec.tenant_id),
      // Callable rubric traits run in the QuickJS sandbox; compound traits' units get their own ports.
      callableTraits: deps.callableTraits ?? defaultCallableRunner,
      judgeModels: { model: models.portFor },
      // Agentic rubric traits investigate the question's workspace (an R2 prefix per question of the run).
      workspace: r2Workspace(deps.blobs, workspacePrefix(spec, job.question.id)),
    },
  );
}

/**
 * Parsing models whose result is not yet recorded; results found in R2 are recorded on the way.
 * On a job's first attempt nothing can have been saved yet, so R2 is not asked.
 */
async function pendingParsers(ctx: JobContext): Promise<ModelConfig[]> {
  const { spec, job, claim } = ctx;
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

/**
 * `billed`: the result whose usage this job spent, when it is not `result` itself: a re-scored
 * run's copied result spent nothing (null), one with added traits spent only the traits' calls.
 */
export async function saveAndRecord(
  ctx: JobContext,
  parsing: ModelConfig,
  result: VerificationResult,
  completesJob = false,
  billed: VerificationResult | null = result,
  /** A scenario turn's successor: the coordinator creates and sends it as it records this result. */
  nextTurn?: RecordedResult["next_turn"],
): Promise<void> {
  const { spec, job, deps, coordinator } = ctx;
  // Priced now, with the run's own table, so the coordinator's totals and budget need no prices.
  const usage = billed ? usageRows(billed, job, parsing, priceTable(spec.prices)) : [];
  const stages = (billed?.template?.usage_metadata ?? {}) as Record<string, { cached?: boolean }>;
  const cached = new Set(usage.filter((u) => stages[u.stage]?.cached === true).map((u) => u.key));
  // With the row, before the coordinator records it: a redelivery re-records, and the ledger ignores rows it has.
  const ledger = ledgerRows(spec.tenant_id ?? DEFAULT_TENANT, spec.run_id, usage, cached, deps.clock.now());
  const write = deps.writeResultRow ?? ((item: ResultWrite) => writeResults(deps.db, [item]));
  const verdict = await saveResult(deps.blobs, (row) => write({ row, ledger }), spec, job, parsing, result, deps.clock);
  faultPoint("before_record", { run_id: spec.run_id, job: faultJob(job), parsing: parsing.id });
  await coordinator.record(
    {
      result_id: result.metadata.result_id,
      job_id: job.job_id,
      question_id: job.question.id,
      answering_id: job.answering.id,
      parsing_id: parsing.id,
      verdict,
      usage,
      traits: traitObservations(result),
      ...(nextTurn ? { next_turn: nextTurn } : {}),
    },
    { completesJob },
  );
}

function retryLater(deps: JobDeps, attempts: number, note: string, retryAfterMs?: number): Extract<JobOutcome, { kind: "retry" }> {
  const backoff = deps.retryBaseDelaySeconds * 2 ** Math.max(0, attempts - 1);
  const fromProvider = retryAfterMs ? Math.ceil(retryAfterMs / 1000) : 0;
  return { kind: "retry", delaySeconds: Math.min(300, Math.max(backoff, fromProvider)), note };
}

/** The embedding check's port and model for this judge (src/llm/embedding-model.ts); plan.ts refused the unresolvable. */
function embedderFor(spec: RunSpec, judge: ModelConfig, portFor: (m: ModelConfig) => ModelPort, place: EmbeddingPlace = { local: false }) {
  const e = spec.settings.embedding_check;
  if (!e?.enabled) return {};
  const r = embeddingModel({ model: e.model, provider: e.provider ?? null }, judge, place);
  return "error" in r ? {} : { embedder: portFor(r.config), embedderModel: r.model };
}
