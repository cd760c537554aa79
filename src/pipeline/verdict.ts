/**
 * The one-word outcome of a result, used for counters and listings:
 *   pass       — no failure and verify_result is true
 *   error      — the judge or the transport failed (retry / system groups): says nothing about the answer
 *   fail       — content, autofail and abstained failures
 *   no_verdict — a rubric_only result: no template verdict exists, the trait scores are the outcome
 *                (counted in no pass/fail/error bucket, so a pass rate is never invented for it)
 */
import type { VerificationResult } from "../schemas/result";

export type Verdict = "pass" | "fail" | "error" | "no_verdict";

export function verdictOf(result: VerificationResult): Verdict {
  const failure = result.metadata.failure;
  if (!failure) {
    if (result.template?.verify_result === true) return "pass";
    return result.metadata.evaluation_mode === "rubric_only" ? "no_verdict" : "error";
  }
  return failure.group === "retry" || failure.group === "system" ? "error" : "fail";
}
