/**
 * One job's share of the parent run (edge): the parent's stored results for the same question,
 * answering model and replicate, read whole (the D1 row, or its R2 object for a large one), and
 * the answer they graded. The coordinator's answer rows are gone once a job finishes, so the
 * stored results are where a finished run's answers are.
 */
import type { AnswerArtifact } from "../pipeline/types";
import { VerificationResult } from "../schemas/result";
import { fullResultJson } from "../storage/result-store";
import { jobResultRows } from "../storage/results-repo";
import { answerOf } from "./reuse";

export interface ParentJob {
  /** By parsing model id. */
  results: Map<string, VerificationResult>;
  /** The answer the parent's results graded; null when it has none (its answering call failed). */
  answer: AnswerArtifact | null;
}

export async function loadParentJob(
  blobs: R2Bucket,
  db: D1Database,
  parent: { tenant_id: string; run_id: string },
  job: { question_id: string; answering_id: string; replicate: number },
): Promise<ParentJob> {
  const results = new Map<string, VerificationResult>();
  let answer: AnswerArtifact | null = null;
  for (const row of await jobResultRows(db, parent, job)) {
    const text = await fullResultJson(blobs, row);
    const parsed = text === null ? null : VerificationResult.safeParse(JSON.parse(text));
    // A row that does not parse as a result is not reused: the child grades that tuple afresh.
    if (!parsed?.success) continue;
    results.set(row.parsing_model, parsed.data);
    answer ??= answerOf(parsed.data);
  }
  return { results, answer };
}
