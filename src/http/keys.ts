/**
 * /v1/keys: a tenant's own API keys (scope keys:admin). A key is shown once, at creation or
 * rotation; rotation mints a key with the same name, scopes and lifetime while the old one stays
 * valid until it is revoked (DELETE), so clients can switch over without downtime.
 */
import { Hono } from "hono";
import type { Env } from "../env";
import { ListQuery } from "../schemas/api";
import { CreateKeyRequest, RotateKeyRequest } from "../schemas/tenants";
import { actorOf, auditIfChanged, auditStatement } from "../tenants/audit";
import { mintKey } from "../tenants/issue-key";
import { forgetKey } from "../tenants/auth-cache";
import { getKey, insertKey, type KeyRecord, keyView, listKeys, revokeKey } from "../tenants/keys-repo";
import type { Scope } from "../schemas/scopes";
import { type AppEnv, requireScope, tenantOf } from "./auth";
import { withinLifetime } from "./credential-lifetime";
import { readJson, readOptionalJson, validate, validateQuery } from "./body";
import { decodeCreatedCursor, nextCreatedCursor } from "./cursor";
import { ApiFailure, invalidBody } from "./errors";
import { reply } from "./reply";
import { KeyList, KeyView, MintedKey } from "../schemas/tenant-views";
import { KEY_BODY_LIMIT } from "../schemas/body-limits";

export const keys = new Hono<AppEnv>();
keys.use(requireScope("keys:admin"));

keys.post("/", async (c) => {
  const body = validate(CreateKeyRequest, (await readJson(c, KEY_BODY_LIMIT)).value);
  const principal = c.get("principal");
  grantable(principal.scopes, body.scopes);
  const now = new Date().toISOString();
  const minted = await mintKey(
    keyPepper(c.env),
    {
      tenant_id: tenantOf(c).tenant_id,
      name: body.name,
      scopes: body.scopes,
      expires_at: withinLifetime(principal, futureExpiry(body.expires_at, "expires_at"), body.expires_at !== undefined, "key"),
      rotated_from: null,
    },
    now,
  );
  const audit = auditStatement(c.env.DB, {
    tenant_id: minted.record.tenant_id,
    actor: actorOf(principal),
    action: "key.created",
    target: minted.record.key_id,
    detail: { name: body.name, scopes: body.scopes, expires_at: minted.record.expires_at },
  });
  await c.env.DB.batch([insertKey(c.env.DB, minted.record), audit]);
  return reply(c, MintedKey, { ...keyView(minted.record), key: minted.key }, 201);
});

keys.get("/", async (c) => {
  const q = validateQuery(ListQuery, c.req.queries());
  const rows = await listKeys(c.env.DB, tenantOf(c).tenant_id, q.limit, decodeCreatedCursor(q.cursor));
  return reply(c, KeyList, { keys: rows.map(keyView), next_cursor: nextCreatedCursor(rows, q.limit, (k) => k.key_id) });
});

keys.post("/:id/rotate", async (c) => {
  const old = await requireKey(c.env.DB, tenantOf(c).tenant_id, c.req.param("id"));
  const body = validate(RotateKeyRequest, (await readOptionalJson(c, KEY_BODY_LIMIT)).value);
  // The key exists, so not a 404: a revoked key stays revoked, and the way on is a new key.
  if (old.revoked_at !== null)
    throw new ApiFailure({
      code: "key_revoked",
      message: `key ${old.key_id} is revoked (at ${old.revoked_at}) and cannot be rotated; create a new key with POST /v1/keys`,
    });
  const principal = c.get("principal");
  grantable(principal.scopes, old.scopes);
  const now = new Date().toISOString();
  const minted = await mintKey(
    keyPepper(c.env),
    {
      tenant_id: old.tenant_id,
      name: old.name,
      scopes: old.scopes,
      expires_at: withinLifetime(principal, rotatedExpiry(old, body.expires_at, now), body.expires_at !== undefined, "key"),
      rotated_from: old.key_id,
    },
    now,
  );
  const audit = auditStatement(c.env.DB, {
    tenant_id: old.tenant_id,
    actor: actorOf(principal),
    action: "key.rotated",
    target: minted.record.key_id,
    detail: { rotated_from: old.key_id, expires_at: minted.record.expires_at },
  });
  await c.env.DB.batch([insertKey(c.env.DB, minted.record), audit]);
  return reply(c, MintedKey, { ...keyView(minted.record), key: minted.key }, 201);
});

keys.delete("/:id", async (c) => {
  const tenantId = tenantOf(c).tenant_id;
  const id = c.req.param("id");
  const [revoked] = await c.env.DB.batch([
    revokeKey(c.env.DB, tenantId, id, new Date().toISOString()),
    auditIfChanged(c.env.DB, { tenant_id: tenantId, actor: actorOf(c.get("principal")), action: "key.revoked", target: id, detail: {} }),
  ]);
  if (revoked!.meta.changes > 0) forgetKey(id);
  else await requireKey(c.env.DB, tenantId, id);
  return reply(c, KeyView, keyView((await getKey(c.env.DB, tenantId, id))!));
});

/**
 * The new key's expiry. `expires_at` sent wins, `null` included (never expires: asked for, so not
 * a silent widening). Left out, the new key keeps the old key's lifetime from now: a key issued for
 * 90 days is rotated into one that expires 90 days after the rotation, and a key that never
 * expired into one that never expires. Keeping the old key's end time instead would make rotating a
 * key close to its end pointless; leaving it without an end widened every rotated key.
 */
function rotatedExpiry(old: KeyRecord, sent: string | null | undefined, now: string): string | null {
  if (sent !== undefined) return futureExpiry(sent, "expires_at");
  if (old.expires_at === null) return null;
  const lifetime = Date.parse(old.expires_at) - Date.parse(old.created_at);
  return new Date(Date.parse(now) + lifetime).toISOString();
}

async function requireKey(db: D1Database, tenantId: string, id: string): Promise<KeyRecord> {
  const key = await getKey(db, tenantId, id);
  if (!key) throw new ApiFailure({ code: "not_found", message: `no key ${id}; list keys with GET /v1/keys` });
  return key;
}

/** A key may hand out only scopes it holds itself. */
function grantable(held: ReadonlySet<Scope>, wanted: readonly Scope[]): void {
  const missing = wanted.filter((s) => !held.has(s));
  if (missing.length)
    throw new ApiFailure({ code: "forbidden", message: `this API key cannot grant scopes it lacks: ${missing.join(", ")}` });
}

export function keyPepper(env: Env): string {
  const pepper = env.EDGEVAL_KEY_PEPPER;
  if (typeof pepper !== "string" || pepper.length === 0) {
    throw new ApiFailure({
      code: "not_configured",
      message: "API keys need the EDGEVAL_KEY_PEPPER secret (wrangler secret put EDGEVAL_KEY_PEPPER)",
    });
  }
  return pepper;
}

export function futureExpiry(expiresAt: string | null | undefined, path: string): string | null {
  if (expiresAt == null) return null;
  const at = Date.parse(expiresAt);
  if (at <= Date.now()) throw invalidBody([{ path, message: "must be in the future" }]);
  return new Date(at).toISOString();
}
