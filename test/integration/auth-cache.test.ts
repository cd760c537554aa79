// The auth lookup is kept per isolate for AUTH_CACHE_MS (src/tenants/auth-cache.ts). The bound it
// promises: a key revoked, or a tenant disabled, by another isolate (here: D1 edited behind this
// isolate's back) is refused once AUTH_CACHE_MS has passed; this isolate's own revoke or disable
// through the API is refused on the next request (test/integration/tenants-keys.test.ts).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AUTH_CACHE_MS } from "../../src/tenants/auth-cache";
import { authenticate } from "../../src/tenants/authenticate";
import { apiAs, createTenant } from "./tenant-helpers";

const cfg = () => ({ db: env.DB, apiToken: undefined, pepper: env.EDGEVAL_KEY_PEPPER as string });
const at = (t0: number, ms: number) => new Date(t0 + ms);

describe("the auth lookup kept per isolate", () => {
  it("refuses a key revoked elsewhere within AUTH_CACHE_MS", async () => {
    const t = await createTenant();
    const t0 = Date.now();
    expect((await authenticate(t.key, cfg(), at(t0, 0))).ok).toBe(true);
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE key_id = ?").bind(new Date(t0).toISOString(), t.key_id).run();
    // Inside the bound the kept lookup may still answer (that is what saves the D1 read) ...
    expect((await authenticate(t.key, cfg(), at(t0, AUTH_CACHE_MS - 1))).ok).toBe(true);
    // ... and at the bound it is read again: refused.
    expect(await authenticate(t.key, cfg(), at(t0, AUTH_CACHE_MS))).toEqual({ ok: false, reason: "revoked" });
  });

  it("refuses every key of a tenant disabled elsewhere within AUTH_CACHE_MS", async () => {
    const t = await createTenant();
    const t0 = Date.now();
    expect((await authenticate(t.key, cfg(), at(t0, 0))).ok).toBe(true);
    await env.DB.prepare("UPDATE tenants SET disabled = 1 WHERE tenant_id = ?").bind(t.tenant_id).run();
    expect(await authenticate(t.key, cfg(), at(t0, AUTH_CACHE_MS))).toEqual({ ok: false, reason: "disabled", tenant_id: t.tenant_id });
  });

  it("never keeps a wrong secret: a forged token for a cached key id is refused", async () => {
    const t = await createTenant();
    const t0 = Date.now();
    expect((await authenticate(t.key, cfg(), at(t0, 0))).ok).toBe(true);
    const [prefix, id, secret] = t.key.split("_");
    const forged = `${prefix}_${id}_${secret!.slice(0, -1)}${secret!.endsWith("a") ? "b" : "a"}`;
    expect(await authenticate(forged, cfg(), at(t0, 1))).toEqual({ ok: false, reason: "unknown" });
    expect((await apiAs(forged, "/v1/runs")).status).toBe(401);
  });

  it("writes last_used_at once a minute, not on every request served from the kept lookup", async () => {
    const t = await createTenant();
    const t0 = Date.now();
    expect(await authenticate(t.key, cfg(), at(t0, 0))).toMatchObject({ ok: true, touch: true });
    expect(await authenticate(t.key, cfg(), at(t0, 10))).toMatchObject({ ok: true, touch: false });
  });
});
