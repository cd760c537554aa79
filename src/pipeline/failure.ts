/**
 * Karenina's failure classifier and caveats (failure_classifier.py), over the final pipeline
 * state. First matching rule wins:
 *  1. an autofail stage (recursion limit, trace validation, deep judgment) — decisive
 *  2. template verification ran and could not decide (verify_result null: a regex past its step
 *     budget, custom verify code that failed to run) → template_validation (group system);
 *     verification ran and said false → content (beats retry exhaustion)
 *  3. a transient model error (timeout, connection, rate_limit, server_error); it only reaches a
 *     result on the job's last delivery, i.e. when its retries are exhausted. A timeout marked
 *     `not_retried` (an agent's partial trace not scored) keeps its own reason
 *  4. abstention, then sufficiency (the guards forced verify_result false)
 *  5. template_validation
 *  6. an error in parse_template → parsing
 *  7. any other error → unexpected_error
 *  8. otherwise a pass: no failure.
 * "The judge failed" never lands in content: a judge failure is an error (rules 3, 6, 7).
 */
import { FAILURE_GROUP } from "../schemas/result";
import type { FailureCategory, VerificationResult } from "../schemas/result";
import { TRANSIENT_KINDS } from "../llm/port";
import { truncate } from "./llm-failure";
import type { PipelineInput, PipelineState, RetryLedgerView } from "./types";

export type Failure = NonNullable<VerificationResult["metadata"]["failure"]>;

const RETRY_CATEGORIES: ReadonlySet<FailureCategory> = new Set(TRANSIENT_KINDS);

const make = (category: FailureCategory, stage: string, reason: string, details?: Record<string, unknown>): Failure => ({
  category,
  group: FAILURE_GROUP[category],
  stage,
  reason: truncate(reason.trim() || category),
  ...(details ? { details } : {}),
});

export function classifyFailure(state: PipelineState): Failure | null {
  if (state.autofail) return make(state.autofail.category, state.autofail.stage, state.autofail.reason);

  const v = state.verification;
  if (v && v.verify_result === null) {
    return make("template_validation", "verify_template", v.field_verification_error ?? "verification could not decide");
  }
  if (v && !v.verify_result) {
    return make("content", "verify_template", contentReason(v.field_results, v.regex_validation_results, v.field_verification_error));
  }
  const error = state.error;
  if (error && RETRY_CATEGORIES.has(error.category)) {
    const reason = error.not_retried ? error.reason : `${error.category} retries exhausted: ${error.reason}`;
    return make(error.category, error.stage, reason, { error_message: error.reason });
  }
  if (state.abstention?.override_applied) {
    return make("abstention", "abstention_check", state.abstention.reasoning ?? "model abstained");
  }
  if (state.sufficiency?.override_applied) {
    return make("sufficiency", "sufficiency_check", state.sufficiency.reasoning ?? "insufficient response");
  }
  if (!error) return null;
  if (error.category === "template_validation") return make("template_validation", error.stage, error.reason);
  if (error.stage === "parse_template" && error.category === "parsing") {
    return make("parsing", "parse_template", error.reason, { error_message: error.reason });
  }
  return make("unexpected_error", error.stage, error.reason, { error_message: error.reason });
}

export type Caveat = "partial_content" | "embedding_override" | "parse_decision_malformed" | "retries_used";

/**
 * Informational caveats, in Karenina's order. `partial_content`: the answer is an agent's trace
 * cut off by its wall-time limit (whether or not it was scored). `parse_decision_malformed` is
 * not emitted: a malformed dynamic parsing decision escalates (stage 7b) without the caveat.
 */
export function collectCaveats(state: PipelineState, input: Pick<PipelineInput, "retries">): Caveat[] {
  const caveats: Caveat[] = [];
  if (state.answer?.response_timeout_partial) caveats.push("partial_content");
  if (state.embedding?.override_applied) caveats.push("embedding_override");
  if (input.retries && TRANSIENT_KINDS.some((k) => input.retries!.used[k] > 0)) caveats.push("retries_used");
  return caveats;
}

/** Karenina's metadata.retry_counts {class: {used, budget}}, for the classes the job retried. */
export function retryCounts(retries: RetryLedgerView): Record<string, { used: number; budget: number }> {
  return Object.fromEntries(
    TRANSIENT_KINDS.filter((k) => retries.used[k] > 0).map((k) => [k, { used: retries.used[k], budget: retries.budgets[k] }]),
  );
}

function contentReason(fields: Record<string, boolean | null>, regex: Record<string, boolean> | null, fieldError: string | null): string {
  const failed = Object.entries(fields)
    .filter(([, ok]) => ok === false)
    .map(([f]) => f);
  const missing = Object.entries(fields)
    .filter(([, ok]) => ok === null)
    .map(([f]) => f);
  const regexFailed = Object.entries(regex ?? {})
    .filter(([, ok]) => !ok)
    .map(([n]) => n);
  const parts = [
    failed.length ? `fields not matching the ground truth: ${failed.join(", ")}` : "",
    missing.length ? `fields the judge left empty: ${missing.join(", ")}` : "",
    regexFailed.length ? `regex checks failed: ${regexFailed.join(", ")}` : "",
    fieldError ? `verification error: ${fieldError}` : "",
  ].filter(Boolean);
  return parts.join("; ") || "verification returned false";
}
