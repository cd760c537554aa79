/** D1 `webhook_endpoints`: sealed signing secrets in, metadata out; every query names the tenant. */
import { z } from "zod";
import type { Sealed } from "../lib/secret-crypto";
import { EventType } from "../schemas/webhooks";

const EndpointRow = z.object({
  tenant_id: z.string(),
  endpoint_id: z.string(),
  url: z.string(),
  description: z.string(),
  event_types_json: z.string().transform((s) => z.array(EventType).parse(JSON.parse(s))),
  all_runs: z.number().transform((n) => n === 1),
  enabled: z.number().transform((n) => n === 1),
  disabled_reason: z.string().nullable(),
  ciphertext: z.string(),
  iv: z.string(),
  kek_version: z.number(),
  prev_ciphertext: z.string().nullable(),
  prev_iv: z.string().nullable(),
  prev_kek_version: z.number().nullable(),
  prev_expires_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type EndpointRecord = z.output<typeof EndpointRow>;

/** What the API shows: never the secret, sealed or not. */
export function endpointView(e: EndpointRecord) {
  return {
    endpoint_id: e.endpoint_id,
    url: e.url,
    description: e.description,
    event_types: e.event_types_json,
    all_runs: e.all_runs,
    enabled: e.enabled,
    disabled_reason: e.disabled_reason,
    // During a rotation both secrets sign until then.
    previous_secret_expires_at: e.prev_expires_at,
    created_at: e.created_at,
    updated_at: e.updated_at,
  };
}

/** The secrets that sign now: the current one, and the previous one while its overlap lasts. */
export function signingSecrets(e: EndpointRecord, now: Date): Sealed[] {
  const current = { ciphertext: e.ciphertext, iv: e.iv, kek_version: e.kek_version };
  if (e.prev_ciphertext === null || e.prev_iv === null || e.prev_kek_version === null || e.prev_expires_at === null) return [current];
  if (Date.parse(e.prev_expires_at) <= now.getTime()) return [current];
  return [{ ciphertext: e.prev_ciphertext, iv: e.prev_iv, kek_version: e.prev_kek_version }, current];
}

/**
 * Endpoints a tenant may have: an event starts one delivery per receiving endpoint from one
 * invocation (a D1 statement and a Durable Object call each, of 1,000 subrequests).
 */
export const MAX_ENDPOINTS_PER_TENANT = 20;

/** False (nothing written) when the tenant already has MAX_ENDPOINTS_PER_TENANT: the count and the insert are one statement. */
/**
 * False when the tenant has MAX_ENDPOINTS_PER_TENANT already. `withRows` go in the same batch right
 * after the insert (its audit entry, by auditIfChanged: written only if the endpoint was).
 */
export async function insertEndpoint(db: D1Database, e: EndpointRecord, withRows: readonly D1PreparedStatement[] = []): Promise<boolean> {
  const insert = db
    .prepare(
      `INSERT INTO webhook_endpoints (tenant_id, endpoint_id, url, description, event_types_json, all_runs, enabled, disabled_reason,
         ciphertext, iv, kek_version, created_at, updated_at)
       SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE (SELECT COUNT(*) FROM webhook_endpoints WHERE tenant_id = ?) < ?`,
    )
    .bind(
      e.tenant_id,
      e.endpoint_id,
      e.url,
      e.description,
      JSON.stringify(e.event_types_json),
      Number(e.all_runs),
      Number(e.enabled),
      e.disabled_reason,
      e.ciphertext,
      e.iv,
      e.kek_version,
      e.created_at,
      e.updated_at,
      e.tenant_id,
      MAX_ENDPOINTS_PER_TENANT,
    );
  const [res] = await db.batch([insert, ...withRows]);
  return res!.meta.changes > 0;
}

export async function getEndpoint(db: D1Database, tenantId: string, endpointId: string): Promise<EndpointRecord | null> {
  const row = await db
    .prepare("SELECT * FROM webhook_endpoints WHERE tenant_id = ? AND endpoint_id = ?")
    .bind(tenantId, endpointId)
    .first();
  return row ? EndpointRow.parse(row) : null;
}

export async function listEndpoints(db: D1Database, tenantId: string): Promise<EndpointRecord[]> {
  const { results } = await db
    .prepare("SELECT * FROM webhook_endpoints WHERE tenant_id = ? ORDER BY created_at, endpoint_id")
    .bind(tenantId)
    .all();
  return results.map((r) => EndpointRow.parse(r));
}

/** Settable fields; `enabled: true` clears the reason it was disabled. */
/** A statement, for the batch that changes the endpoint with its audit entry (auditIfChanged right after it). */
export function updateEndpoint(
  db: D1Database,
  tenantId: string,
  endpointId: string,
  patch: { url?: string; description?: string; event_types?: string[]; all_runs?: boolean; enabled?: boolean },
  now: string,
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE webhook_endpoints SET url = COALESCE(?, url), description = COALESCE(?, description),
         event_types_json = COALESCE(?, event_types_json), all_runs = COALESCE(?, all_runs), enabled = COALESCE(?, enabled),
         disabled_reason = CASE WHEN ? = 1 THEN NULL ELSE disabled_reason END, updated_at = ?
       WHERE tenant_id = ? AND endpoint_id = ?`,
    )
    .bind(
      patch.url ?? null,
      patch.description ?? null,
      patch.event_types ? JSON.stringify(patch.event_types) : null,
      patch.all_runs === undefined ? null : Number(patch.all_runs),
      patch.enabled === undefined ? null : Number(patch.enabled),
      patch.enabled === true ? 1 : 0,
      now,
      tenantId,
      endpointId,
    );
}

/** The receiver said 410 Gone: no further attempts to it until the tenant enables it again. */
export async function disableEndpoint(db: D1Database, tenantId: string, endpointId: string, reason: string, now: string): Promise<void> {
  await db
    .prepare("UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE tenant_id = ? AND endpoint_id = ?")
    .bind(reason, now, tenantId, endpointId)
    .run();
}

/** The current secret becomes the previous one (signing until `prevExpiresAt`); `next` is the new one. */
/** A statement, for the batch that rotates the secret with its audit entry (auditIfChanged right after it). */
export function rotateEndpointSecret(
  db: D1Database,
  tenantId: string,
  endpointId: string,
  next: Sealed,
  prevExpiresAt: string,
  now: string,
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE webhook_endpoints SET prev_ciphertext = ciphertext, prev_iv = iv, prev_kek_version = kek_version, prev_expires_at = ?,
         ciphertext = ?, iv = ?, kek_version = ?, updated_at = ? WHERE tenant_id = ? AND endpoint_id = ?`,
    )
    .bind(prevExpiresAt, next.ciphertext, next.iv, next.kek_version, now, tenantId, endpointId);
}

/**
 * The endpoint, its delivery log, and the events no other endpoint's delivery still needs (they
 * hold run names and pair summaries). A dispatcher still pending finds its delivery gone and stops.
 */
/** `withRows` go in the same batch right after the endpoint's delete (its audit entry, by auditIfChanged). */
export async function deleteEndpoint(
  db: D1Database,
  tenantId: string,
  endpointId: string,
  withRows: readonly D1PreparedStatement[] = [],
): Promise<boolean> {
  const deliveries = "SELECT delivery_id FROM webhook_deliveries WHERE tenant_id = ? AND endpoint_id = ?";
  const [, , , endpoint] = await db.batch([
    db.prepare(`DELETE FROM webhook_attempts WHERE tenant_id = ? AND delivery_id IN (${deliveries})`).bind(tenantId, tenantId, endpointId),
    db.prepare("DELETE FROM webhook_deliveries WHERE tenant_id = ? AND endpoint_id = ?").bind(tenantId, endpointId),
    db
      .prepare(
        `DELETE FROM webhook_events WHERE tenant_id = ? AND NOT EXISTS
           (SELECT 1 FROM webhook_deliveries d WHERE d.tenant_id = webhook_events.tenant_id AND d.event_id = webhook_events.event_id)`,
      )
      .bind(tenantId),
    db.prepare("DELETE FROM webhook_endpoints WHERE tenant_id = ? AND endpoint_id = ?").bind(tenantId, endpointId),
    ...withRows,
  ]);
  return endpoint!.meta.changes > 0;
}
