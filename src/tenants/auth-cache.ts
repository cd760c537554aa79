/**
 * The auth lookup, kept per isolate for AUTH_CACHE_MS: a key's D1 read (and the HMAC that checks
 * it) was the largest share of a /v1/judge request's own cost (bench/judge). What is kept is a
 * lookup that verified: the key's row and its tenant, by the exact bearer token (in memory only,
 * like the request that carried it).
 *
 * The bound: a key revoked, a key expired by an edit of D1, or a tenant disabled is refused by
 * every isolate within AUTH_CACHE_MS. The isolate that made the change through the API refuses it
 * at once (`forgetKey`, `forgetTenant`); expiry is checked against the cached `expires_at` on
 * every request, so a key's own expiry time is kept exactly.
 */
import type { KeyRecord } from "./keys-repo";
import type { TenantRecord } from "./tenants-repo";

export const AUTH_CACHE_MS = 2_000;
/** Entries kept at most (the oldest go first): bounded memory whatever the number of keys. */
const MAX_ENTRIES = 1_000;

export interface CachedAuth {
  key: KeyRecord | null;
  tenant: TenantRecord;
}

const entries = new Map<string, { at: number; value: CachedAuth }>();

/** The lookup for `token` made less than AUTH_CACHE_MS before `now`, or undefined. */
export function cachedAuth(token: string, now: number): CachedAuth | undefined {
  const hit = entries.get(token);
  if (!hit) return undefined;
  if (now - hit.at >= AUTH_CACHE_MS || now < hit.at) {
    entries.delete(token);
    return undefined;
  }
  return hit.value;
}

export function rememberAuth(token: string, value: CachedAuth, now: number): void {
  entries.delete(token);
  entries.set(token, { at: now, value });
  if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
}

/** A key revoked (or otherwise changed) in this isolate: its next request reads D1. */
export function forgetKey(keyId: string): void {
  for (const [token, e] of entries) if (e.value.key?.key_id === keyId) entries.delete(token);
}

/** A tenant changed in this isolate (disabled, limits): every key of it reads D1 again. */
export function forgetTenant(tenantId: string): void {
  for (const [token, e] of entries) if (e.value.tenant.tenant_id === tenantId) entries.delete(token);
}

/** Everything, for a test that edits D1 behind the API's back. */
export function forgetAllAuth(): void {
  entries.clear();
}
