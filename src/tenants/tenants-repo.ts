/** D1 access to `tenants`; rows are mapped to records here only. */
import { z } from "zod";
import { LimitOverrides } from "../schemas/tenants";
import { EVERY_TENANT, newestFirstPage, type PageAfter } from "../storage/newest-first";

// Defined with the R2 names it appears in, so storage and the coordinator need not import tenants/.
export { DEFAULT_TENANT } from "../storage/r2-keys";

const TenantRow = z.object({
  tenant_id: z.string(),
  name: z.string(),
  use_deployment_keys: z.number().transform((n) => n === 1),
  limits_json: z.string().transform((s) => LimitOverrides.parse(JSON.parse(s))),
  retention_days: z.number().nullable(),
  disabled: z.number().transform((n) => n === 1),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TenantRecord = z.output<typeof TenantRow>;

export const TENANT_COLUMNS = "tenant_id, name, use_deployment_keys, limits_json, retention_days, disabled, created_at, updated_at";

export function tenantFromRow(row: Record<string, unknown>): TenantRecord {
  return TenantRow.parse(row);
}

export async function getTenant(db: D1Database, tenantId: string): Promise<TenantRecord | null> {
  const row = await db.prepare(`SELECT ${TENANT_COLUMNS} FROM tenants WHERE tenant_id = ?`).bind(tenantId).first();
  return row ? tenantFromRow(row) : null;
}

/** The operator's page of every tenant, newest first (src/storage/newest-first.ts). */
export async function listTenants(db: D1Database, limit: number, after: PageAfter): Promise<TenantRecord[]> {
  const rows = await newestFirstPage<Record<string, unknown>>(
    db,
    { table: "tenants", idColumn: "tenant_id", owner: EVERY_TENANT },
    limit,
    after,
  );
  return rows.map(tenantFromRow);
}

/**
 * How many keys of each tenant could authenticate at `now` (not revoked, not expired): one read
 * for a whole page, the ids bound as one JSON value. A tenant with none is absent from the map.
 */
export async function activeKeyCounts(db: D1Database, tenantIds: readonly string[], now: string): Promise<Map<string, number>> {
  if (tenantIds.length === 0) return new Map();
  const { results } = await db
    .prepare(
      `SELECT tenant_id, COUNT(*) AS n FROM api_keys
       WHERE tenant_id IN (SELECT value FROM json_each(?)) AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)
       GROUP BY tenant_id`,
    )
    .bind(JSON.stringify(tenantIds), now)
    .all<{ tenant_id: string; n: number }>();
  return new Map(results.map((r) => [r.tenant_id, r.n]));
}

export function insertTenant(db: D1Database, t: TenantRecord): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO tenants (tenant_id, name, use_deployment_keys, limits_json, retention_days, disabled, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      t.tenant_id,
      t.name,
      t.use_deployment_keys ? 1 : 0,
      JSON.stringify(t.limits_json),
      t.retention_days,
      t.disabled ? 1 : 0,
      t.created_at,
      t.updated_at,
    );
}

/**
 * The update, to go in one batch with its audit entry (auditIfChanged right after it). It changes
 * the row only if the row is still as read (`readUpdatedAt`; every write moves updated_at forward,
 * `nextUpdatedAt` in src/lib/updated-at.ts): a PATCH that read before another wrote would otherwise write back the other's
 * fields as it had read them, e.g. undo a disable. No row changed: read again and redo.
 */
export function updateTenant(db: D1Database, t: TenantRecord, readUpdatedAt: string): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE tenants SET name = ?, use_deployment_keys = ?, limits_json = ?, retention_days = ?, disabled = ?, updated_at = ?
       WHERE tenant_id = ? AND updated_at = ?`,
    )
    .bind(
      t.name,
      t.use_deployment_keys ? 1 : 0,
      JSON.stringify(t.limits_json),
      t.retention_days,
      t.disabled ? 1 : 0,
      t.updated_at,
      t.tenant_id,
      readUpdatedAt,
    );
}

/** The public view of a tenant (the admin routes answer with it). */
export function tenantView(t: TenantRecord) {
  return {
    tenant_id: t.tenant_id,
    name: t.name,
    use_deployment_keys: t.use_deployment_keys,
    limits: t.limits_json,
    retention_days: t.retention_days,
    disabled: t.disabled,
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}
