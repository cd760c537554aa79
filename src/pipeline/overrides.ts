/**
 * Every change a stage makes to verify_result goes through here, so each one is logged (Karenina
 * logs overrides at WARNING) as well as recorded in the result (`*_override_applied`, autofail).
 */
import { isRetryable, type LlmError } from "../llm/port";
import type { PipelineInput, PipelinePorts, PipelineState, StagePatch } from "./types";

export function logOverride(
  ports: Pick<PipelinePorts, "log">,
  input: Pick<PipelineInput, "question">,
  stage: string,
  to: boolean,
  why: string,
): void {
  ports.log?.warn("verify_result_override", { stage, question_id: input.question.id, verify_result: to, why });
}

/** A check that could not run: the pipeline goes on, the result says so in metadata.warnings. */
export function warn(ports: Pick<PipelinePorts, "log">, existing: readonly string[] | undefined, event: string, message: string): string[] {
  ports.log?.warn(event, { message });
  return [...(existing ?? []), message];
}

/**
 * A non-fatal check whose model call failed: a warning, and — when the failure is transient —
 * the error, so the job is retried while it has deliveries left (the check may then run).
 */
export function checkFailed(
  ports: Pick<PipelinePorts, "log">,
  state: Pick<PipelineState, "warnings" | "transient_error">,
  event: string,
  message: string,
  error?: LlmError,
): Pick<StagePatch, "warnings" | "transient_error"> {
  const transient = error && isRetryable(error) ? error : state.transient_error;
  return { warnings: warn(ports, state.warnings, event, message), ...(transient ? { transient_error: transient } : {}) };
}
