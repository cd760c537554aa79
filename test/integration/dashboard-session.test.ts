// Issue 25: the dashboard's session and request guards, inside workerd. The cookie names the key id
// and never carries the key; the key is re-checked on every request (revoking it ends the session);
// a forged, altered or expired cookie is refused; POSTs need this origin; pages carry a strict CSP;
// the cookie is Secure outside local mode.
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildWorkerApp } from "../../src/worker-app";
import { addFakeRules, exactTemplate, fakeModel, uniqueModel } from "./helpers";
import { ADMIN_TOKEN, apiAs, createKey, createTenant, submitAs, waitAs } from "./tenant-helpers";
import { dashboardFetch, dashboardSession, ORIGIN } from "./dashboard-helpers";

describe("dashboard sessions", () => {
  it("signs in with an API key: an HttpOnly SameSite=Strict cookie naming the key id, not holding the key", async () => {
    const t = await createTenant();
    const res = await dashboardFetch("/dashboard/sign-in", {
      method: "POST",
      body: new URLSearchParams({ key: t.key }),
      headers: { origin: ORIGIN },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/runs");
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(new RegExp(`^edgeval_session=${t.key_id}\\.\\d+\\.[0-9a-f]{64};`));
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).not.toContain(t.key.slice(16));
    // Local mode (the tests run as a local stack) serves http, so no Secure there.
    expect(cookie).not.toContain("Secure");
    const page = await dashboardFetch("/dashboard/runs", { cookie: cookie.split(";")[0] });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`tenant ${t.tenant_id}`);
  });

  it("refuses a wrong key with the sign-in page again and sets no cookie", async () => {
    const res = await dashboardFetch("/dashboard/sign-in", {
      method: "POST",
      body: new URLSearchParams({ key: "ev_000000000000_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" }),
      headers: { origin: ORIGIN },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await res.text()).toContain("refused");
  });

  it("refuses a disabled tenant's key as the API does: 403, saying the tenant is disabled and whom to ask", async () => {
    const t = await createTenant();
    await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}`, { method: "PATCH", json: { disabled: true } });
    const res = await dashboardFetch("/dashboard/sign-in", {
      method: "POST",
      body: new URLSearchParams({ key: t.key }),
      headers: { origin: ORIGIN },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
    const page = await res.text();
    expect(page).toContain(`tenant ${t.tenant_id} is disabled`);
    expect(page).toContain("ask the operator");
  });

  it("ends the session when its key is revoked: the next page goes to sign-in", async () => {
    const t = await createTenant();
    const other = await createKey(t.key, { scopes: ["runs:read"] });
    const session = await dashboardSession(other.key);
    expect((await dashboardFetch("/dashboard/runs", { cookie: session })).status).toBe(200);
    expect((await apiAs(t.key, `/v1/keys/${other.key_id}`, { method: "DELETE" })).status).toBeLessThan(300);
    const after = await dashboardFetch("/dashboard/runs", { cookie: session });
    expect(after.status).toBe(303);
    expect(after.headers.get("location")).toBe("/dashboard/sign-in");
    // The run page's event stream (an EventSource) answers 401 instead of a redirect.
    expect((await dashboardFetch("/dashboard/runs/x/events", { cookie: session, headers: { accept: "text/event-stream" } })).status).toBe(
      401,
    );
  });

  it("streams a run's events to the session's cookie (the run page's EventSource): results, progress, done", async () => {
    const t = await createTenant();
    const judge = uniqueModel("dash-sse");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "x" } } }]);
    const runId = await submitAs(t.key, {
      benchmark: { name: "dash-sse", questions: [{ id: "a", question: "A?", template: exactTemplate("x") }] },
      config: { answering_models: [{ id: "m", interface: "manual", manual_answers: { a: "x" } }], parsing_models: [fakeModel("j", judge)] },
    });
    await waitAs(t.key, runId);
    const session = await dashboardSession(t.key);
    const res = await dashboardFetch(`/dashboard/runs/${runId}/events`, { cookie: session, headers: { accept: "text/event-stream" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    expect(text.match(/^event: \w+/gm)).toEqual(["event: result", "event: progress", "event: status", "event: done"]);
    // The fake judge has no price: its cost is unknown, as GET /v1/runs/:id says, never 0.
    expect(text).toContain('"cost_usd":null');
    // Without the cookie there is no stream.
    expect((await dashboardFetch(`/dashboard/runs/${runId}/events`, { headers: { accept: "text/event-stream" } })).status).toBe(401);
  });

  it("refuses an altered, re-dated or foreign cookie", async () => {
    const t = await createTenant();
    const session = await dashboardSession(t.key);
    const [name, value] = session.split("=") as [string, string];
    const [keyId, expires, mac] = value.split(".") as [string, string, string];
    const other = await createTenant();
    const forged = [
      `${name}=${keyId}.${Number(expires) + 86_400_000}.${mac}`, // re-dated
      `${name}=${other.key_id}.${expires}.${mac}`, // another tenant's key id
      `${name}=${keyId}.${expires}.${mac.replace(/^./, (c) => (c === "0" ? "1" : "0"))}`, // altered MAC
      `${name}=${keyId}.${Date.now() - 1000}.${mac}`, // expired
      `${name}=deployment.${expires}.${mac}`,
    ];
    for (const cookie of forged) {
      const res = await dashboardFetch("/dashboard/runs", { cookie });
      expect({ cookie, status: res.status }).toEqual({ cookie, status: 303 });
    }
  });

  it("refuses a POST whose Origin is missing or foreign, before looking at the key", async () => {
    const t = await createTenant();
    for (const headers of [{}, { origin: "https://evil.example" }, { origin: "null" }] as Record<string, string>[]) {
      const res = await dashboardFetch("/dashboard/sign-in", { method: "POST", body: new URLSearchParams({ key: t.key }), headers });
      expect(res.status).toBe(403);
      expect(res.headers.get("set-cookie")).toBeNull();
    }
  });

  it("serves pages with a CSP that allows no inline script or foreign origin, and never caches them", async () => {
    const res = await dashboardFetch("/dashboard/sign-in");
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.text()).not.toMatch(/<script>|style=/);
  });

  it("marks the cookie Secure outside local mode", async () => {
    const t = await createTenant();
    const production = { ...env, EDGEVAL_ENV: undefined };
    const req = new Request(`https://edgeval.example/dashboard/sign-in`, {
      method: "POST",
      body: new URLSearchParams({ key: t.key }),
      headers: { origin: "https://edgeval.example" },
    });
    const res = await buildWorkerApp().fetch(req, production, createExecutionContext());
    expect(res.status).toBe(303);
    expect(res.headers.get("set-cookie")).toContain("Secure");
  });
});
