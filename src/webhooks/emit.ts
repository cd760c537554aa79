/**
 * A run's end → one event and one delivery per receiving endpoint. Called from the
 * RunCoordinator's finish path, which reaches it once per run; the event id is derived from the
 * run (`msg_<run_id>`) and delivery ids from (event, endpoint), with insert-or-ignore, so a
 * repeated emission (a retry after a failure half-way) creates nothing twice and every attempt of
 * every delivery carries the same `webhook-id`.
 */
import type { Env } from "../env";
import { sha256Hex } from "../lib/sha256";
import type { RunStatus } from "../storage/runs-repo";
import { insertDeliveryStatement, insertEventStatement } from "./deliveries-repo";
import { listEndpoints } from "./endpoints-repo";
import type { EventType } from "../schemas/webhooks";

/** Pairs an event carries at most; the rest are one GET …/summary away. */
export const EVENT_PAIRS = 50;
/** The event body's limit in bytes: pairs are dropped (pairs_truncated) until it fits. */
export const EVENT_MAX_BYTES = 64 * 1024;

export interface RunEnd {
  tenant_id: string;
  run_id: string;
  status: RunStatus;
  progress: { total: number; done: number };
  /** The first pairs of the run's summary (at most EVENT_PAIRS are sent). */
  pairs: unknown[];
  pairs_total: number;
  /** Endpoints the run named at submit (webhook_endpoint_ids). */
  named_endpoint_ids: readonly string[];
}

/** The event a final status sends; null while the run is not over. */
export function eventTypeOf(status: RunStatus): EventType | null {
  return status === "queued" || status === "running" ? null : `run.${status}`;
}

export const eventIdOf = (runId: string) => `msg_${runId}`;

export async function deliveryIdOf(eventId: string, endpointId: string): Promise<string> {
  return `dlv_${(await sha256Hex(`${eventId}|${endpointId}`)).slice(0, 32)}`;
}

/** `{type, timestamp, data}` (Standard Webhooks), at most EVENT_MAX_BYTES: fewer pairs until it fits. */
export function eventBody(type: EventType, at: Date, end: RunEnd & { run_name: string | null }): string {
  let pairs = end.pairs.slice(0, EVENT_PAIRS);
  for (;;) {
    const base = `/v1/runs/${end.run_id}`;
    const body = JSON.stringify({
      type,
      timestamp: at.toISOString(),
      data: {
        run_id: end.run_id,
        run_name: end.run_name,
        status: end.status,
        progress: end.progress,
        pairs,
        pairs_truncated: pairs.length < end.pairs_total,
        links: { run: base, summary: `${base}/summary`, results: `${base}/results` },
      },
    });
    if (new TextEncoder().encode(body).length <= EVENT_MAX_BYTES || pairs.length === 0) return body;
    pairs = pairs.slice(0, Math.floor(pairs.length / 2));
  }
}

/** Writes the event and its deliveries, then starts each delivery's dispatcher. No receiver: nothing written. */
export async function emitRunEvent(env: Env, end: RunEnd, now = new Date()): Promise<{ event_id: string; deliveries: string[] } | null> {
  const type = eventTypeOf(end.status);
  if (!type) return null;
  const named = new Set(end.named_endpoint_ids);
  const receivers = (await listEndpoints(env.DB, end.tenant_id)).filter(
    (e) => e.enabled && (e.all_runs || named.has(e.endpoint_id)) && e.event_types_json.includes(type),
  );
  if (receivers.length === 0) return null;
  const run = await env.DB.prepare("SELECT run_name FROM runs WHERE tenant_id = ? AND run_id = ?")
    .bind(end.tenant_id, end.run_id)
    .first<{ run_name: string | null }>();
  const eventId = eventIdOf(end.run_id);
  const at = now.toISOString();
  const payload = eventBody(type, now, { ...end, run_name: run?.run_name ?? null });
  const deliveries = await Promise.all(receivers.map(async (e) => ({ endpoint_id: e.endpoint_id, delivery_id: await deliveryIdOf(eventId, e.endpoint_id) })));
  await env.DB.batch([
    insertEventStatement(env.DB, { tenant_id: end.tenant_id, event_id: eventId, run_id: end.run_id, type, payload, created_at: at }),
    ...deliveries.map((d) => insertDeliveryStatement(env.DB, { tenant_id: end.tenant_id, event_id: eventId, at, ...d })),
  ]);
  await Promise.all(deliveries.map((d) => startDelivery(env, end.tenant_id, d.delivery_id)));
  return { event_id: eventId, deliveries: deliveries.map((d) => d.delivery_id) };
}

/** Each delivery has its own WebhookDispatcher (dispatcher.ts), named by tenant and delivery. */
export function startDelivery(env: Env, tenantId: string, deliveryId: string): Promise<void> {
  return env.WEBHOOKS.getByName(`${tenantId}:${deliveryId}`).start(tenantId, deliveryId);
}
