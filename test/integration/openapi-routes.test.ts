/**
 * Issue 24: /openapi.json documents exactly the /v1 routes the app serves (read from app.routes, so
 * a route added without documentation fails here, named), and /docs renders it with no script and
 * no third-party origin, under a strict Content-Security-Policy.
 */
import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/app";
import { openApiDocument } from "../../src/openapi/document";

type Json = Record<string, any>;

/** `METHOD /v1/path/:param` of every handler under /v1 (middleware is registered as ALL). */
function servedRoutes(app: Hono<any>): string[] {
  const out = app.routes
    .filter((r) => r.method !== "ALL" && r.path.startsWith("/v1/"))
    .map((r) => `${r.method} ${r.path.replace(/\/$/, "")}`);
  return [...new Set(out)].sort();
}

function documentedRoutes(doc: Json): string[] {
  return Object.entries<Json>(doc.paths)
    .flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`))
    .sort();
}

/** The coverage check, as a message that names each route and where to add it. */
function coverageProblems(app: Hono<any>, doc: Json): string[] {
  const served = servedRoutes(app);
  const documented = new Set(documentedRoutes(doc));
  const missing = served
    .filter((r) => !documented.has(r))
    .map((r) => `${r} is served but not in /openapi.json: add it to src/openapi/operations/ (its resource's file)`);
  const stale = [...documented]
    .filter((r) => !served.includes(r))
    .map((r) => `${r} is in /openapi.json but the app does not serve it: remove it from src/openapi/operations/`);
  return [...missing, ...stale];
}

describe("/openapi.json and the app's routes", () => {
  const app = buildApp();
  const doc = openApiDocument() as Json;

  it("documents every /v1 route of app.routes, and no route the app does not serve", () => {
    expect(servedRoutes(app).length).toBeGreaterThan(25);
    expect(coverageProblems(app, doc)).toEqual([]);
  });

  it("names a route added to the app without documentation", () => {
    const extended = buildApp();
    const hooks = new Hono();
    hooks.get("/:id/things", (c) => c.json({}));
    extended.route("/v1/example-resources", hooks);
    expect(coverageProblems(extended, doc)).toEqual([
      "GET /v1/example-resources/:id/things is served but not in /openapi.json: add it to src/openapi/operations/ (its resource's file)",
    ]);
  });

  it("serves the document at /openapi.json without a token", async () => {
    const res = await app.fetch(new Request("http://edgeval.test/openapi.json"), env);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it("renders /docs with every operation, no script and nothing from another origin, under a CSP", async () => {
    const res = await app.fetch(new Request("http://edgeval.test/docs"), env);
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/https?:|unsafe-inline|unsafe-eval/);
    const html = await res.text();
    expect(html).not.toMatch(/<script/i);
    // Every URL the page loads or links to is on this origin (or a fragment).
    const urls = [...html.matchAll(/(?:href|src)="([^"]*)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThan(50);
    for (const u of urls) expect(u, u).toMatch(/^(#|\/(?!\/))/);
    for (const r of documentedRoutes(doc)) expect(html).toContain(`<code>${r.split(" ")[1]!.replace(/:(\w+)/g, "{$1}")}</code>`);
    expect(html).toContain('id="error-idempotency_conflict"');
    const css = await app.fetch(new Request("http://edgeval.test/docs/docs.css"), env);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
    expect(await css.text()).not.toMatch(/url\(|@import/);
  });
});
