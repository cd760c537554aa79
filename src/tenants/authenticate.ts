/**
 * Who is calling: a bearer token → the tenant and the scopes it may use. Two kinds of token:
 * an API key (`ev_…`, one D1 read by key id joined with its tenant), or the deployment's
 * EDGEVAL_API_TOKEN, which is an all-scope key of tenant `default` (existing deployments and the
 * local scripts keep working unchanged). A verified lookup is kept per isolate for AUTH_CACHE_MS
 * (auth-cache.ts): a revoked key or a disabled tenant is refused everywhere within that bound, and
 * at once by the isolate that revoked or disabled it.
 */
import { parseKey, hashKey, sameHash, sameSecret } from "./api-key";
import { findKeyForAuth, type KeyRecord } from "./keys-repo";
import { cachedAuth, rememberAuth } from "./auth-cache";
import { SCOPES, type Scope } from "../schemas/scopes";
import { DEFAULT_TENANT, getTenant, type TenantRecord } from "./tenants-repo";

export interface Principal {
  tenant: TenantRecord;
  /** Null for the deployment token. */
  keyId: string | null;
  scopes: ReadonlySet<Scope>;
  /** When the key stops working; null for a key without an expiry and for the deployment token. A key mints no key that outlives it. */
  expiresAt: string | null;
}

export type AuthFailure = "unknown" | "revoked" | "expired" | "disabled" | "no_pepper";

export type AuthOutcome =
  | { ok: true; principal: Principal /** Set when last_used_at should be written (at most once a minute). */; touch: boolean }
  | { ok: false; reason: Exclude<AuthFailure, "disabled"> }
  /** The key is good; its tenant is not (the caller answers 403 naming it, not 401). */
  | { ok: false; reason: "disabled"; tenant_id: string };

export interface AuthConfig {
  db: D1Database;
  apiToken: string | undefined;
  pepper: string | undefined;
}

/** last_used_at is written at most this often per key: a hot key would otherwise write on every call. */
const TOUCH_EVERY_MS = 60_000;

export async function authenticate(token: string, cfg: AuthConfig, now: Date): Promise<AuthOutcome> {
  const at = now.getTime();
  const cached = cachedAuth(token, at);
  // A token kept as a verified API key is not the deployment token (that was compared first when
  // it was kept, and a new EDGEVAL_API_TOKEN comes with new isolates): its requests skip the two
  // digests of the comparison.
  if (cfg.apiToken && !cached?.key && (await sameSecret(token, cfg.apiToken))) {
    let tenant = cached?.tenant ?? null;
    if (!tenant) {
      tenant = await getTenant(cfg.db, DEFAULT_TENANT);
      if (!tenant) throw new Error("the default tenant row is missing: apply the D1 migrations");
      rememberAuth(token, { key: null, tenant }, at);
    }
    if (tenant.disabled) return { ok: false, reason: "disabled", tenant_id: tenant.tenant_id };
    return { ok: true, principal: { tenant, keyId: null, scopes: new Set(SCOPES), expiresAt: null }, touch: false };
  }
  const parsed = parseKey(token);
  if (!parsed) return { ok: false, reason: "unknown" };
  if (!cfg.pepper) return { ok: false, reason: "no_pepper" };
  let found = cached;
  if (!found?.key) {
    const read = await findKeyForAuth(cfg.db, parsed.keyId);
    if (!read || !sameHash(await hashKey(parsed.key, cfg.pepper), read.key.key_hash)) return { ok: false, reason: "unknown" };
    rememberAuth(token, read, at);
    found = read;
  }
  const { key, tenant } = found as { key: KeyRecord; tenant: TenantRecord };
  if (key.revoked_at !== null) return { ok: false, reason: "revoked" };
  if (key.expires_at !== null && Date.parse(key.expires_at) <= at) return { ok: false, reason: "expired" };
  if (tenant.disabled) return { ok: false, reason: "disabled", tenant_id: tenant.tenant_id };
  const touch = key.last_used_at === null || at - Date.parse(key.last_used_at) >= TOUCH_EVERY_MS;
  // The caller writes last_used_at now; the cached row says so too, or every request would touch.
  if (touch) key.last_used_at = now.toISOString();
  return { ok: true, principal: { tenant, keyId: key.key_id, scopes: new Set(key.scopes), expiresAt: key.expires_at }, touch };
}
