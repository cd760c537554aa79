/** D1 `webhook_events`, `webhook_deliveries`, `webhook_attempts`; every query names the tenant. */
import { z } from "zod";

export const DeliveryStatus = z.enum(["pending", "delivered", "failed"]);

const DeliveryRow = z.object({
  tenant_id: z.string(),
  delivery_id: z.string(),
  event_id: z.string(),
  endpoint_id: z.string(),
  status: DeliveryStatus,
  attempts: z.number(),
  schedule_step: z.number(),
  next_attempt_at: z.string().nullable(),
  last_status_code: z.number().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DeliveryRecord = z.output<typeof DeliveryRow>;

const AttemptRow = z.object({
  delivery_id: z.string(),
  attempt: z.number(),
  at: z.string(),
  webhook_timestamp: z.number(),
  status_code: z.number().nullable(),
  error: z.string().nullable(),
});

export interface EventRecord {
  tenant_id: string;
  event_id: string;
  run_id: string;
  type: string;
  payload: string;
  created_at: string;
}

/** Inserting an event or a delivery twice keeps the first: emission may be repeated safely. */
export function insertEventStatement(db: D1Database, e: EventRecord): D1PreparedStatement {
  return db
    .prepare(
      "INSERT INTO webhook_events (tenant_id, event_id, run_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
    )
    .bind(e.tenant_id, e.event_id, e.run_id, e.type, e.payload, e.created_at);
}

export function insertDeliveryStatement(
  db: D1Database,
  d: { tenant_id: string; delivery_id: string; event_id: string; endpoint_id: string; at: string },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO webhook_deliveries (tenant_id, delivery_id, event_id, endpoint_id, status, attempts, schedule_step, next_attempt_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'pending', 0, 0, ?, ?, ?) ON CONFLICT DO NOTHING`,
    )
    .bind(d.tenant_id, d.delivery_id, d.event_id, d.endpoint_id, d.at, d.at, d.at);
}

export async function getEvent(db: D1Database, tenantId: string, eventId: string): Promise<EventRecord | null> {
  return db.prepare("SELECT * FROM webhook_events WHERE tenant_id = ? AND event_id = ?").bind(tenantId, eventId).first<EventRecord>();
}

export async function getDelivery(db: D1Database, tenantId: string, deliveryId: string): Promise<DeliveryRecord | null> {
  const row = await db
    .prepare("SELECT * FROM webhook_deliveries WHERE tenant_id = ? AND delivery_id = ?")
    .bind(tenantId, deliveryId)
    .first();
  return row ? DeliveryRow.parse(row) : null;
}

/** One attempt's outcome: the attempt row and the delivery's new state, in one batch. */
export async function recordAttempt(
  db: D1Database,
  d: DeliveryRecord,
  a: { at: string; webhook_timestamp: number; status_code: number | null; error: string | null },
  next: { status: "pending" | "delivered" | "failed"; next_attempt_at: string | null },
): Promise<void> {
  const attempt = d.attempts + 1;
  await db.batch([
    db
      .prepare(
        "INSERT INTO webhook_attempts (tenant_id, delivery_id, attempt, at, webhook_timestamp, status_code, error) VALUES (?, ?, ?, ?, ?, ?, ?)",
      )
      .bind(d.tenant_id, d.delivery_id, attempt, a.at, a.webhook_timestamp, a.status_code, a.error),
    db
      .prepare(
        `UPDATE webhook_deliveries SET status = ?, attempts = ?, schedule_step = schedule_step + 1, next_attempt_at = ?, last_status_code = ?,
           last_error = ?, updated_at = ? WHERE tenant_id = ? AND delivery_id = ?`,
      )
      .bind(next.status, attempt, next.next_attempt_at, a.status_code, a.error, a.at, d.tenant_id, d.delivery_id),
  ]);
}

/** A delivery that will not be attempted (its endpoint is gone or disabled). */
export async function failDelivery(db: D1Database, d: DeliveryRecord, reason: string, at: string): Promise<void> {
  await db
    .prepare(
      "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = ?, updated_at = ? WHERE tenant_id = ? AND delivery_id = ?",
    )
    .bind(reason, at, d.tenant_id, d.delivery_id)
    .run();
}

/** POST …/retry: a finished delivery starts a fresh schedule (its attempt log keeps growing). */
export async function restartDelivery(db: D1Database, tenantId: string, deliveryId: string, at: string): Promise<boolean> {
  const res = await db
    .prepare(
      `UPDATE webhook_deliveries SET status = 'pending', schedule_step = 0, next_attempt_at = ?, updated_at = ?
       WHERE tenant_id = ? AND delivery_id = ? AND status <> 'pending'`,
    )
    .bind(at, at, tenantId, deliveryId)
    .run();
  return res.meta.changes > 0;
}

const ATTEMPT_IDS_PER_QUERY = 90;

/** An endpoint's deliveries, newest first, each with its attempts and its event's type and run. */
export async function listDeliveries(
  db: D1Database,
  tenantId: string,
  endpointId: string,
  limit: number,
  before: { created_at: string; delivery_id: string } | null,
) {
  const { results } = await db
    .prepare(
      `SELECT d.*, e.type AS event_type, e.run_id AS run_id FROM webhook_deliveries d
         JOIN webhook_events e ON e.tenant_id = d.tenant_id AND e.event_id = d.event_id
       WHERE d.tenant_id = ? AND d.endpoint_id = ? AND (? IS NULL OR (d.created_at, d.delivery_id) < (?, ?))
       ORDER BY d.created_at DESC, d.delivery_id DESC LIMIT ?`,
    )
    .bind(tenantId, endpointId, before?.created_at ?? null, before?.created_at ?? null, before?.delivery_id ?? null, limit)
    .all<Record<string, unknown>>();
  const deliveries = results.map((r) => ({ ...DeliveryRow.parse(r), event_type: String(r.event_type), run_id: String(r.run_id) }));
  if (deliveries.length === 0) return [];
  // A page may hold up to 500 deliveries; D1 binds at most 100 parameters a query.
  const ids = deliveries.map((d) => d.delivery_id);
  const chunks = Array.from({ length: Math.ceil(ids.length / ATTEMPT_IDS_PER_QUERY) }, (_, i) =>
    ids.slice(i * ATTEMPT_IDS_PER_QUERY, (i + 1) * ATTEMPT_IDS_PER_QUERY),
  );
  const pages = await db.batch(
    chunks.map((chunk) =>
      db
        .prepare(
          `SELECT delivery_id, attempt, at, webhook_timestamp, status_code, error FROM webhook_attempts
           WHERE tenant_id = ? AND delivery_id IN (${chunk.map(() => "?").join(", ")}) ORDER BY attempt`,
        )
        .bind(tenantId, ...chunk),
    ),
  );
  const byDelivery = new Map<string, z.output<typeof AttemptRow>[]>();
  for (const a of pages.flatMap((p) => p.results).map((r) => AttemptRow.parse(r)))
    byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a]);
  return deliveries.map((d) => ({
    delivery_id: d.delivery_id,
    event_id: d.event_id,
    event_type: d.event_type,
    // A test event has no run (src/webhooks/test-event.ts).
    run_id: d.run_id || null,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.next_attempt_at,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    created_at: d.created_at,
    updated_at: d.updated_at,
    attempt_log: (byDelivery.get(d.delivery_id) ?? []).map(({ delivery_id: _, ...a }) => a),
  }));
}
