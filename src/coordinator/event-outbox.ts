/**
 * The run's webhook events, handed over to src/webhooks from the coordinator: the outbox of new
 * results for `result.created` (a table the record path fills and the alarm empties, a chunk per
 * invocation), then — once the run is finished and the outbox empty — the run's end event, once.
 * The events' ids derive from the run and result ids, so handing over again after a failure
 * half-way duplicates nothing.
 */
import type { Env } from "../env";
import { log } from "../log";
import { EVENT_PAIRS, emitRunEvent } from "../webhooks/emit";
import { emitResultEvents, RESULT_EVENTS_PER_FLUSH } from "../webhooks/result-events";
import type { RunMeta } from "./run-meta";
import type { RunSnapshot } from "./rpc-types";
import type { PairWindow } from "./progress";

/** A webhook event that could not be handed over is tried again this much later. */
export const EMIT_RETRY_MS = 60_000;
/** New results wait this long in the outbox, so one hand-over carries many (result.created). */
export const RESULT_EVENTS_DELAY_MS = 1_000;

/** The `result_events` table: result ids whose result.created is not handed over yet. */
export class ResultOutbox {
  constructor(private readonly sql: SqlStorage) {}

  add(resultId: string): void {
    this.sql.exec("INSERT INTO result_events (result_id) VALUES (?) ON CONFLICT DO NOTHING", resultId);
  }

  first(limit: number): string[] {
    return this.sql
      .exec<{ result_id: string }>("SELECT result_id FROM result_events LIMIT ?", limit)
      .toArray()
      .map((r) => r.result_id);
  }

  remove(resultIds: readonly string[]): void {
    for (const id of resultIds) this.sql.exec("DELETE FROM result_events WHERE result_id = ?", id);
  }
}

export interface FlushHost {
  env: Env;
  meta: RunMeta;
  outbox: ResultOutbox;
  snapshot(pairs: PairWindow): Promise<RunSnapshot | null>;
  now(): number;
}

/**
 * Hands over one chunk of the outbox, then the end event if it is due. Returns when to come back
 * (more outbox, or a failure to retry), or null when nothing is left to hand over.
 */
export async function flushEvents(host: FlushHost): Promise<number | null> {
  const { meta } = host;
  const named = meta.webhookEndpointIds();
  const tenantId = meta.tenantId();
  try {
    const ids = host.outbox.first(RESULT_EVENTS_PER_FLUSH + 1);
    if (ids.length > 0) {
      const run = { tenant_id: tenantId, run_id: meta.runId()!, named_endpoint_ids: named };
      const handed = await emitResultEvents(host.env, run, ids.slice(0, RESULT_EVENTS_PER_FLUSH));
      host.outbox.remove(handed);
      // More waiting: the next hand-over in a fresh invocation (its own subrequest budget).
      if (ids.length > handed.length) return host.now();
    }
    if (!meta.finishedAt() || meta.get("run_event") === "emitted") return null;
    const snap = (await host.snapshot({ offset: 0, limit: EVENT_PAIRS }))!;
    await emitRunEvent(host.env, {
      tenant_id: tenantId,
      run_id: snap.run_id,
      status: snap.status,
      progress: snap.progress,
      pairs: snap.summary,
      pairs_total: snap.pairs_total,
      named_endpoint_ids: named,
    });
    meta.set("run_event", "emitted");
    return null;
  } catch (err) {
    log.warn("webhook_event_emit_failed", { run_id: meta.runId(), error: String(err) });
    return host.now() + EMIT_RETRY_MS;
  }
}
