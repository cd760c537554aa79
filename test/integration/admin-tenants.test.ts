/**
 * The operator's tenant routes. GET /v1/admin/tenants: every tenant, paged as the tenant lists are
 * (`?limit=&cursor=`, newest first with the id breaking ties, `next_cursor` null on the last page),
 * with the quotas in force and how many keys still work, never key material; one tenant as the list
 * shows it; its month of usage; its keys, listed and revoked; an empty PATCH refused.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/app";
import { insertLedgerRows } from "../../src/tenants/usage";
import { ADMIN_TOKEN, apiAs, createKey, createTenant } from "./tenant-helpers";

interface Listed {
  tenant_id: string;
  created_at: string;
  active_keys: number;
  limits: Record<string, unknown>;
  effective_limits: Record<string, unknown>;
}

async function page(query: string): Promise<{ tenants: Listed[]; next_cursor: string | null }> {
  const res = await apiAs(ADMIN_TOKEN, `/v1/admin/tenants${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { tenants: Listed[]; next_cursor: string | null };
}

async function everyTenant(limit: number): Promise<{ tenants: Listed[]; pages: number }> {
  const tenants: Listed[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const p = await page(`?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(p.tenants.length).toBeLessThanOrEqual(limit);
    tenants.push(...p.tenants);
    cursor = p.next_cursor;
    pages++;
  } while (cursor !== null && pages < 100);
  return { tenants, pages };
}

describe("GET /v1/admin/tenants", () => {
  it("answers only the operator token: no token and a tenant's all-scope key are 401", async () => {
    const t = await createTenant();
    expect((await apiAs("not-the-admin-token", "/v1/admin/tenants")).status).toBe(401);
    expect((await apiAs(t.key, "/v1/admin/tenants")).status).toBe(401);
  });

  it("pages every tenant newest first, the id breaking ties, each once, next_cursor null at the end", async () => {
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await createTenant({ name: `paged ${i}` })).tenant_id);
    const { tenants, pages } = await everyTenant(2);
    const ids = tenants.map((t) => t.tenant_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining([...made, "default"]));
    const sorted = [...tenants].sort((a, b) =>
      a.created_at === b.created_at ? b.tenant_id.localeCompare(a.tenant_id) : b.created_at.localeCompare(a.created_at),
    );
    expect(ids).toEqual(sorted.map((t) => t.tenant_id));
    expect(pages).toBe(Math.ceil(tenants.length / 2) + (tenants.length % 2 === 0 ? 1 : 0));
    // The migration's `default` tenant is the oldest.
    expect(ids.at(-1)).toBe("default");
  });

  it("counts only the keys that work now, and shows the quotas in force over the overrides", async () => {
    const t = await createTenant({ limits: { requests_per_minute: 1234 } });
    const revoked = await createKey(t.key, { scopes: ["runs:read"] });
    await apiAs(t.key, `/v1/keys/${revoked.key_id}`, { method: "DELETE" });
    const expired = await createKey(t.key, { scopes: ["runs:read"], expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    await env.DB.prepare("UPDATE api_keys SET expires_at = ? WHERE key_id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), expired.key_id)
      .run();
    const later = await createKey(t.key, { scopes: ["runs:read"], expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    const bare = await createTenant();
    await apiAs(bare.key, `/v1/keys/${bare.key_id}`, { method: "DELETE" });

    const { tenants } = await everyTenant(500);
    const listed = tenants.find((x) => x.tenant_id === t.tenant_id)!;
    // The first key and `later`; not the revoked one, not the expired one.
    expect(listed.active_keys).toBe(2);
    expect(listed.limits).toEqual({ requests_per_minute: 1234 });
    expect(listed.effective_limits).toEqual({
      requests_per_minute: 1234,
      concurrent_runs: 10,
      jobs_per_run: 100_000,
      monthly_spend_usd: null,
    });
    expect(tenants.find((x) => x.tenant_id === bare.tenant_id)!.active_keys).toBe(0);

    const text = JSON.stringify(tenants);
    for (const key of [t.key, later.key, bare.key]) expect(text).not.toContain(key.split("_")[2]);
    expect(text).not.toContain("key_hash");
  });

  it.each([
    ["limit=0", "query limit"],
    ["limit=501", "query limit"],
    ["cursor=not-a-cursor", "query cursor"],
    ["tenant=acme", "query tenant"],
  ])("refuses ?%s with 400 invalid_query at %s", async (query, path) => {
    const res = await apiAs(ADMIN_TOKEN, `/v1/admin/tenants?${query}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; issues: { path: string }[] } };
    expect(body.error.code).toBe("invalid_query");
    expect(body.error.issues.map((i) => i.path)).toContain(path);
  });

  it("answers GET /v1/admin/tenants/:id with what the list shows of the tenant: quotas in force, working keys", async () => {
    const t = await createTenant({ limits: { concurrent_runs: 3 } });
    await createKey(t.key, { scopes: ["runs:read"] });
    const one = (await (await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}`)).json()) as { tenant: Listed };
    const { tenants } = await everyTenant(500);
    expect(one.tenant).toEqual(tenants.find((x) => x.tenant_id === t.tenant_id));
    expect(one.tenant).toMatchObject({ active_keys: 2, effective_limits: { concurrent_runs: 3, requests_per_minute: 600 } });
  });

  it("points a lookup of an unknown tenant at the list", async () => {
    for (const path of ["/v1/admin/tenants/no-such-tenant", "/v1/admin/tenants/Not_An_Id"]) {
      const res = await apiAs(ADMIN_TOKEN, path);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain("list them with GET /v1/admin/tenants");
    }
  });
});

describe("PATCH /v1/admin/tenants/:id", () => {
  it("refuses a body that changes nothing, writing no audit entry, as PATCH /v1/schedules/:id does", async () => {
    const t = await createTenant();
    const audited = async () =>
      (await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_log WHERE tenant_id = ?").bind(t.tenant_id).first<{ n: number }>())!.n;
    const before = await audited();
    const res = await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}`, { method: "PATCH", json: {} });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; issues: { path: string; message: string }[] } };
    expect(error.code).toBe("invalid_body");
    expect(error.issues[0]!.message).toContain("send at least one of name, use_deployment_keys, limits, retention_days, disabled");
    expect(await audited()).toBe(before);
    // A field it does not take is named alone, not also as "send at least one".
    const unknown = await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}`, { method: "PATCH", json: { tenant_id: "x" } });
    expect(((await unknown.json()) as { error: { issues: { path: string }[] } }).error.issues.map((i) => i.path)).toEqual(["tenant_id"]);
  });

  it("merges limits as a JSON merge patch: keys sent replace theirs, null removes one (its default again), the rest stay", async () => {
    const t = await createTenant({ limits: { concurrent_runs: 3, requests_per_minute: 120, monthly_spend_usd: 50 } });
    const patch = async (limits: unknown) => {
      const res = await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}`, { method: "PATCH", json: { limits } });
      return { status: res.status, body: (await res.json()) as any };
    };
    const raised = await patch({ concurrent_runs: 5 });
    expect(raised.status).toBe(200);
    expect(raised.body.tenant.limits).toEqual({ concurrent_runs: 5, requests_per_minute: 120, monthly_spend_usd: 50 });
    expect((await patch({ requests_per_minute: null, jobs_per_run: 1000 })).body.tenant.limits).toEqual({
      concurrent_runs: 5,
      jobs_per_run: 1000,
      monthly_spend_usd: 50,
    });
    const one = (await (await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}`)).json()) as { tenant: Listed };
    expect(one.tenant.effective_limits).toEqual({
      concurrent_runs: 5,
      jobs_per_run: 1000,
      monthly_spend_usd: 50,
      requests_per_minute: 600,
    });
    // A bad value is a 400 at its path, and nothing changes.
    const bad = await patch({ concurrent_runs: 0, monthly_spend_usd: null });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues.map((i: { path: string }) => i.path)).toEqual(["limits.concurrent_runs"]);
    const { entries } = (await (await apiAs(t.key, "/v1/audit?limit=1")).json()) as any;
    expect(entries[0].detail).toEqual({
      changed: ["limits"],
      from: { limits: { concurrent_runs: 5, requests_per_minute: 120, monthly_spend_usd: 50 } },
      to: { limits: { concurrent_runs: 5, jobs_per_run: 1000, monthly_spend_usd: 50 } },
    });
    // `limits: {}` changes nothing now; it restored the defaults before 8 Dec: a 400 that says what to send.
    const empty = await patch({});
    expect(empty.status).toBe(400);
    expect(empty.body.error.issues).toEqual([{ path: "limits", message: expect.stringContaining("limits: null") }]);
    expect((await patch({ concurrent_runs: 5 })).body.tenant.limits).toEqual({
      concurrent_runs: 5,
      jobs_per_run: 1000,
      monthly_spend_usd: 50,
    });
    // `limits: null` removes every override (RFC 7396: null removes the member): the defaults again.
    const reset = await patch(null);
    expect(reset.status).toBe(200);
    expect(reset.body.tenant.limits).toEqual({});
  });
});

/**
 * The env's D1, except that another operator's PATCH {disabled: true} lands once right before this
 * request writes the tenant: between its read and its write, as two PATCHes at once can interleave.
 */
function disabledMeanwhile(db: D1Database, tenantId: string): D1Database {
  let landed = false;
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "batch")
        return async (statements: D1PreparedStatement[]) => {
          if (!landed) {
            landed = true;
            await target
              .prepare("UPDATE tenants SET disabled = 1, updated_at = ? WHERE tenant_id = ?")
              .bind(new Date(Date.now() - 1).toISOString(), tenantId)
              .run();
          }
          return target.batch(statements);
        };
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("PATCH /v1/admin/tenants/:id racing another", () => {
  it("loses no change another PATCH made between its read and its write: a disable stays, the limits still change", async () => {
    const t = await createTenant({ limits: { requests_per_minute: 120 } });
    const path = `/v1/admin/tenants/${t.tenant_id}`;
    const res = await buildApp().fetch(
      new Request(`http://edgeval.test${path}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ limits: { concurrent_runs: 7 } }),
      }),
      { ...env, DB: disabledMeanwhile(env.DB, t.tenant_id) },
      createExecutionContext(),
    );
    expect(res.status).toBe(200);
    const { tenant } = (await (await apiAs(ADMIN_TOKEN, path)).json()) as { tenant: Listed & { disabled: boolean } };
    expect(tenant.disabled).toBe(true);
    expect(tenant.limits).toEqual({ requests_per_minute: 120, concurrent_runs: 7 });
    const entries = await env.DB.prepare("SELECT detail_json FROM audit_log WHERE tenant_id = ? AND action = 'tenant.updated'")
      .bind(t.tenant_id)
      .all<{ detail_json: string }>();
    expect(entries.results.map((e) => JSON.parse(e.detail_json))).toEqual([
      {
        changed: ["limits"],
        from: { limits: { requests_per_minute: 120 } },
        to: { limits: { requests_per_minute: 120, concurrent_runs: 7 } },
      },
    ]);
  });
});

describe("GET /v1/admin/tenants/:id/usage", () => {
  it("shows the operator a tenant's month exactly as the tenant sees it, and only that tenant's", async () => {
    const t = await createTenant({ limits: { monthly_spend_usd: 50 } });
    const other = await createTenant();
    const row = (tenant_id: string, row_key: string, cost_usd: number | null) => ({
      tenant_id,
      run_id: "r1",
      row_key,
      month: "2026-11",
      model: "openai:gpt-x",
      input_tokens: 100,
      output_tokens: 10,
      cost_usd,
      cached: false,
    });
    await insertLedgerRows(env.DB, [row(t.tenant_id, "a", 0.25), row(t.tenant_id, "b", null), row(other.tenant_id, "a", 9)]);
    const asOperator = await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}/usage?month=2026-11`);
    expect(asOperator.status).toBe(200);
    const seen = await asOperator.json();
    expect(seen).toEqual(await (await apiAs(t.key, "/v1/usage?month=2026-11")).json());
    expect(seen).toMatchObject({ month: "2026-11", total: { calls: 2, cost_usd: 0.25, unpriced_calls: 1 }, monthly_spend_usd: 50 });
  });

  it("answers only the operator, 404 for an unknown tenant, 400 naming a bad month", async () => {
    const t = await createTenant();
    expect((await apiAs(t.key, `/v1/admin/tenants/${t.tenant_id}/usage`)).status).toBe(401);
    expect((await apiAs(ADMIN_TOKEN, "/v1/admin/tenants/no-such-tenant/usage")).status).toBe(404);
    const bad = await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}/usage?month=2026-13`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { issues: { path: string }[] } }).error.issues.map((i) => i.path)).toEqual(["query month"]);
  });
});

describe("the operator and a tenant's keys", () => {
  it("lists a tenant's keys (never the key or its hash) and revokes one, audited, refused on the next request", async () => {
    const t = await createTenant();
    const leaked = await createKey(t.key, { name: "leaked", scopes: ["runs:read"] });
    const path = `/v1/admin/tenants/${t.tenant_id}/keys`;
    const listed = await apiAs(ADMIN_TOKEN, `${path}?limit=1`);
    expect(listed.status).toBe(200);
    const page = (await listed.json()) as { keys: { key_id: string }[]; next_cursor: string | null };
    expect(page.keys.map((k) => k.key_id)).toEqual([leaked.key_id]);
    const rest = (await (await apiAs(ADMIN_TOKEN, `${path}?cursor=${page.next_cursor}`)).json()) as { keys: { key_id: string }[] };
    expect(rest.keys.map((k) => k.key_id)).toEqual([t.key_id]);
    const text = JSON.stringify([page, rest]);
    for (const key of [t.key, leaked.key]) expect(text).not.toContain(key.split("_")[2]);
    expect(text).not.toContain("key_hash");

    expect((await apiAs(leaked.key, "/v1/runs")).status).toBe(200);
    const revoked = await apiAs(ADMIN_TOKEN, `${path}/${leaked.key_id}`, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    expect(((await revoked.json()) as { revoked_at: string | null }).revoked_at).not.toBeNull();
    const refused = await apiAs(leaked.key, "/v1/runs");
    expect(refused.status).toBe(401);
    expect((await apiAs(t.key, "/v1/runs")).status).toBe(200);
    // Revoking again changes nothing and writes no second entry.
    expect((await apiAs(ADMIN_TOKEN, `${path}/${leaked.key_id}`, { method: "DELETE" })).status).toBe(200);
    const { entries } = (await (await apiAs(t.key, "/v1/audit?limit=10")).json()) as {
      entries: { action: string; actor: string; target: string }[];
    };
    expect(entries.filter((e) => e.action === "key.revoked")).toEqual([
      expect.objectContaining({ actor: "operator", target: leaked.key_id }),
    ]);
  });

  it("answers another tenant's key id, an unknown key or tenant with 404, and a tenant key with 401", async () => {
    const t = await createTenant();
    const other = await createTenant();
    expect((await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}/keys/${other.key_id}`, { method: "DELETE" })).status).toBe(404);
    expect((await apiAs(other.key, "/v1/runs")).status).toBe(200);
    expect((await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}/keys/000000000000`, { method: "DELETE" })).status).toBe(404);
    expect((await apiAs(ADMIN_TOKEN, "/v1/admin/tenants/no-such-tenant/keys")).status).toBe(404);
    expect((await apiAs(t.key, `/v1/admin/tenants/${t.tenant_id}/keys`)).status).toBe(401);
  });
});
