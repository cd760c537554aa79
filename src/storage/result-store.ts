/**
 * Saving one result. A small one (JSON up to INLINE_RESULT_MAX characters) is one D1 row: the
 * compact form plus its trace messages, no R2 object. A larger one goes whole, trace included, to
 * R2 (a deterministic key) first, then the row without the trace. Both overwrite on redelivery
 * (upsert on result_id, through `writeRow`), so saving twice leaves one of each.
 */
import type { Clock } from "../pipeline/types";
import { verdictOf, type Verdict } from "../pipeline/verdict";
import type { ModelConfig } from "../schemas/model-config";
import { VerificationResult } from "../schemas/result";
import { DEFAULT_TENANT, r2Keys, type RunRef } from "./r2-keys";
import { getStoredResult, type ResultRowRecord, type StoredResultRow } from "./results-repo";
import { faultJob, faultPoint } from "../lib/fault-points";

/**
 * Results whose JSON is at most this many characters live in their D1 row only: an R2 put was the
 * largest CPU cost of a result (bench/binding-costs: ~1.4 ms locally, against ~0.7 ms for a whole
 * multi-row D1 upsert). Larger results (long answers, agentic traces) keep D1 lean by going to R2.
 * D1 holds 10 GB per database: the scale model (bench/scale-model.mjs) divides it by the bytes a
 * result takes.
 */
export const INLINE_RESULT_MAX = 16 * 1024;

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
  // Serialised once: the compact form for the row, the trace beside it.
  const compactJson = JSON.stringify(compact(result));
  const traceJson = result.template?.trace_messages !== undefined ? JSON.stringify(result.template.trace_messages) : null;
  const inline = compactJson.length + (traceJson?.length ?? 0) <= INLINE_RESULT_MAX;
  const resultKey = inline ? "" : r2Keys.result(run, resultId);
  // Crash points of the reliability suite (src/lib/fault-points.ts); nothing happens here otherwise.
  const site = { run_id: run.run_id, job: faultJob(job), parsing: parsing.id };
  if (!inline) {
    faultPoint("before_r2", site);
    await blobs.put(resultKey, JSON.stringify(result), { httpMetadata: { contentType: "application/json" } });
    faultPoint("after_r2", site);
  }
  faultPoint("before_d1", site);
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
    compact_json: compactJson,
    // Null for an R2 result; "null" would not do: a template without trace_messages stays without.
    trace_json: inline ? (traceJson ?? NO_TRACE) : null,
    created_at: new Date(clock.now()).toISOString(),
    ...scenarioColumns(result),
  });
  faultPoint("after_d1", site);
  return verdict;
}

/** A scenario turn's columns (null for any other result). */
function scenarioColumns({ metadata: m }: VerificationResult) {
  return {
    scenario_id: m.scenario_id ?? null,
    scenario_node: m.scenario_node ?? null,
    scenario_turn: m.scenario_turn ?? null,
    scenario_path: m.scenario_path ? JSON.stringify(m.scenario_path) : null,
  };
}

/** A result as GET …/results lists it: without `template.trace_messages`. */
export type ListedResult = Omit<VerificationResult, "template"> & {
  template?: Omit<NonNullable<VerificationResult["template"]>, "trace_messages"> | null;
};

/**
 * The listing form: the trace messages stay in R2 (GET …/results/:result_id has them). The key
 * is left out, not emptied: `[]` would read as an answer with an empty trace.
 */
export function compact(result: VerificationResult): ListedResult {
  if (!result.template) return result;
  const { trace_messages: _inR2, ...template } = result.template;
  return { ...result, template };
}

/** trace_json of an inline result whose template has no trace_messages key (or no template). */
const NO_TRACE = "";

/** The full result as saved (JSON text): the row's own, or its R2 object's; null if neither. */
export async function fullResultJson(blobs: R2Bucket, row: StoredResultRow | null): Promise<string | null> {
  if (!row) return null;
  if (row.trace_json !== null) {
    if (row.trace_json === NO_TRACE) return row.compact_json;
    // The trace goes back into the template it came from.
    const c = JSON.parse(row.compact_json) as ListedResult;
    return JSON.stringify({ ...c, template: { ...c.template, trace_messages: JSON.parse(row.trace_json) } });
  }
  const obj = row.r2_key ? await blobs.get(row.r2_key) : null;
  return obj ? obj.text() : null;
}

/**
 * A result an earlier delivery saved (its row, and for a large one its R2 object), for a
 * redelivery to record without judging again.
 */
export async function readSavedResult(blobs: R2Bucket, db: D1Database, run: RunRef, resultId: string): Promise<VerificationResult | null> {
  const row = await getStoredResult(db, run.tenant_id ?? DEFAULT_TENANT, run.run_id, resultId);
  // No row yet: a large result may have reached R2 before the delivery died (R2 is written first).
  const text = await fullResultJson(blobs, row ?? { r2_key: r2Keys.result(run, resultId), compact_json: "", trace_json: null });
  if (text === null) return null;
  // Parsed, not cast: an object that is not a result is treated as never saved, so the job judges
  // again and overwrites it instead of recording something it cannot trust.
  const parsed = VerificationResult.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : null;
}
