/**
 * A parameter a route does not declare is refused (400 `invalid_query`, src/http/undeclared-query.ts)
 * only once the caller is authorised: a caller without valid credentials gets its 401, and a key
 * without the route's scope its 403, whatever the query holds. Each auth kind is checked: tenant
 * keys and their scopes (every undeclared-query operation, from the one list in
 * src/openapi/operations/), the operator's token, a trigger's signature and a judge token.
 */
import { sign } from "@octokit/webhooks-methods";
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/openapi/operations";
import type { Operation } from "../../src/openapi/operation";
import { SCOPES, type Scope } from "../../src/schemas/scopes";
import { exactTemplate, fakeModel, uniqueModel } from "./helpers";
import { ADMIN_TOKEN, apiAs, createKey, createTenant, type TestTenant } from "./tenant-helpers";
import { createTrigger, deliver, tenantRows } from "./trigger-helpers";

const UNDECLARED = "undeclared=1";

/** The operation's path with every `:param` filled, and a parameter it does not take. */
const withQuery = (op: Operation) => `${op.path.replace(/:(\w+)/g, "x$1")}?${UNDECLARED}`;

const statusOf = async (res: Response) => ({ status: res.status, code: ((await res.json()) as { error: { code: string } }).error.code });

const undeclaredOps = (kind: Operation["auth"]["kind"]) => OPERATIONS.filter((op) => !op.query && op.auth.kind === kind);

describe("tenant routes without a declared query", () => {
  let t: TestTenant;
  /** For each scope, a key of the tenant holding every scope but that one. */
  const without = new Map<Scope, string>();

  beforeAll(async () => {
    t = await createTenant({ name: "query after auth", limits: { requests_per_minute: 100_000 } });
    for (const s of SCOPES) without.set(s, (await createKey(t.key, { scopes: SCOPES.filter((o) => o !== s) })).key);
  });

  it("answer 401 without a key and 403 to a key without their scope, before the query's 400", async () => {
    const ops = undeclaredOps("tenant");
    expect(ops.length).toBeGreaterThan(20);
    const got: string[] = [];
    for (const op of ops) {
      if (op.auth.kind !== "tenant") continue;
      const noKey = await exports.default.fetch(`http://edgeval.test${withQuery(op)}`, { method: op.method.toUpperCase() });
      const noScope = await apiAs(without.get(op.auth.scope)!, withQuery(op), { method: op.method.toUpperCase() });
      got.push(`${op.method} ${op.path}: ${noKey.status} ${noScope.status}`);
    }
    expect(got).toEqual(ops.map((op) => `${op.method} ${op.path}: 401 403`));
  });

  it("answer 400 invalid_query to a key that holds their scope, before the handler", async () => {
    const ops = undeclaredOps("tenant");
    const got: string[] = [];
    for (const op of ops) {
      const res = await apiAs(t.key, withQuery(op), { method: op.method.toUpperCase() });
      got.push(`${op.method} ${op.path}: ${JSON.stringify(await statusOf(res))}`);
    }
    expect(got).toEqual(ops.map((op) => `${op.method} ${op.path}: ${JSON.stringify({ status: 400, code: "invalid_query" })}`));
  });

  it("writes nothing for a key that holds the scope (a DELETE with a parameter leaves the secret)", async () => {
    const put = await apiAs(t.key, "/v1/secrets/KEPT", { method: "PUT", json: { value: "sk-test", interface: "openai" } });
    expect(put.status).toBe(201);
    expect(await statusOf(await apiAs(t.key, `/v1/secrets/KEPT?force=true`, { method: "DELETE" }))).toEqual({
      status: 400,
      code: "invalid_query",
    });
    expect(await statusOf(await apiAs(without.get("secrets:write")!, `/v1/secrets/KEPT?force=true`, { method: "DELETE" }))).toEqual({
      status: 403,
      code: "forbidden",
    });
    expect((await apiAs(t.key, "/v1/secrets/KEPT", { method: "PUT", json: { value: "sk-test", interface: "openai" } })).status).toBe(200);
  });
});

describe("the operator's routes", () => {
  it("answer 401 without the admin token or with a wrong one, and 400 invalid_query with it", async () => {
    const ops = undeclaredOps("admin");
    expect(ops.length).toBeGreaterThan(0);
    const got: string[] = [];
    for (const op of ops) {
      const init = { method: op.method.toUpperCase() };
      const none = await exports.default.fetch(`http://edgeval.test${withQuery(op)}`, init);
      const wrong = await apiAs("not-the-admin-token", withQuery(op), init);
      const right = await apiAs(ADMIN_TOKEN, withQuery(op), init);
      got.push(`${op.method} ${op.path}: ${none.status} ${wrong.status} ${right.status}`);
    }
    expect(got).toEqual(ops.map((op) => `${op.method} ${op.path}: 401 401 400`));
  });
});

describe("a trigger's delivery (POST /v1/hooks/:trigger_id)", () => {
  it("answers 401 to a bad signature with a parameter, and 400 invalid_query to a good one, starting nothing", async () => {
    const t = await createTenant({ name: "hook query" });
    const bench = await apiAs(t.key, "/v1/benchmarks", {
      method: "POST",
      json: { name: "q", questions: [{ id: "fr", question: "Capital of France?", template: exactTemplate("Paris") }] },
    });
    const trig = await createTrigger(t.key, {
      name: "q",
      benchmark_id: ((await bench.json()) as { benchmark_id: string }).benchmark_id,
      config: {
        answering_models: [{ id: "ci", interface: "manual", manual_answers: {} }],
        parsing_models: [fakeModel("j", uniqueModel("hook-query"))],
      },
      signing: { scheme: "github" },
    });
    const body = JSON.stringify({ ref: "main" });
    const headers = async (secret: string) => ({
      "x-hub-signature-256": await sign(secret, body),
      "x-github-event": "push",
      "x-github-delivery": crypto.randomUUID(),
    });
    const before = await tenantRows(t.tenant_id);
    const forged = await deliver(trig.trigger_id, body, await headers("whsec_not-the-secret"), UNDECLARED);
    expect(await statusOf(forged.res)).toEqual({ status: 401, code: "unauthorized" });
    const signed = await deliver(trig.trigger_id, body, await headers(trig.secret), UNDECLARED);
    expect(await statusOf(signed.res)).toEqual({ status: 400, code: "invalid_query" });
    expect(signed.queueSends + forged.queueSends).toBe(0);
    expect(await tenantRows(t.tenant_id)).toEqual(before);
  });
});

describe("a judge token (POST /v1/judges/:id/promptfoo)", () => {
  it("answers 401 to no, a wrong or a revoked token with a parameter, and 400 invalid_query to a good one", async () => {
    const t = await createTenant({ name: "promptfoo query" });
    const judge = {
      name: "q",
      config: {
        type: "judge",
        prompt: "Does the answer name Paris?",
        scale: { type: "continuous", min: 0, max: 1 },
        threshold: 0.5,
        provider: fakeModel("j", uniqueModel("promptfoo-query")),
      },
    };
    const { judge_id } = (await (await apiAs(t.key, "/v1/judges", { method: "POST", json: judge })).json()) as { judge_id: string };
    const mint = async () =>
      (await (await apiAs(t.key, `/v1/judges/${judge_id}/tokens`, { method: "POST", json: {} })).json()) as {
        token: string;
        token_id: string;
      };
    const [good, revoked] = [await mint(), await mint()];
    expect((await apiAs(t.key, `/v1/judges/${judge_id}/tokens/${revoked.token_id}`, { method: "DELETE" })).status).toBe(200);
    const call = async (query: string) =>
      statusOf(
        await exports.default.fetch(`http://edgeval.test/v1/judges/${judge_id}/promptfoo?${query}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ output: "Paris" }),
        }),
      );
    const unauthorized = { status: 401, code: "unauthorized" };
    expect(await call(UNDECLARED)).toEqual(unauthorized);
    expect(await call(`token=jt_000000000000_${"a".repeat(32)}&${UNDECLARED}`)).toEqual(unauthorized);
    expect(await call(`token=${revoked.token}&${UNDECLARED}`)).toEqual(unauthorized);
    expect(await call(`token=${good.token}&${UNDECLARED}`)).toEqual({ status: 400, code: "invalid_query" });
    // A refused call does not count as a use of the token.
    const tokens = (await (await apiAs(t.key, `/v1/judges/${judge_id}/tokens`)).json()) as {
      tokens: { token_id: string; last_used_at: string | null }[];
    };
    expect(tokens.tokens.find((k) => k.token_id === good.token_id)!.last_used_at).toBeNull();
  });
});
