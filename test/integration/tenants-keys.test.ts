import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/http/app";
import { SCOPES } from "../../src/schemas/scopes";
import { forgetAllAuth } from "../../src/tenants/auth-cache";
import { api } from "./helpers";
import { ADMIN_TOKEN, apiAs, createKey, createTenant } from "./tenant-helpers";

const KEY_FORMAT = /^ev_[0-9a-f]{12}_[a-z2-7]+$/;

/** Every tenant route of the app that is not a read, with its path parameters filled in. */
function writeRoutes(): { method: string; path: string }[] {
  return (
    buildApp()
      // /v1/hooks takes no key (a trigger's signature instead: test/integration/triggers.test.ts), nor does a
      // stored judge's promptfoo route (its judge token: test/integration/stored-judges.test.ts).
      .routes.filter(
        (r) =>
          r.method !== "ALL" &&
          r.method !== "GET" &&
          r.path.startsWith("/v1/") &&
          !r.path.startsWith("/v1/admin") &&
          !r.path.startsWith("/v1/hooks") &&
          !r.path.endsWith("/promptfoo"),
      )
      .map((r) => ({ method: r.method, path: r.path.replace(/:[a-z_]+/g, "00000000-0000-0000-0000-000000000000") }))
  );
}

describe("tenants and API keys", () => {
  it("answers creates of one tenant_id sent side by side (a provisioning retry) with one 201 and 400s naming tenant_id, never a 500", async () => {
    const tenantId = `race-${crypto.randomUUID().slice(0, 8)}`;
    const create = () => apiAs(ADMIN_TOKEN, "/v1/admin/tenants", { method: "POST", json: { name: "race", tenant_id: tenantId } });
    const answers = await Promise.all([create(), create(), create(), create()]);
    const outcomes = await Promise.all(
      answers.map(async (r) => (r.status === 201 ? "201" : `${r.status} ${((await r.json()) as any).error.issues?.[0]?.path}`)),
    );
    expect(outcomes.sort()).toEqual(["201", "400 tenant_id", "400 tenant_id", "400 tenant_id"]);
    const keys = await env.DB.prepare("SELECT COUNT(*) AS n FROM api_keys WHERE tenant_id = ?").bind(tenantId).first<{ n: number }>();
    expect(keys!.n).toBe(1);
  });

  it("lets only the operator token create tenants, and shows the first key once in the ev_<id>_<secret> format", async () => {
    expect((await api("/v1/admin/tenants", { method: "POST", json: { name: "x" } })).status).toBe(401);
    expect((await apiAs("wrong-admin", "/v1/admin/tenants", { method: "POST", json: { name: "x" } })).status).toBe(401);
    const res = await apiAs(ADMIN_TOKEN, "/v1/admin/tenants", {
      method: "POST",
      json: { name: "acme", tenant_id: `acme-${crypto.randomUUID().slice(0, 8)}` },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as any;
    expect(body.key.key).toMatch(KEY_FORMAT);
    expect(body.key.scopes).toEqual([...SCOPES]);
    expect(body.tenant.use_deployment_keys).toBe(false);
    const listed = (await (await apiAs(body.key.key, "/v1/keys")).json()) as any;
    expect(listed.keys).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(body.key.key.split("_")[2]);
    // D1 keeps only the HMAC of the key, never the key or its secret part.
    const row = await env.DB.prepare("SELECT * FROM api_keys WHERE key_id = ?").bind(body.key.key_id).first<Record<string, unknown>>();
    expect(JSON.stringify(row)).not.toContain(body.key.key.split("_")[2]);
    expect(row!.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("answers the deployment's EDGEVAL_API_TOKEN as an all-scope key of tenant default", async () => {
    const res = await api("/v1/keys");
    expect(res.status).toBe(200);
    expect((await api("/v1/runs")).status).toBe(200);
  });

  it("gives a runs:read key 403 on every write route of the app", async () => {
    const t = await createTenant();
    const reader = await createKey(t.key, { scopes: ["runs:read"] });
    const routes = writeRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(7);
    for (const r of routes) {
      const res = await apiAs(reader.key, r.path, { method: r.method, json: {} });
      expect({ route: `${r.method} ${r.path}`, status: res.status }).toEqual({ route: `${r.method} ${r.path}`, status: 403 });
    }
    expect((await apiAs(reader.key, "/v1/runs")).status).toBe(200);
    expect((await apiAs(reader.key, "/v1/benchmarks")).status).toBe(403);
  });

  it("refuses a revoked key on the very next request", async () => {
    const t = await createTenant();
    const k = await createKey(t.key, { scopes: ["runs:read"] });
    expect((await apiAs(k.key, "/v1/runs")).status).toBe(200);
    expect((await apiAs(t.key, `/v1/keys/${k.key_id}`, { method: "DELETE" })).status).toBe(200);
    const res = await apiAs(k.key, "/v1/runs");
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.message).toMatch(/revoked/);
  });

  it("refuses an expired key", async () => {
    const t = await createTenant();
    const k = await createKey(t.key, { scopes: ["runs:read"], expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await apiAs(k.key, "/v1/runs")).status).toBe(200);
    await env.DB.prepare("UPDATE api_keys SET expires_at = ? WHERE key_id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), k.key_id)
      .run();
    // An edit of D1 outside the API reaches this isolate's kept lookup within AUTH_CACHE_MS
    // (test/integration/auth-cache.test.ts); this test is about expiry, so it does not wait for that.
    forgetAllAuth();
    const res = await apiAs(k.key, "/v1/runs");
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.message).toMatch(/expired/);
    const past = await apiAs(t.key, "/v1/keys", {
      method: "POST",
      json: { name: "old", scopes: ["runs:read"], expires_at: "2020-01-01T00:00:00Z" },
    });
    expect(past.status).toBe(400);
  });

  it("keeps old and new key valid during rotation until the old one is revoked", async () => {
    const t = await createTenant();
    const old = await createKey(t.key, { name: "ci", scopes: ["runs:read", "runs:write"] });
    const rotated = await apiAs(t.key, `/v1/keys/${old.key_id}/rotate`, { method: "POST", json: {} });
    expect(rotated.status).toBe(201);
    const fresh = (await rotated.json()) as any;
    expect(fresh.key).toMatch(KEY_FORMAT);
    expect(fresh).toMatchObject({ name: "ci", scopes: ["runs:read", "runs:write"], rotated_from: old.key_id });
    expect((await apiAs(old.key, "/v1/runs")).status).toBe(200);
    expect((await apiAs(fresh.key, "/v1/runs")).status).toBe(200);
    await apiAs(t.key, `/v1/keys/${old.key_id}`, { method: "DELETE" });
    expect((await apiAs(old.key, "/v1/runs")).status).toBe(401);
    expect((await apiAs(fresh.key, "/v1/runs")).status).toBe(200);
  });

  it("refuses to rotate a revoked key with 409 key_revoked saying to create a new key, and mints nothing", async () => {
    const t = await createTenant();
    const old = await createKey(t.key, { name: "ci", scopes: ["runs:read"] });
    await apiAs(t.key, `/v1/keys/${old.key_id}`, { method: "DELETE" });
    const keysBefore = ((await (await apiAs(t.key, "/v1/keys")).json()) as any).keys.length;
    const res = await apiAs(t.key, `/v1/keys/${old.key_id}/rotate`, { method: "POST", json: {} });
    expect(res.status).toBe(409);
    const { error } = (await res.json()) as any;
    expect(error.code).toBe("key_revoked");
    expect(error.message).toContain(`key ${old.key_id} is revoked`);
    expect(error.message).toContain("POST /v1/keys");
    expect(((await (await apiAs(t.key, "/v1/keys")).json()) as any).keys.length).toBe(keysBefore);
  });

  it("gives a rotated key the old key's lifetime from now unless expires_at is sent (null: never), and says so", async () => {
    const t = await createTenant();
    const day = 86_400_000;
    const rotate = async (keyId: string, json: unknown) => {
      const res = await apiAs(t.key, `/v1/keys/${keyId}/rotate`, { method: "POST", json });
      expect(res.status, await res.clone().text()).toBe(201);
      return (await res.json()) as { key_id: string; created_at: string; expires_at: string | null };
    };
    const ninety = await createKey(t.key, { scopes: ["runs:read"], expires_at: new Date(Date.now() + 90 * day).toISOString() });
    // Issued 10 days ago for 90 days: 80 days left, yet the rotated key gets 90 again.
    await env.DB.prepare("UPDATE api_keys SET created_at = ?, expires_at = ? WHERE key_id = ?")
      .bind(new Date(Date.now() - 10 * day).toISOString(), new Date(Date.now() + 80 * day).toISOString(), ninety.key_id)
      .run();
    const kept = await rotate(ninety.key_id, {});
    expect(kept.expires_at).not.toBeNull();
    expect(Date.parse(kept.expires_at!) - Date.parse(kept.created_at)).toBeCloseTo(90 * day, -4);
    const stored = await env.DB.prepare("SELECT expires_at FROM api_keys WHERE key_id = ?")
      .bind(kept.key_id)
      .first<{ expires_at: string }>();
    expect(stored!.expires_at).toBe(kept.expires_at);

    const at = new Date(Date.now() + 5 * day).toISOString();
    expect((await rotate(ninety.key_id, { expires_at: at })).expires_at).toBe(at);
    expect((await rotate(ninety.key_id, { expires_at: null })).expires_at).toBeNull();
    const forever = await createKey(t.key, { scopes: ["runs:read"] });
    expect((await rotate(forever.key_id, {})).expires_at).toBeNull();

    const audit = (await (await apiAs(t.key, "/v1/audit?limit=10")).json()) as {
      entries: { action: string; target: string; detail: any }[];
    };
    const entry = audit.entries.find((e) => e.action === "key.rotated" && e.target === kept.key_id)!;
    expect(entry.detail).toEqual({ rotated_from: ninety.key_id, expires_at: kept.expires_at });
  });

  it("lets an expiring key mint (create, rotate) only keys that expire no later than itself, as it grants only scopes it holds", async () => {
    const t = await createTenant();
    const hour = 3_600_000;
    const limited = await createKey(t.key, { scopes: ["keys:admin", "runs:read"], expires_at: new Date(Date.now() + hour).toISOString() });
    const until = ((await (await apiAs(t.key, "/v1/keys?limit=1")).json()) as any).keys[0].expires_at as string;
    const count = async () =>
      (await env.DB.prepare("SELECT COUNT(*) AS n FROM api_keys WHERE tenant_id = ?").bind(t.tenant_id).first<{ n: number }>())!.n;
    const before = await count();
    for (const expires_at of [new Date(Date.now() + 2 * hour).toISOString(), null]) {
      const res = await apiAs(limited.key, "/v1/keys", { method: "POST", json: { name: "longer", scopes: ["runs:read"], expires_at } });
      expect(res.status, String(expires_at)).toBe(403);
      expect(((await res.json()) as any).error.message).toContain(`expires at ${until}`);
    }
    const forever = await createKey(t.key, { scopes: ["runs:read"] });
    const rotatedNull = await apiAs(limited.key, `/v1/keys/${forever.key_id}/rotate`, { method: "POST", json: { expires_at: null } });
    expect(rotatedNull.status).toBe(403);
    expect(await count()).toBe(before + 1);

    // Left out, the new key's expiry is the minting key's: never later, and the answer says it.
    const created = await apiAs(limited.key, "/v1/keys", { method: "POST", json: { name: "default", scopes: ["runs:read"] } });
    expect(created.status).toBe(201);
    expect(((await created.json()) as any).expires_at).toBe(until);
    const rotated = await apiAs(limited.key, `/v1/keys/${forever.key_id}/rotate`, { method: "POST", json: {} });
    expect(rotated.status).toBe(201);
    expect(((await rotated.json()) as any).expires_at).toBe(until);
    const sooner = new Date(Date.now() + hour / 2).toISOString();
    const early = await apiAs(limited.key, "/v1/keys", {
      method: "POST",
      json: { name: "sooner", scopes: ["runs:read"], expires_at: sooner },
    });
    expect(((await early.json()) as any).expires_at).toBe(sooner);
  });

  it("audits every key minted with its expiry: created by a key, by the operator, or as a tenant's first", async () => {
    const at = new Date(Date.now() + 86_400_000).toISOString();
    const t = await createTenant({ first_key: { name: "first", expires_at: at } });
    const k = await createKey(t.key, { name: "ci", scopes: ["runs:read"] });
    const issued = await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}/keys`, { method: "POST", json: { name: "ops" } });
    const { key_id: opsId } = (await issued.json()) as { key_id: string };
    const { entries } = (await (await apiAs(t.key, "/v1/audit?limit=10")).json()) as any;
    const details = Object.fromEntries(entries.filter((e: any) => e.action === "key.created").map((e: any) => [e.target, e.detail]));
    expect(details[t.key_id]).toEqual({ name: "first", scopes: [...SCOPES], expires_at: at });
    // Minted by an expiring key: no later than it (src/http/keys.ts withinLifetime).
    expect(details[k.key_id]).toEqual({ name: "ci", scopes: ["runs:read"], expires_at: at });
    expect(details[opsId]).toEqual({ name: "ops", scopes: [...SCOPES], expires_at: null });
  });

  it("records when a key was last used", async () => {
    const t = await createTenant();
    const k = await createKey(t.key, { scopes: ["runs:read"] });
    const lastUsed = async () =>
      ((await (await apiAs(t.key, "/v1/keys")).json()) as { keys: { key_id: string; last_used_at: string | null }[] }).keys.find(
        (x) => x.key_id === k.key_id,
      )!.last_used_at;
    expect(await lastUsed()).toBeNull();
    const before = Date.now();
    await apiAs(k.key, "/v1/runs");
    const at = await vi.waitUntil(lastUsed, { timeout: 2000, interval: 20 });
    expect(Date.parse(at!)).toBeGreaterThanOrEqual(before - 1000);
  });

  it("refuses a key that differs from a real one only in its secret", async () => {
    const t = await createTenant();
    const forged = t.key.slice(0, -1) + (t.key.endsWith("a") ? "b" : "a");
    expect((await apiAs(forged, "/v1/runs")).status).toBe(401);
  });

  it("lets a key grant only scopes it holds, and another tenant's key id is a 404", async () => {
    const t = await createTenant();
    const keyAdmin = await createKey(t.key, { scopes: ["keys:admin", "runs:read"] });
    expect((await apiAs(keyAdmin.key, "/v1/keys", { method: "POST", json: { name: "x", scopes: ["runs:write"] } })).status).toBe(403);
    expect((await apiAs(keyAdmin.key, "/v1/keys", { method: "POST", json: { name: "x", scopes: ["runs:read"] } })).status).toBe(201);
    const other = await createTenant();
    expect((await apiAs(other.key, `/v1/keys/${keyAdmin.key_id}`, { method: "DELETE" })).status).toBe(404);
    expect((await apiAs(other.key, `/v1/keys/${keyAdmin.key_id}/rotate`, { method: "POST", json: {} })).status).toBe(404);
    expect((await apiAs(keyAdmin.key, "/v1/runs")).status).toBe(200);
  });

  it("refuses every key of a tenant the operator disabled", async () => {
    const t = await createTenant();
    expect((await apiAs(t.key, "/v1/runs")).status).toBe(200);
    const patched = await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}`, { method: "PATCH", json: { disabled: true } });
    expect(patched.status).toBe(200);
    // 403, not 401: the key is good, its tenant is not (test/integration/tenant-disabled-refusals.test.ts).
    expect((await apiAs(t.key, "/v1/runs")).status).toBe(403);
  });
});

describe("audit log", () => {
  it("records key and tenant actions, newest first, readable only with keys:admin and only by its tenant", async () => {
    const t = await createTenant();
    const k = await createKey(t.key, { name: "ci", scopes: ["runs:read"] });
    const rotated = (await (await apiAs(t.key, `/v1/keys/${k.key_id}/rotate`, { method: "POST", json: {} })).json()) as any;
    await apiAs(t.key, `/v1/keys/${k.key_id}`, { method: "DELETE" });
    await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}`, { method: "PATCH", json: { retention_days: 30 } });

    expect((await apiAs(k.key, "/v1/audit")).status).toBe(401);
    expect((await apiAs(rotated.key, "/v1/audit")).status).toBe(403);
    const page1 = (await (await apiAs(t.key, "/v1/audit?limit=4")).json()) as any;
    const page2 = (await (await apiAs(t.key, `/v1/audit?limit=4&cursor=${page1.next_cursor}`)).json()) as any;
    const entries = [...page1.entries, ...page2.entries];
    expect(entries.map((e: any) => `${e.action} ${e.target} ${e.actor}`)).toEqual([
      `tenant.updated ${t.tenant_id} operator`,
      `key.revoked ${k.key_id} key:${t.key_id}`,
      `key.rotated ${rotated.key_id} key:${t.key_id}`,
      `key.created ${k.key_id} key:${t.key_id}`,
      `key.created ${t.key_id} operator`,
      `tenant.created ${t.tenant_id} operator`,
    ]);
    expect(page2.next_cursor).toBeNull();
    expect(JSON.stringify(entries)).not.toContain(rotated.key);

    const other = await createTenant();
    const theirs = (await (await apiAs(other.key, "/v1/audit")).json()) as any;
    expect(theirs.entries.map((e: any) => e.target)).not.toContain(k.key_id);
  });
});

describe("a tenant whose keys all expired or were revoked", () => {
  it("gets a key from the operator (POST /v1/admin/tenants/:id/keys), audited", async () => {
    const t = await createTenant();
    // Revoking its only key leaves the tenant no key that could create another.
    expect((await apiAs(t.key, `/v1/keys/${t.key_id}`, { method: "DELETE" })).status).toBe(200);
    forgetAllAuth();
    const refused = await apiAs(t.key, "/v1/keys");
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as any).error.message).toContain("ask the operator for one (POST /v1/admin/tenants/:id/keys)");

    const path = `/v1/admin/tenants/${t.tenant_id}/keys`;
    expect((await apiAs(t.key, path, { method: "POST", json: { name: "recovery" } })).status).toBe(401);
    const res = await apiAs(ADMIN_TOKEN, path, { method: "POST", json: { name: "recovery", scopes: ["keys:admin", "runs:read"] } });
    expect(res.status).toBe(201);
    const minted = (await res.json()) as any;
    expect(minted).toMatchObject({ name: "recovery", scopes: ["keys:admin", "runs:read"], expires_at: null, revoked_at: null });
    expect(minted.key).toMatch(KEY_FORMAT);
    expect(minted.warnings).toEqual([]);
    const listed = (await (await apiAs(minted.key, "/v1/keys")).json()) as any;
    expect(listed.keys.map((k: any) => k.key_id)).toEqual([minted.key_id, t.key_id]);
    const { entries } = (await (await apiAs(minted.key, "/v1/audit?limit=1")).json()) as any;
    expect(entries[0]).toMatchObject({ action: "key.created", target: minted.key_id, actor: "operator" });

    // Without a body: every scope, as a tenant's first key. An unknown tenant is a 404.
    expect(((await (await apiAs(ADMIN_TOKEN, path, { method: "POST" })).json()) as any).scopes).toEqual([...SCOPES]);
    expect((await apiAs(ADMIN_TOKEN, "/v1/admin/tenants/no-such-tenant/keys", { method: "POST", json: {} })).status).toBe(404);
  });

  it("warns the operator who issues a key to a disabled tenant that it is refused until the tenant is enabled", async () => {
    const t = await createTenant();
    const tenantPath = `/v1/admin/tenants/${t.tenant_id}`;
    expect((await apiAs(ADMIN_TOKEN, tenantPath, { method: "PATCH", json: { disabled: true } })).status).toBe(200);
    const res = await apiAs(ADMIN_TOKEN, `${tenantPath}/keys`, { method: "POST", json: { name: "for later" } });
    expect(res.status).toBe(201);
    const minted = (await res.json()) as any;
    expect(minted.warnings).toEqual([
      {
        path: "tenant.disabled",
        message: `tenant ${t.tenant_id} is disabled: this key is refused (403 tenant_disabled) until the tenant is enabled with PATCH /v1/admin/tenants/${t.tenant_id} {"disabled": false}`,
      },
    ]);
    expect((await apiAs(minted.key, "/v1/keys")).status).toBe(403);
    expect((await apiAs(ADMIN_TOKEN, tenantPath, { method: "PATCH", json: { disabled: false } })).status).toBe(200);
    expect((await apiAs(minted.key, "/v1/keys")).status).toBe(200);
  });

  it("tells the holder of an expired key who can issue another", async () => {
    const t = await createTenant();
    const k = await createKey(t.key, { scopes: ["runs:read"], expires_at: new Date(Date.now() + 1500).toISOString() });
    await new Promise((r) => setTimeout(r, 1600));
    const res = await apiAs(k.key, "/v1/usage");
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.message).toBe(
      "this API key has expired; create a new one with POST /v1/keys (a key with keys:admin), or ask the operator (POST /v1/admin/tenants/:id/keys)",
    );
  });
});

describe("audit log of the operator's changes", () => {
  it("records what a tenant was created with: the settings a later tenant.updated shows changing", async () => {
    const t = await createTenant({ name: "Created", use_deployment_keys: true, limits: { requests_per_minute: 120 }, retention_days: 7 });
    const { entries } = (await (await apiAs(t.key, "/v1/audit?limit=10")).json()) as any;
    const created = entries.find((e: any) => e.action === "tenant.created");
    expect(created.detail).toEqual({
      first_key: t.key_id,
      name: "Created",
      use_deployment_keys: true,
      limits: { requests_per_minute: 120 },
      retention_days: 7,
    });
  });

  it("records what a PATCH of the tenant changed, from what to what: disabling and enabling, quotas", async () => {
    const t = await createTenant({ limits: { concurrent_runs: 5 } });
    const patch = (json: unknown) => apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}`, { method: "PATCH", json });
    expect((await patch({ disabled: true })).status).toBe(200);
    expect((await patch({ disabled: false, limits: { requests_per_minute: 60 } })).status).toBe(200);
    const { entries } = (await (await apiAs(t.key, "/v1/audit?limit=2")).json()) as any;
    expect(entries.map((e: any) => e.detail)).toEqual([
      {
        changed: ["limits", "disabled"],
        from: { disabled: true, limits: { concurrent_runs: 5 } },
        // limits merge (a JSON merge patch): concurrent_runs stays.
        to: { disabled: false, limits: { concurrent_runs: 5, requests_per_minute: 60 } },
      },
      { changed: ["disabled"], from: { disabled: false }, to: { disabled: true } },
    ]);
  });
});

describe("request rate per tenant", () => {
  it("sends RateLimit headers on 2xx, and past the quota a 429 with Retry-After; another tenant is unaffected", async () => {
    const t = await createTenant({ limits: { requests_per_minute: 3 } });
    const other = await createTenant({ limits: { requests_per_minute: 3 } });
    const first = await apiAs(t.key, "/v1/runs");
    expect(first.status).toBe(200);
    expect(first.headers.get("RateLimit-Policy")).toBe('"requests";q=3;w=60');
    expect(first.headers.get("RateLimit")).toBe('"requests";r=2;t=20');
    await apiAs(t.key, "/v1/runs");
    await apiAs(t.key, "/v1/runs");
    const refused = await apiAs(t.key, "/v1/runs");
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as any).error.code).toBe("rate_limited");
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("Retry-After"))).toBeLessThanOrEqual(20);
    expect(refused.headers.get("RateLimit")).toMatch(/^"requests";r=0;t=\d+$/);
    expect((await apiAs(other.key, "/v1/runs")).status).toBe(200);
    // the operator raises the quota: it applies on the next request
    await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}`, { method: "PATCH", json: { limits: { requests_per_minute: 100 } } });
    expect((await apiAs(t.key, "/v1/runs")).status).toBe(200);
  });

  it("spends the isolate's batch of tokens one a request: RateLimit's remaining counts down by one", async () => {
    const t = await createTenant({ limits: { requests_per_minute: 6_400 } });
    const left: number[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await apiAs(t.key, "/v1/runs");
      expect(res.status).toBe(200);
      left.push(Number(/r=(\d+)/.exec(res.headers.get("RateLimit") ?? "")?.[1]));
    }
    // within a batch exactly one less each time (the tokens the isolate holds count as left); across
    // batches the bucket's refill (~107 a second) shows too
    expect(left.slice(0, 4)).toEqual([6_399, 6_398, 6_397, 6_396]);
    expect(Math.max(...left.slice(1))).toBeLessThan(6_399);
  });
});
