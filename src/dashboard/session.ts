/**
 * Dashboard sessions: a cookie `<key id>.<expiry ms>.<mac>` naming the API key that signed in.
 * The MAC covers the key's stored hash (or the deployment token's digest), and every request
 * re-reads that key: a revoked or expired key, a disabled tenant or a rotated token ends the
 * session at once. The key itself never leaves the sign-in request.
 */
import type { Env } from "../env";
import { sha256Hex } from "../lib/sha256";
import { hashKey, sameHash } from "../tenants/api-key";
import { authenticate, type Principal } from "../tenants/authenticate";
import { findKeyForAuth } from "../tenants/keys-repo";
import { SCOPES } from "../schemas/scopes";
import { DEFAULT_TENANT, getTenant } from "../tenants/tenants-repo";
import { tenantDisabled } from "../http/errors";

export const SESSION_COOKIE = "edgeval_session";
/** A session lasts a working day; signing in again is one paste. */
export const SESSION_TTL_S = 8 * 3600;
/** The key id a session of the deployment's EDGEVAL_API_TOKEN names (API key ids are 12 hex digits). */
const DEPLOYMENT_KEY_ID = "deployment";
/** Keeps session MACs apart from API key hashes under the same pepper (those hash strings starting "ev_"). */
const MAC_LABEL = "edgeval-dashboard-session:";

type SessionEnv = Pick<Env, "DB" | "EDGEVAL_API_TOKEN" | "EDGEVAL_KEY_PEPPER">;

/** `status`: the sign-in page's answer, as the API would answer the key (401, or 403 for a disabled tenant). */
export type SignIn = { ok: true; cookie: string; principal: Principal } | { ok: false; reason: string; status: 401 | 403 };

/** Checks a pasted key as /v1 would and, when it is good, the session cookie's value. */
export async function signIn(env: SessionEnv, token: string, now: Date): Promise<SignIn> {
  const pepper = env.EDGEVAL_KEY_PEPPER;
  if (!pepper) return { ok: false, reason: "the server has no EDGEVAL_KEY_PEPPER secret, so it cannot sign sessions", status: 401 };
  const outcome = await authenticate(token, { db: env.DB, apiToken: env.EDGEVAL_API_TOKEN, pepper }, now);
  // A disabled tenant's key is good: the same words as the API's 403, saying whom to ask.
  if (!outcome.ok && outcome.reason === "disabled") return { ok: false, reason: tenantDisabled(outcome.tenant_id).message, status: 403 };
  if (!outcome.ok) return { ok: false, reason: `that key was refused (${outcome.reason})`, status: 401 };
  const keyId = outcome.principal.keyId ?? DEPLOYMENT_KEY_ID;
  const current = await currentCredential(env, keyId, now);
  if (!current) return { ok: false, reason: "that key was refused (unknown)", status: 401 };
  const expires = now.getTime() + SESSION_TTL_S * 1000;
  const mac = await hashKey(`${MAC_LABEL}${keyId}.${expires}.${current.digest}`, pepper);
  return { ok: true, cookie: `${keyId}.${expires}.${mac}`, principal: outcome.principal };
}

/** The principal of a session cookie, re-checked against D1 now; null ends the session. */
export async function resumeSession(env: SessionEnv, cookie: string | undefined, now: Date): Promise<Principal | null> {
  const pepper = env.EDGEVAL_KEY_PEPPER;
  const m = cookie ? /^([0-9a-f]{12}|deployment)\.(\d{13,16})\.([0-9a-f]{64})$/.exec(cookie) : null;
  if (!pepper || !m) return null;
  const [, keyId, expiresText, mac] = m as unknown as [string, string, string, string];
  if (Number(expiresText) <= now.getTime()) return null;
  const current = await currentCredential(env, keyId, now);
  if (!current) return null;
  const expected = await hashKey(`${MAC_LABEL}${keyId}.${expiresText}.${current.digest}`, pepper);
  return sameHash(expected, mac) ? current.principal : null;
}

/**
 * The key a session names, as D1 has it now: what the MAC binds (the stored key hash, or the
 * deployment token's digest) and who it is; null when it may no longer be used.
 */
async function currentCredential(env: SessionEnv, keyId: string, now: Date): Promise<{ digest: string; principal: Principal } | null> {
  if (keyId === DEPLOYMENT_KEY_ID) {
    const tenant = env.EDGEVAL_API_TOKEN ? await getTenant(env.DB, DEFAULT_TENANT) : null;
    if (!env.EDGEVAL_API_TOKEN || !tenant || tenant.disabled) return null;
    return { digest: await sha256Hex(env.EDGEVAL_API_TOKEN), principal: { tenant, keyId: null, scopes: new Set(SCOPES), expiresAt: null } };
  }
  const found = await findKeyForAuth(env.DB, keyId);
  if (!found) return null;
  const { key, tenant } = found;
  if (key.revoked_at !== null || (key.expires_at !== null && Date.parse(key.expires_at) <= now.getTime()) || tenant.disabled) return null;
  return { digest: key.key_hash, principal: { tenant, keyId, scopes: new Set(key.scopes), expiresAt: key.expires_at } };
}
