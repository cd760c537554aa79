/**
 * D1 access to `api_keys`. Every query but the auth lookup names the tenant, so a key id of
 * another tenant is simply not found.
 */
import { z } from "zod";
import { Scope } from "../schemas/scopes";
import { newestFirstPage, type PageAfter } from "../storage/newest-first";
import { TENANT_COLUMNS, type TenantRecord, tenantFromRow } from "./tenants-repo";

const KeyRow = z.object({
  key_id: z.string(),
  tenant_id: z.string(),
  name: z.string(),
  scopes: z.string().transform((s) => z.array(Scope).parse(JSON.parse(s))),
  key_hash: z.string(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  rotated_from: z.string().nullable(),
});
export type KeyRecord = z.output<typeof KeyRow>;

const KEY_COLUMNS = "key_id, tenant_id, name, scopes, key_hash, created_at, expires_at, revoked_at, last_used_at, rotated_from";

export function insertKey(db: D1Database, k: KeyRecord): D1PreparedStatement {
  return db
    .prepare(`INSERT INTO api_keys (${KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .bind(
      k.key_id,
      k.tenant_id,
      k.name,
      JSON.stringify(k.scopes),
      k.key_hash,
      k.created_at,
      k.expires_at,
      k.revoked_at,
      k.last_used_at,
      k.rotated_from,
    );
}

/** The auth lookup: the key and its tenant in one indexed read (primary key); authenticate keeps it 2 s (auth-cache.ts). */
export async function findKeyForAuth(db: D1Database, keyId: string): Promise<{ key: KeyRecord; tenant: TenantRecord } | null> {
  const tenantCols = TENANT_COLUMNS.split(", ")
    .map((c) => `t.${c} AS t_${c}`)
    .join(", ");
  const keyCols = KEY_COLUMNS.split(", ")
    .map((c) => `k.${c}`)
    .join(", ");
  const row = await db
    .prepare(`SELECT ${keyCols}, ${tenantCols} FROM api_keys k JOIN tenants t ON t.tenant_id = k.tenant_id WHERE k.key_id = ?`)
    .bind(keyId)
    .first<Record<string, unknown>>();
  if (!row) return null;
  const tenant: Record<string, unknown> = {};
  for (const c of TENANT_COLUMNS.split(", ")) tenant[c] = row[`t_${c}`];
  return { key: KeyRow.parse(row), tenant: tenantFromRow(tenant) };
}

export async function getKey(db: D1Database, tenantId: string, keyId: string): Promise<KeyRecord | null> {
  const row = await db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE tenant_id = ? AND key_id = ?`).bind(tenantId, keyId).first();
  return row ? KeyRow.parse(row) : null;
}

/** A page of the tenant's keys, revoked ones included, newest first (src/storage/newest-first.ts). */
export async function listKeys(db: D1Database, tenantId: string, limit: number, after: PageAfter): Promise<KeyRecord[]> {
  const rows = await newestFirstPage<unknown>(db, { table: "api_keys", idColumn: "key_id", owner: { tenant_id: tenantId } }, limit, after);
  return rows.map((r) => KeyRow.parse(r));
}

/** Revokes the key: it changes a row only if the key is the tenant's and not revoked already. */
export function revokeKey(db: D1Database, tenantId: string, keyId: string, now: string): D1PreparedStatement {
  return db
    .prepare("UPDATE api_keys SET revoked_at = ? WHERE tenant_id = ? AND key_id = ? AND revoked_at IS NULL")
    .bind(now, tenantId, keyId);
}

export async function touchKey(db: D1Database, keyId: string, now: string): Promise<void> {
  await db.prepare("UPDATE api_keys SET last_used_at = ? WHERE key_id = ?").bind(now, keyId).run();
}

/** What a listing shows: never the hash. */
export function keyView(k: KeyRecord) {
  return {
    key_id: k.key_id,
    name: k.name,
    scopes: k.scopes,
    created_at: k.created_at,
    expires_at: k.expires_at,
    revoked_at: k.revoked_at,
    last_used_at: k.last_used_at,
    rotated_from: k.rotated_from,
  };
}
