/**
 * Saving one result: the full result, trace included, to R2 (a deterministic key), then the D1
 * row (upsert on result_id, through `writeRow`). Both overwrite on redelivery, so saving twice leaves one of each.
 */
import type { Clock } from "../pipeline/types";
import { verdictOf, type Verdict } from "../pipeline/verdict";
import type { ModelConfig } from "../schemas/model-config";
import { VerificationResult } from "../schemas/result";
import { DEFAULT_TENANT, r2Keys, type RunRef } from "./r2-keys";
import type { ResultRowRecord } from "./results-repo";

export async function saveResult(
  blobs: R2Bucket,
  /** Upserts the D1 row (directly, or batched with the invocation's other results). */
  writeRow: (row: ResultRowRecord) => Promise<void>,
  run: RunRef,
  /** The job's part of the row (a submit/spec JobRef fits). */
  job: { question: { id: string }; answering: { id: string }; replicate: number },
  parsing: ModelConfig,
  result: VerificationResult,
  clock: Clock,
): Promise<Verdict> {
  const resultId = result.metadata.result_id;
  const verdict = verdictOf(result);
  const resultKey = r2Keys.result(run, resultId);
  await blobs.put(resultKey, JSON.stringify(result), { httpMetadata: { contentType: "application/json" } });
  await writeRow({
    result_id: resultId,
    tenant_id: run.tenant_id ?? DEFAULT_TENANT,
    run_id: run.run_id,
    question_id: job.question.id,
    answering_model: job.answering.id,
    parsing_model: parsing.id,
    replicate: job.replicate,
    verdict,
    verify_result: result.template?.verify_result ?? null,
    failure_category: result.metadata.failure?.category ?? null,
    r2_key: resultKey,
    compact_json: JSON.stringify(compact(result)),
    created_at: new Date(clock.now()).toISOString(),
  });
  return verdict;
}

/** A result as GET …/results lists it: without `template.trace_messages`. */
export type ListedResult = Omit<VerificationResult, "template"> & { template?: Omit<NonNullable<VerificationResult["template"]>, "trace_messages"> | null };

/**
 * The listing form: the trace messages stay in R2 (GET …/results/:result_id has them). The key
 * is left out, not emptied: `[]` would read as an answer with an empty trace.
 */
export function compact(result: VerificationResult): ListedResult {
  if (!result.template) return result;
  const { trace_messages: _inR2, ...template } = result.template;
  return { ...result, template };
}

export async function readSavedResult(
  blobs: R2Bucket,
  run: RunRef,
  resultId: string,
): Promise<VerificationResult | null> {
  const obj = await blobs.get(r2Keys.result(run, resultId));
  if (!obj) return null;
  // Parsed, not cast: an object that is not a result is treated as never saved, so the job judges
  // again and overwrites it instead of recording something it cannot trust.
  const parsed = VerificationResult.safeParse(await obj.json());
  return parsed.success ? parsed.data : null;
}
