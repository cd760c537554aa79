/** D1 access to `tenant_secrets`: sealed values in, metadata out; every query names the tenant. */
import { z } from "zod";
import type { Sealed } from "../lib/secret-crypto";
import { newestFirstPage, type PageAfter } from "../storage/newest-first";

const Limits = z.object({ rpm: z.number().optional(), tpm: z.number().optional(), concurrency: z.number().optional() });

const SecretRow = z.object({
  tenant_id: z.string(),
  name: z.string(),
  interface: z.string(),
  origins_json: z.string().transform((s) => z.array(z.string()).parse(JSON.parse(s))),
  limits_json: z
    .string()
    .nullable()
    .transform((s) => (s === null ? null : Limits.parse(JSON.parse(s)))),
  ciphertext: z.string(),
  iv: z.string(),
  kek_version: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SecretRecord = z.output<typeof SecretRow>;
export type SecretLimits = z.infer<typeof Limits>;

/** The insert or replace, to go in one batch with its audit entry. */
export function upsertSecret(db: D1Database, r: SecretRecord): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO tenant_secrets (tenant_id, name, interface, origins_json, limits_json, ciphertext, iv, kek_version, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (tenant_id, name) DO UPDATE SET interface = excluded.interface, origins_json = excluded.origins_json,
         limits_json = excluded.limits_json, ciphertext = excluded.ciphertext, iv = excluded.iv,
         kek_version = excluded.kek_version, updated_at = excluded.updated_at`,
    )
    .bind(
      r.tenant_id,
      r.name,
      r.interface,
      JSON.stringify(r.origins_json),
      r.limits_json === null ? null : JSON.stringify(r.limits_json),
      r.ciphertext,
      r.iv,
      r.kek_version,
      r.created_at,
      r.updated_at,
    );
}

/** The tenant's secrets of these names (those it has): the key ring (key-ring.ts) decrypts them; the names bound as one JSON value. */
export async function secretsNamed(db: D1Database, tenantId: string, names: readonly string[]): Promise<SecretRecord[]> {
  if (names.length === 0) return [];
  const { results } = await db
    .prepare("SELECT * FROM tenant_secrets WHERE tenant_id = ? AND name IN (SELECT value FROM json_each(?)) ORDER BY name")
    .bind(tenantId, JSON.stringify(names))
    .all();
  return results.map((r) => SecretRow.parse(r));
}

/** A page of GET /v1/secrets, newest first by when the name was first set (replacing keeps it); the name breaks ties. */
export async function listSecrets(db: D1Database, tenantId: string, limit: number, after: PageAfter): Promise<SecretRecord[]> {
  const source = { table: "tenant_secrets", idColumn: "name", owner: { tenant_id: tenantId } };
  return (await newestFirstPage<unknown>(db, source, limit, after)).map((r) => SecretRow.parse(r));
}

export async function getSecret(db: D1Database, tenantId: string, name: string): Promise<SecretRecord | null> {
  const row = await db.prepare("SELECT * FROM tenant_secrets WHERE tenant_id = ? AND name = ?").bind(tenantId, name).first();
  return row ? SecretRow.parse(row) : null;
}

/** Deletes the secret: it changes a row only if the tenant has one of that name. */
export function deleteSecret(db: D1Database, tenantId: string, name: string): D1PreparedStatement {
  return db.prepare("DELETE FROM tenant_secrets WHERE tenant_id = ? AND name = ?").bind(tenantId, name);
}

export const sealedOf = (r: SecretRecord): Sealed => ({ ciphertext: r.ciphertext, iv: r.iv, kek_version: r.kek_version });

/** What GET /v1/secrets shows: never the value, nor its ciphertext. */
export function secretView(r: SecretRecord) {
  return {
    name: r.name,
    interface: r.interface,
    origins: r.origins_json,
    limits: r.limits_json,
    kek_version: r.kek_version,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}
