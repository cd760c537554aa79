/**
 * A run's end → one event and one delivery per receiving endpoint; also who receives what, and the
 * writing and starting of deliveries that result-events.ts shares. Called from the RunCoordinator's
 * finish path, which reaches it once per run; the event id is derived from the run (`msg_<run_id>`)
 * and delivery ids from (event, endpoint), with insert-or-ignore, so a repeated emission (a retry
 * after a failure half-way) creates nothing twice and every attempt of every delivery carries the
 * same `webhook-id`.
 */
import type { Env } from "../env";
import { sha256Hex } from "../lib/sha256";
import type { RunStatus } from "../storage/runs-repo";
import { type EventRecord, insertDeliveryStatement, insertEventStatement } from "./deliveries-repo";
import { type EndpointRecord, listEndpoints } from "./endpoints-repo";
import { runLinks, storedOrigin } from "./links";
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
export function eventBody(type: EventType, at: Date, end: RunEnd & RunFacts): string {
  let pairs = end.pairs.slice(0, EVENT_PAIRS);
  const links = runLinks(end.origin, end.run_id);
  for (;;) {
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
        links,
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
  const receivers = (await listEndpoints(env.DB, end.tenant_id)).filter((e) => receives(e, type, named));
  if (receivers.length === 0) return null;
  const eventId = eventIdOf(end.run_id);
  const payload = eventBody(type, now, { ...end, ...(await runFactsOf(env, end.tenant_id, end.run_id)) });
  const event = { tenant_id: end.tenant_id, event_id: eventId, run_id: end.run_id, type, payload, created_at: now.toISOString() };
  return { event_id: eventId, deliveries: await deliverEvents(env, [event], receivers) };
}

/** Whether an endpoint gets an event of `type` about a run that named `named`: enabled, subscribed, and tenant-wide or named. */
export function receives(e: EndpointRecord, type: EventType, named: ReadonlySet<string>): boolean {
  return e.enabled && (e.all_runs || named.has(e.endpoint_id)) && e.event_types_json.includes(type);
}

/**
 * At submit: the indexes of `named` ids that are not endpoints of the tenant, and whether any
 * endpoint that would receive the run's events takes result.created (the run then keeps an outbox).
 */
export async function webhooksOfRun(
  db: D1Database,
  tenantId: string,
  named: readonly string[],
): Promise<{ unknown: number[]; result_events: boolean }> {
  const endpoints = await listEndpoints(db, tenantId);
  const known = new Set(endpoints.map((e) => e.endpoint_id));
  const namedSet = new Set(named);
  return {
    unknown: named.flatMap((id, i) => (known.has(id) ? [] : [i])),
    result_events: endpoints.some((e) => receives(e, "result.created", namedSet)),
  };
}

/** What an event says of its run besides the run's id: its name, and where its links point (null: paths). */
export interface RunFacts {
  run_name: string | null;
  origin: string | null;
}

export async function runFactsOf(env: Env, tenantId: string, runId: string): Promise<RunFacts> {
  const run = await env.DB.prepare("SELECT run_name, api_origin FROM runs WHERE tenant_id = ? AND run_id = ?")
    .bind(tenantId, runId)
    .first<{ run_name: string | null; api_origin: string | null }>();
  return { run_name: run?.run_name ?? null, origin: storedOrigin(env, run?.api_origin) };
}

/**
 * Writes events and one delivery per (event, receiver) in one D1 batch, insert-or-ignore (ids
 * derive from the event and the endpoint), then starts each delivery's dispatcher. Returns the delivery ids.
 */
export async function deliverEvents(env: Env, events: readonly EventRecord[], receivers: readonly EndpointRecord[]): Promise<string[]> {
  const deliveries = await Promise.all(
    events.flatMap((ev) =>
      receivers.map(async (e) => ({
        tenant_id: ev.tenant_id,
        event_id: ev.event_id,
        endpoint_id: e.endpoint_id,
        at: ev.created_at,
        delivery_id: await deliveryIdOf(ev.event_id, e.endpoint_id),
      })),
    ),
  );
  if (deliveries.length === 0) return [];
  await env.DB.batch([
    ...events.map((ev) => insertEventStatement(env.DB, ev)),
    ...deliveries.map((d) => insertDeliveryStatement(env.DB, d)),
  ]);
  await Promise.all(deliveries.map((d) => startDelivery(env, d.tenant_id, d.delivery_id)));
  return deliveries.map((d) => d.delivery_id);
}

/** Each delivery has its own WebhookDispatcher (dispatcher.ts), named by tenant and delivery. */
export function startDelivery(env: Env, tenantId: string, deliveryId: string, delayMs = 0): Promise<void> {
  return env.WEBHOOKS.getByName(`${tenantId}:${deliveryId}`).start(tenantId, deliveryId, delayMs);
}
