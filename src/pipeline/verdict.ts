/**
 * The one-word outcome of a result, used for counters and listings:
 *   pass  — no failure and verify_result is true
 *   error — the judge or the transport failed (retry / system groups): says nothing about the answer
 *   fail  — everything else (content, autofail, abstained)
 */
import type { VerificationResult } from "../schemas/result";

export type Verdict = "pass" | "fail" | "error";

export function verdictOf(result: VerificationResult): Verdict {
  const failure = result.metadata.failure;
  if (!failure) return result.template?.verify_result === true ? "pass" : "error";
  return failure.group === "retry" || failure.group === "system" ? "error" : "fail";
}
