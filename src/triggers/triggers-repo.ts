/** D1 `triggers`: sealed secrets in, the public view out (no secret, ever). */
import { z } from "zod";
import { prefixedId } from "../lib/ids";
import { parseKek, seal, secretAad, type Sealed, unseal } from "../lib/secret-crypto";
import { TriggerMapping, TriggerSigning } from "../schemas/triggers";
import { newestFirstPage, type PageAfter } from "../storage/newest-first";
import { apiLink } from "../webhooks/links";

/** What a delivery turns into a run body: stored as the creator sent it. */
export const TriggerSpec = z.object({
  benchmark_id: z.string(),
  preset_id: z.string().optional(),
  config: z.record(z.string(), z.unknown()),
  webhook_endpoint_ids: z.array(z.string()).optional(),
  mapping: TriggerMapping,
});
export type TriggerSpec = z.output<typeof TriggerSpec>;

export interface TriggerRecord {
  trigger_id: string;
  tenant_id: string;
  name: string;
  spec: TriggerSpec;
  signing: TriggerSigning;
  sealed: Sealed;
  /** The secret a rotation replaced: it still verifies deliveries until `expires_at`. */
  previous: { sealed: Sealed; expires_at: string } | null;
  created_at: string;
}

export const mintTriggerId = () => prefixedId("trg_", 24);

/** AAD binds a sealed secret to its tenant and trigger: a row copied elsewhere fails to decrypt. */
const aad = (tenantId: string, triggerId: string) => secretAad(tenantId, `trigger:${triggerId}`);

export const sealTriggerSecret = (kek: unknown, tenantId: string, triggerId: string, secret: string) =>
  seal(parseKek(kek), aad(tenantId, triggerId), secret);
export const unsealTriggerSecret = (kek: unknown, t: TriggerRecord, sealed: Sealed = t.sealed) =>
  unseal(parseKek(kek), aad(t.tenant_id, t.trigger_id), sealed);

/** The sealed secrets a delivery may be signed with now: the current one, then the replaced one while its overlap lasts. */
export function verifyingSecrets(t: TriggerRecord, nowMs: number): Sealed[] {
  if (!t.previous || Date.parse(t.previous.expires_at) <= nowMs) return [t.sealed];
  return [t.sealed, t.previous.sealed];
}

/** The current secret becomes the previous one (verifying until `prevExpiresAt`); `next` is the new one. */
export function rotateTriggerStatement(db: D1Database, t: TriggerRecord, next: Sealed, prevExpiresAt: string): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE triggers SET prev_ciphertext = ciphertext, prev_iv = iv, prev_kek_version = kek_version, prev_expires_at = ?,
         ciphertext = ?, iv = ?, kek_version = ? WHERE tenant_id = ? AND trigger_id = ?`,
    )
    .bind(prevExpiresAt, next.ciphertext, next.iv, next.kek_version, t.tenant_id, t.trigger_id);
}

/** A statement, for the batch that writes the trigger with its audit entry. */
export function insertTrigger(db: D1Database, t: TriggerRecord): D1PreparedStatement {
  return db
    .prepare(
      "INSERT INTO triggers (trigger_id, tenant_id, name, spec_json, signing_json, ciphertext, iv, kek_version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(
      t.trigger_id,
      t.tenant_id,
      t.name,
      JSON.stringify(t.spec),
      JSON.stringify(t.signing),
      t.sealed.ciphertext,
      t.sealed.iv,
      t.sealed.kek_version,
      t.created_at,
    );
}

/** By id alone: the hook route knows no tenant until the trigger's row names it. */
export async function findTrigger(db: D1Database, triggerId: string): Promise<TriggerRecord | null> {
  const row = await db.prepare("SELECT * FROM triggers WHERE trigger_id = ?").bind(triggerId).first<Row>();
  return row ? fromRow(row) : null;
}

export async function getTrigger(db: D1Database, tenantId: string, triggerId: string): Promise<TriggerRecord | null> {
  const row = await db.prepare("SELECT * FROM triggers WHERE tenant_id = ? AND trigger_id = ?").bind(tenantId, triggerId).first<Row>();
  return row ? fromRow(row) : null;
}

/** A page of the tenant's triggers, newest first (src/storage/newest-first.ts). */
export async function listTriggers(db: D1Database, tenantId: string, limit: number, after: PageAfter): Promise<TriggerRecord[]> {
  return (await newestFirstPage<Row>(db, { table: "triggers", idColumn: "trigger_id", owner: { tenant_id: tenantId } }, limit, after)).map(
    fromRow,
  );
}

/** A statement, for the batch that deletes the trigger with its audit entry (auditIfChanged right after it). */
export function deleteTrigger(db: D1Database, tenantId: string, triggerId: string): D1PreparedStatement {
  return db.prepare("DELETE FROM triggers WHERE tenant_id = ? AND trigger_id = ?").bind(tenantId, triggerId);
}

/** `origin`: the API's public origin (src/webhooks/links.ts), so hook_url can be pasted into a sender as it is. */
export function triggerView(t: TriggerRecord, origin: string | null) {
  return {
    trigger_id: t.trigger_id,
    name: t.name,
    ...t.spec,
    signing: t.signing,
    hook_url: apiLink(origin, `/v1/hooks/${t.trigger_id}`),
    // After a rotation, deliveries signed with the replaced secret verify until then.
    previous_secret_expires_at: t.previous?.expires_at ?? null,
    created_at: t.created_at,
  };
}

interface Row {
  trigger_id: string;
  tenant_id: string;
  name: string;
  spec_json: string;
  signing_json: string;
  ciphertext: string;
  iv: string;
  kek_version: number;
  prev_ciphertext: string | null;
  prev_iv: string | null;
  prev_kek_version: number | null;
  prev_expires_at: string | null;
  created_at: string;
}

function fromRow(r: Row): TriggerRecord {
  return {
    trigger_id: r.trigger_id,
    tenant_id: r.tenant_id,
    name: r.name,
    spec: TriggerSpec.parse(JSON.parse(r.spec_json)),
    signing: TriggerSigning.parse(JSON.parse(r.signing_json)),
    sealed: { ciphertext: r.ciphertext, iv: r.iv, kek_version: r.kek_version },
    previous:
      r.prev_ciphertext !== null && r.prev_iv !== null && r.prev_kek_version !== null && r.prev_expires_at !== null
        ? { sealed: { ciphertext: r.prev_ciphertext, iv: r.prev_iv, kek_version: r.prev_kek_version }, expires_at: r.prev_expires_at }
        : null,
    created_at: r.created_at,
  };
}
