/**
 * `result.created`, the opt-in per-result event: one per result the run records, to endpoints whose
 * event_types name it. The RunCoordinator keeps an outbox of new result ids (only for runs that had
 * such an endpoint when submitted) and hands them here in chunks; each result's D1 row (written
 * before the coordinator hears of the result) supplies the data. The event id derives from the run
 * and the result, so handing a chunk over again (a retry after a failure half-way) duplicates nothing.
 */
import type { Env } from "../env";
import { log } from "../log";
import type { ResultListRow } from "../storage/results-repo";
import { deliverEvents, EVENT_MAX_BYTES, type RunFacts, receives, runFactsOf } from "./emit";
import { listEndpoints } from "./endpoints-repo";
import { apiLink } from "./links";

/** Result ids per hand-over at most: the D1 lookup binds 2 + n parameters (at most 100). */
export const RESULT_EVENTS_PER_FLUSH = 40;
/**
 * Deliveries one hand-over starts at most: each is a D1 statement and a Durable Object call, and
 * an invocation has 1,000 subrequests. With many receivers a hand-over takes fewer results.
 */
export const DELIVERIES_PER_FLUSH = 200;

export const resultEventIdOf = (runId: string, resultId: string) => `msg_${runId}_${resultId}`;

/** A result's indexed columns as D1 returns them (verify_result is SQLite's 0/1). */
type ResultFacts = ResultListRow & { verify_result: number | null };

/** `{type, timestamp, data}`; the ids the tenant chose (question, models, run name) are dropped if they would pass 64 KB. */
export function resultEventBody(at: Date, runId: string, run: RunFacts, r: ResultFacts): string {
  const links = { result: apiLink(run.origin, `/v1/runs/${runId}/results/${r.result_id}`), run: apiLink(run.origin, `/v1/runs/${runId}`) };
  const data = {
    run_id: runId,
    run_name: run.run_name,
    result_id: r.result_id,
    question_id: r.question_id,
    answering_model: r.answering_model,
    parsing_model: r.parsing_model,
    replicate: r.replicate,
    verdict: r.verdict,
    verify_result: r.verify_result === null ? null : r.verify_result === 1,
    failure_category: r.failure_category,
    links,
  };
  const body = JSON.stringify({ type: "result.created", timestamp: at.toISOString(), data });
  if (new TextEncoder().encode(body).length <= EVENT_MAX_BYTES) return body;
  // Server-made ids only (bounded); the rest is one GET of links.result away.
  const { run_id, result_id, verdict, verify_result, failure_category } = data;
  return JSON.stringify({
    type: "result.created",
    timestamp: at.toISOString(),
    data: { run_id, result_id, verdict, verify_result, failure_category, links, fields_omitted: true },
  });
}

/**
 * Emits result.created for the first of `resultIds` (at most RESULT_EVENTS_PER_FLUSH) to the
 * endpoints that receive it now, as many as DELIVERIES_PER_FLUSH allows; returns the ids it handed
 * over (all of them when no endpoint receives the event any more), the caller keeps the rest.
 */
export async function emitResultEvents(
  env: Env,
  run: { tenant_id: string; run_id: string; named_endpoint_ids: readonly string[] },
  resultIds: readonly string[],
  now = new Date(),
): Promise<string[]> {
  if (resultIds.length === 0) return [];
  const named = new Set(run.named_endpoint_ids);
  const receivers = (await listEndpoints(env.DB, run.tenant_id)).filter((e) => receives(e, "result.created", named));
  if (receivers.length === 0) return [...resultIds];
  const taken = resultIds.slice(0, Math.max(1, Math.floor(DELIVERIES_PER_FLUSH / receivers.length)));
  const { results } = await env.DB.prepare(
    `SELECT result_id, question_id, answering_model, parsing_model, replicate, verdict, verify_result, failure_category FROM results
     WHERE tenant_id = ? AND run_id = ? AND result_id IN (${taken.map(() => "?").join(", ")})`,
  )
    .bind(run.tenant_id, run.run_id, ...taken)
    .all<ResultFacts>();
  if (results.length < taken.length) {
    // Cannot happen while a result's row is written before the coordinator records it (src/jobs/row-batcher.ts).
    log.warn("result_event_row_missing", { run_id: run.run_id, missing: taken.length - results.length });
  }
  const facts = await runFactsOf(env, run.tenant_id, run.run_id);
  const events = results.map((r) => ({
    tenant_id: run.tenant_id,
    event_id: resultEventIdOf(run.run_id, r.result_id),
    run_id: run.run_id,
    type: "result.created",
    payload: resultEventBody(now, run.run_id, facts, r),
    created_at: now.toISOString(),
  }));
  await deliverEvents(env, events, receivers);
  return taken;
}
