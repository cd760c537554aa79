/**
 * A /v1 route that declares no query refuses every query parameter (src/http/undeclared-query.ts):
 * a 400 `invalid_query` at `query <name>` before the handler runs, so a write with one writes
 * nothing. The parameters an auth kind carries (a judge token's `?token=`) are still taken, a route
 * with its own query still checks it itself, and 401, 404 and 405 answer as before.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { addFakeRules, api, fakeModel, uniqueModel } from "./helpers";
import { ADMIN_TOKEN, apiAs, createTenant } from "./tenant-helpers";

type ErrorBody = { error: { code: string; message: string; issues?: { path: string; message: string }[] } };

async function refusal(res: Response) {
  return { status: res.status, error: ((await res.json()) as ErrorBody).error };
}

const none = (route: string) => `${route} takes no query parameters; remove it`;

const SECRET = { value: "sk-test", interface: "openai", origins: ["https://api.openai.com"] };

const secretNames = async (key: string) =>
  ((await (await apiAs(key, "/v1/secrets")).json()) as { secrets: { name: string }[] }).secrets.map((s) => s.name);

const keyIds = async (key: string) =>
  ((await (await apiAs(key, "/v1/keys")).json()) as { keys: { key_id: string }[] }).keys.map((k) => k.key_id);

describe("a /v1 route without a declared query", () => {
  it("refuses a parameter on a read, naming it and the route (GET /v1/runs/:id, GET /v1/webhook-endpoints, GET /v1/presets/:id)", async () => {
    const t = await createTenant();
    for (const [path, name, route] of [
      ["/v1/runs/some-run?include=results", "include", "GET /v1/runs/:id"],
      ["/v1/webhook-endpoints?enabled=true", "enabled", "GET /v1/webhook-endpoints"],
      ["/v1/presets/some-preset?version=2", "version", "GET /v1/presets/:id"],
    ] as const) {
      expect(await refusal(await apiAs(t.key, path)), path).toEqual({
        status: 400,
        error: expect.objectContaining({ code: "invalid_query", issues: [{ path: `query ${name}`, message: none(route) }] }),
      });
    }
  });

  it("names every parameter sent, each once", async () => {
    const t = await createTenant();
    const { error } = await refusal(await apiAs(t.key, "/v1/webhook-endpoints?name=a&name=b&expand="));
    expect(error.issues).toEqual([
      { path: "query name", message: none("GET /v1/webhook-endpoints") },
      { path: "query expand", message: none("GET /v1/webhook-endpoints") },
    ]);
    expect(error.message).toBe(`query name: ${none("GET /v1/webhook-endpoints")} (and 1 more)`);
  });

  it("writes nothing when a PUT, a POST or a DELETE carries a parameter", async () => {
    const t = await createTenant();
    const put = await refusal(await apiAs(t.key, "/v1/secrets/KEPT_KEY?overwrite=false", { method: "PUT", json: SECRET }));
    expect(put).toMatchObject({ status: 400, error: { code: "invalid_query", issues: [{ path: "query overwrite" }] } });
    expect(await secretNames(t.key)).toEqual([]);

    expect((await apiAs(t.key, "/v1/secrets/KEPT_KEY", { method: "PUT", json: SECRET })).status).toBe(201);
    const del = await refusal(await apiAs(t.key, "/v1/secrets/KEPT_KEY?force=true", { method: "DELETE" }));
    expect(del).toEqual({
      status: 400,
      error: expect.objectContaining({ issues: [{ path: "query force", message: none("DELETE /v1/secrets/:name") }] }),
    });
    expect(await secretNames(t.key)).toEqual(["KEPT_KEY"]);

    const keysBefore = await keyIds(t.key);
    const post = await refusal(await apiAs(t.key, "/v1/keys?dry_run=true", { method: "POST", json: { name: "k", scopes: ["runs:read"] } }));
    expect(post).toMatchObject({ status: 400, error: { issues: [{ path: "query dry_run", message: none("POST /v1/keys") }] } });
    expect(await keyIds(t.key)).toEqual(keysBefore);
  });

  it("refuses a parameter on the operator's routes too, leaving the tenant as it was (GET and PATCH /v1/admin/tenants/:id)", async () => {
    const t = await createTenant({ retention_days: 30 });
    const path = `/v1/admin/tenants/${t.tenant_id}`;
    const before = await (await apiAs(ADMIN_TOKEN, path)).json();
    const read = await refusal(await apiAs(ADMIN_TOKEN, `${path}?verbose=1`));
    expect(read).toMatchObject({ status: 400, error: { issues: [{ path: "query verbose", message: none("GET /v1/admin/tenants/:id") }] } });
    const patch = await refusal(await apiAs(ADMIN_TOKEN, `${path}?notify=false`, { method: "PATCH", json: { retention_days: 7 } }));
    expect(patch).toMatchObject({
      status: 400,
      error: { issues: [{ path: "query notify", message: none("PATCH /v1/admin/tenants/:id") }] },
    });
    expect(await (await apiAs(ADMIN_TOKEN, path)).json()).toEqual(before);
  });

  it("answers HEAD as GET: 200 without a parameter, 400 with one", async () => {
    const t = await createTenant();
    expect((await apiAs(t.key, "/v1/webhook-endpoints", { method: "HEAD" })).status).toBe(200);
    expect((await apiAs(t.key, "/v1/webhook-endpoints?name=x", { method: "HEAD" })).status).toBe(400);
  });

  it("keeps 401 before it (no key), 404 for an unknown path and 405 for a method the path does not take", async () => {
    const noKey = await exports.default.fetch("http://edgeval.test/v1/secrets?name=x");
    expect(noKey.status).toBe(401);
    const t = await createTenant();
    expect(await refusal(await apiAs(t.key, "/v1/nothing-here?x=1"))).toMatchObject({ status: 404, error: { code: "not_found" } });
    const wrong = await apiAs(t.key, "/v1/secrets?name=x", { method: "POST", json: SECRET });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("routes whose query is declared", () => {
  it("leaves a route's own query to it: GET /v1/runs?limit=1 lists, ?limt=5 gets the route's own message", async () => {
    const t = await createTenant();
    expect((await apiAs(t.key, "/v1/runs?limit=1")).status).toBe(200);
    const { error } = await refusal(await apiAs(t.key, "/v1/runs?limt=5"));
    expect(error.issues).toEqual([{ path: "query limt", message: expect.stringContaining("unknown field") }]);
  });

  it("reads GET /v1/runs/compare?a=&b= as the compare route's query, not as /v1/runs/:id's (which takes none)", async () => {
    const t = await createTenant();
    const res = await refusal(await apiAs(t.key, "/v1/runs/compare?a=no-such-run&b=other-run"));
    expect(res).toMatchObject({ status: 404, error: { code: "not_found" } });
  });

  it("takes the judge token of POST /v1/judges/:id/promptfoo, and refuses any other parameter or a second token", async () => {
    const model = uniqueModel("uq-promptfoo");
    await addFakeRules([{ match: { model }, reply: { json: { answer: 0.9 } } }]);
    const judge = {
      name: "q",
      config: {
        type: "judge",
        prompt: "Reference: <<{{reference}}>>. Does the answer name it?",
        scale: { type: "continuous", min: 0, max: 1 },
        threshold: 0.5,
        provider: fakeModel("j", model),
        retries: 1,
      },
      mapping: { reference: "expected" },
    };
    const stored = (await (await api("/v1/judges", { method: "POST", json: judge })).json()) as { judge_id: string };
    const minted = await api(`/v1/judges/${stored.judge_id}/tokens`, { method: "POST", json: { name: "ci" } });
    const { token, promptfoo_url } = (await minted.json()) as { token: string; promptfoo_url: string };
    // What promptfoo's webhook assertion sends: only Content-Type, the token in the URL.
    const call = (url: string) =>
      exports.default.fetch(`http://edgeval.test${url}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ output: "Paris", context: { prompt: "Capital?", vars: { expected: "Paris" } } }),
      });
    expect(await (await call(promptfoo_url)).json()).toEqual({ pass: true, score: 0.9, reason: expect.any(String) });
    const extra = await refusal(await call(`${promptfoo_url}&debug=1`));
    expect(extra).toEqual({
      status: 400,
      error: expect.objectContaining({
        code: "invalid_query",
        issues: [{ path: "query debug", message: "POST /v1/judges/:id/promptfoo takes no query parameter but token; remove it" }],
      }),
    });
    const twice = await refusal(await call(`${promptfoo_url}&token=${token}`));
    expect(twice).toMatchObject({
      status: 400,
      error: { issues: [{ path: "query token", message: expect.stringContaining("given 2 times") }] },
    });
  });
});
