/**
 * One scenario turn as a job (src/scenarios): a chain of jobs, one per turn, each created by the
 * run's coordinator when the previous turn is recorded (RecordedResult.next_turn).
 *
 * The turn's job reads the scenario state its predecessor left in the coordinator (the claim
 * carries it; turn 0 starts from the entry node), plans the turn (`beginTurn`: node, question
 * after a handover, chat history, conditional ground truth), and from there is a job like any
 * other with one parsing model: the answer is checkpointed, judged, saved, recorded. `endTurn`
 * then decides the next node from the result alone, so a redelivery that finds the result saved
 * computes the same next turn without calling a model. A chain's last turn writes Karenina's
 * scenario record (outcome criteria evaluated) to D1 before it is recorded.
 *
 * A redelivered turn is not run twice: the claim (lease, finished jobs) stops a second delivery,
 * and a saved result is recorded, not judged again.
 */
import { isRetryable } from "../llm/port";
import { guardOn } from "../lib/guards";
import { computeResultId } from "../pipeline/ids";
import type { ScenarioTurnRef } from "../pipeline/types";
import { beginTurn, endTurn, scenarioResult } from "../scenarios/engine";
import { resolveGroundTruths } from "../scenarios/conditional-ground-truth";
import { initialState, ScenarioState } from "../scenarios/state";
import type { VerificationResult } from "../schemas/result";
import { DEFAULT_TENANT } from "../storage/r2-keys";
import { readSavedResult } from "../storage/result-store";
import { upsertScenarioResult } from "../storage/scenario-results-repo";
import { chainId, type TurnJobRef, turnJobId } from "../submit/spec";
import { turnOutcome } from "./turn-outcome";
import { answerFor } from "./answer-step";
import { COMPLETE, handBack, type JobContext, type JobOutcome, jobModels, stopCancelled, stoppedByCancel } from "./job-runner";
import { judge } from "./judge-step";
import { saveAndRecord } from "./save-step";

/** Karenina's default `scenario_turn_limit`, for specs written without one. */
const DEFAULT_TURN_LIMIT = 20;

export async function runTurnJob(base: Omit<JobContext, "job">, turn: TurnJobRef): Promise<JobOutcome> {
  const { spec, claim, deps } = base;
  const state = turn.key.turn === 0 ? initialState(turn.scenario.entry_node) : readState(claim.scenario_state);
  if (!state) {
    deps.log.warn("scenario_turn_without_state", { run_id: spec.run_id, job_id: turn.job_id });
    await base.coordinator.completeJob(turn.job_id);
    return { kind: "ack", note: "scenario turn without its state: ended" };
  }
  const begun = beginTurn(turn.scenario, state, { answering_id: turn.answering.id, system_prompt: turn.answering.system_prompt ?? null });
  const { plan } = begun;
  const node = turn.scenario.nodes[plan.node_id]!;
  const template = node.question.template && resolveGroundTruths(node.question.template, node.conditional_ground_truth, state.node_results);
  const scenario: ScenarioTurnRef = {
    scenario_id: turn.scenario.name,
    scenario_node: plan.node_id,
    scenario_turn: plan.turn,
    scenario_path: plan.path,
  };
  const ctx: JobContext = {
    ...base,
    job: {
      job_id: turn.job_id,
      question: { ...node.question, question: plan.question_text, ...(template ? { template } : {}) },
      answering: turn.answering,
      replicate: turn.replicate,
      scenario,
      history: plan.history,
    },
  };
  const finish = (result: VerificationResult, billed: VerificationResult | null) => finishTurn(ctx, turn, begun, result, billed);

  if (claim.attempts > 1) {
    const resultId = await computeResultId({
      run_id: spec.run_id,
      question_id: node.question.id,
      answering: turn.answering,
      parsing: turn.parsing,
      replicate: turn.replicate,
      scenario,
    });
    const saved = guardOn("saved_results") ? await readSavedResult(deps.blobs, deps.db, spec, resultId) : null;
    if (saved) return finish(saved, saved);
  }
  const models = await jobModels(ctx);
  const { outcome: answer, checkpoint } = await answerFor(ctx, models, null);
  if (!answer.ok && stoppedByCancel(ctx, answer.error.llm)) return stopCancelled(ctx);
  if (!answer.ok && answer.error.llm && isRetryable(answer.error.llm) && !answer.error.llm.exhausted && !ctx.finalAttempt) {
    return handBack(ctx, models, answer.error.reason, answer.error.llm);
  }
  const outcome = await judge(ctx, models, answer, turn.parsing);
  await checkpoint;
  if (stoppedByCancel(ctx, outcome.retryable)) return stopCancelled(ctx);
  if (outcome.retryable && !outcome.retryable.exhausted && !ctx.finalAttempt) {
    return handBack(ctx, models, outcome.result.metadata.error ?? "transient", outcome.retryable);
  }
  return finish(outcome.result, outcome.result);
}

/** The turn's end: the next turn's job and state, or the chain's record, with the result recorded. */
async function finishTurn(
  ctx: JobContext,
  turn: TurnJobRef,
  begun: ReturnType<typeof beginTurn>,
  result: VerificationResult,
  billed: VerificationResult | null,
): Promise<JobOutcome> {
  const { spec, deps } = ctx;
  const end = endTurn(turn.scenario, begun.state, begun.plan, turnOutcome(result), spec.scenario_turn_limit ?? DEFAULT_TURN_LIMIT);
  if (end.kind === "end") {
    const record = scenarioResult(turn.scenario, end, spec.replicate_count === 1 ? null : turn.replicate);
    await upsertScenarioResult(deps.db, {
      tenant_id: spec.tenant_id ?? DEFAULT_TENANT,
      run_id: spec.run_id,
      chain_id: chainId(turn.key),
      answering_model: turn.answering.id,
      parsing_model: turn.parsing.id,
      record,
      created_at: new Date(deps.clock.now()).toISOString(),
    }).run();
  }
  const next =
    end.kind === "next" ? { job_id: turnJobId({ ...turn.key, turn: turn.key.turn + 1 }), state: JSON.stringify(end.state) } : undefined;
  await saveAndRecord(ctx, turn.parsing, result, true, billed, next);
  return COMPLETE;
}

/** The state the previous turn left, parsed (not cast): a row that is not a state is no state. */
function readState(json: string | null | undefined): ScenarioState | null {
  if (!json) return null;
  try {
    const parsed = ScenarioState.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
