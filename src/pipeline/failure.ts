/**
 * Karenina's failure classifier: the first matching rule wins.
 *  1. an autofail stage (none in this stage set yet)
 *  2. template verification ran and said false → content (beats retry exhaustion)
 *  3. a stage error, already categorised where it happened (retry group, template_validation,
 *     parsing, unexpected_error)
 *  4. otherwise a pass: no failure.
 */
import { FAILURE_GROUP } from "../schemas/result";
import type { VerificationResult } from "../schemas/result";
import type { PipelineState } from "./types";

export type Failure = NonNullable<VerificationResult["metadata"]["failure"]>;

export function classifyFailure(state: PipelineState): Failure | null {
  const v = state.verification;
  if (v && !v.verify_result) {
    return {
      category: "content",
      group: FAILURE_GROUP.content,
      stage: "verify_template",
      reason: contentReason(v.field_results, v.regex_validation_results, v.field_verification_error),
    };
  }
  if (state.error) {
    const { category, stage, reason } = state.error;
    return { category, group: FAILURE_GROUP[category], stage, reason };
  }
  return null;
}

function contentReason(
  fields: Record<string, boolean | null>,
  regex: Record<string, boolean> | null,
  fieldError: string | null,
): string {
  const failed = Object.entries(fields).filter(([, ok]) => ok === false).map(([f]) => f);
  const missing = Object.entries(fields).filter(([, ok]) => ok === null).map(([f]) => f);
  const regexFailed = Object.entries(regex ?? {}).filter(([, ok]) => !ok).map(([n]) => n);
  const parts = [
    failed.length ? `fields not matching the ground truth: ${failed.join(", ")}` : "",
    missing.length ? `fields the judge left empty: ${missing.join(", ")}` : "",
    regexFailed.length ? `regex checks failed: ${regexFailed.join(", ")}` : "",
    fieldError ? `verification error: ${fieldError}` : "",
  ].filter(Boolean);
  return parts.join("; ") || "verification returned false";
}
