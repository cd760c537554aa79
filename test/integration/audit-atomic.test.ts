/**
 * A change (a revocation, a deletion, a run's too, the operator's PATCH of a tenant, a secret set)
 * and its audit entry are written together or not at all. When the audit write failed after the
 * change had landed, the caller got a 500, retried, and the retry found
 * nothing left to revoke or delete: the change was never audited. Here every audit insert fails
 * (as a D1 write can), then the same request is sent again with the audit log working.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/app";
import { forgetAllAuth } from "../../src/tenants/auth-cache";
import { addFakeRules, exactTemplate, fakeModel, r2Keys, uniqueModel } from "./helpers";
import { ADMIN_TOKEN, apiAs, createKey, createTenant, runAs, submitAs, type TestTenant } from "./tenant-helpers";
import { hookUrl } from "./webhook-helpers";

/** The env's D1, except that every insert into the audit log fails. */
function failingAudit(db: D1Database): D1Database {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare")
        return (sql: string) => target.prepare(sql.replace(/INSERT INTO audit_log\b/, "INSERT INTO audit_log_unavailable"));
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The request, against the app whose audit inserts fail. */
async function withAuditDown(key: string, path: string, method: string, json?: unknown): Promise<number> {
  forgetAllAuth();
  const body = json === undefined ? {} : { body: JSON.stringify(json), headers: { "content-type": "application/json" } };
  const res = await buildApp().fetch(
    new Request(`http://edgeval.test${path}`, { method, ...body, headers: { ...body.headers, authorization: `Bearer ${key}` } }),
    { ...env, DB: failingAudit(env.DB) },
    createExecutionContext(),
  );
  return res.status;
}

async function audited(t: TestTenant, action: string, target: string): Promise<number> {
  const { entries } = (await (await apiAs(t.key, "/v1/audit?limit=100")).json()) as { entries: { action: string; target: string }[] };
  return entries.filter((e) => e.action === action && e.target === target).length;
}

describe("a revocation or deletion whose audit entry cannot be written", () => {
  it("revokes no key, and the retry revokes it with its key.revoked entry", async () => {
    const t = await createTenant();
    const k = await createKey(t.key, { scopes: ["runs:read"] });
    expect(await withAuditDown(t.key, `/v1/keys/${k.key_id}`, "DELETE")).toBe(500);
    forgetAllAuth();
    expect((await apiAs(k.key, "/v1/usage")).status).toBe(200);
    expect((await apiAs(t.key, `/v1/keys/${k.key_id}`, { method: "DELETE" })).status).toBe(200);
    expect(await audited(t, "key.revoked", k.key_id)).toBe(1);
  });

  it("deletes no secret, and the retry deletes it with its secret.deleted entry", async () => {
    const t = await createTenant();
    expect(
      (await apiAs(t.key, "/v1/secrets/GONE_KEY", { method: "PUT", json: { value: "sk-gone-key", interface: "openai" } })).status,
    ).toBe(201);
    expect(await withAuditDown(t.key, "/v1/secrets/GONE_KEY", "DELETE")).toBe(500);
    expect((await (await apiAs(t.key, "/v1/secrets")).json()) as any).toMatchObject({ secrets: [{ name: "GONE_KEY" }] });
    expect((await apiAs(t.key, "/v1/secrets/GONE_KEY", { method: "DELETE" })).status).toBe(200);
    expect(await audited(t, "secret.deleted", "GONE_KEY")).toBe(1);
  });

  it("revokes no judge token, and the retry revokes it with its judge_token.revoked entry", async () => {
    const t = await createTenant();
    const judge_id = await storeJudge(t.key, uniqueModel("audit-atomic"));
    const { token_id } = (await (await apiAs(t.key, `/v1/judges/${judge_id}/tokens`, { method: "POST", json: {} })).json()) as any;
    const path = `/v1/judges/${judge_id}/tokens/${token_id}`;
    expect(await withAuditDown(t.key, path, "DELETE")).toBe(500);
    const listed = (await (await apiAs(t.key, `/v1/judges/${judge_id}/tokens`)).json()) as any;
    expect(listed.tokens[0].revoked_at).toBeNull();
    expect((await apiAs(t.key, path, { method: "DELETE" })).status).toBe(200);
    expect(await audited(t, "judge_token.revoked", token_id)).toBe(1);
  });
});

/** The status and how many rows of `table` the tenant has after the request. */
/** A stored judge of `key`'s tenant calling `model` on the fake; its id. */
async function storeJudge(key: string, model: string): Promise<string> {
  const judge = {
    name: "j",
    config: {
      type: "judge",
      prompt: "Is it Paris?",
      scale: { type: "continuous", min: 0, max: 1 },
      threshold: 0.5,
      provider: fakeModel("j", model),
    },
  };
  return ((await (await apiAs(key, "/v1/judges", { method: "POST", json: judge })).json()) as { judge_id: string }).judge_id;
}

/** A one-question benchmark stored for `key`'s tenant; its id. */
async function storeBenchmark(key: string): Promise<string> {
  const res = await apiAs(key, "/v1/benchmarks", {
    method: "POST",
    json: { name: "b", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
  });
  return ((await res.json()) as { benchmark_id: string }).benchmark_id;
}

async function rowsOf(t: TestTenant, table: string): Promise<number> {
  return (await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE tenant_id = ?`).bind(t.tenant_id).first<{ n: number }>())!.n;
}

/**
 * A credential (a trigger's or an endpoint's signing secret, a judge token) created or deleted
 * apart from its entry: when the entry failed, a created one was live with a secret no one was
 * shown (a retry made a second: a webhook endpoint then got every event twice), and a deleted one
 * was gone unaudited, its retry a 404.
 */
describe("a credential created or deleted whose audit entry cannot be written", () => {
  it("creates no trigger, and deletes none, until the entry can be written; each retry writes one entry", async () => {
    const t = await createTenant();
    const benchmark_id = await storeBenchmark(t.key);
    const body = {
      name: "gh",
      benchmark_id,
      config: { answering_models: [{ id: "ci", interface: "manual", manual_answers: {} }], parsing_models: [fakeModel("j", "m")] },
      signing: { scheme: "github" },
      mapping: { manual_answers: { pointer: "/answers" } },
    };
    expect(await withAuditDown(t.key, "/v1/triggers", "POST", body)).toBe(500);
    expect(await rowsOf(t, "triggers")).toBe(0);
    const created = await apiAs(t.key, "/v1/triggers", { method: "POST", json: body });
    expect(created.status).toBe(201);
    const { trigger_id } = (await created.json()) as { trigger_id: string };
    expect(await audited(t, "trigger.created", trigger_id)).toBe(1);
    expect(await withAuditDown(t.key, `/v1/triggers/${trigger_id}`, "DELETE")).toBe(500);
    expect(await rowsOf(t, "triggers")).toBe(1);
    expect((await apiAs(t.key, `/v1/triggers/${trigger_id}`, { method: "DELETE" })).status).toBe(200);
    expect(await audited(t, "trigger.deleted", trigger_id)).toBe(1);
  });

  it("creates no webhook endpoint, and deletes none, until the entry can be written", async () => {
    const t = await createTenant();
    const body = { url: hookUrl("audit-atomic") };
    expect(await withAuditDown(t.key, "/v1/webhook-endpoints", "POST", body)).toBe(500);
    expect(await rowsOf(t, "webhook_endpoints")).toBe(0);
    const created = await apiAs(t.key, "/v1/webhook-endpoints", { method: "POST", json: body });
    expect(created.status).toBe(201);
    const { endpoint_id } = (await created.json()) as { endpoint_id: string };
    expect(await audited(t, "webhook.created", endpoint_id)).toBe(1);
    // A rotation whose entry failed left a new secret no one was shown signing, and the retry's
    // rotation then dropped the secret the receiver still held from the overlap.
    expect(await withAuditDown(t.key, `/v1/webhook-endpoints/${endpoint_id}/rotate-secret`, "POST", {})).toBe(500);
    const prev = () => env.DB.prepare("SELECT prev_ciphertext FROM webhook_endpoints WHERE endpoint_id = ?").bind(endpoint_id).first();
    expect(await prev()).toEqual({ prev_ciphertext: null });
    expect(await withAuditDown(t.key, `/v1/webhook-endpoints/${endpoint_id}`, "PATCH", { description: "changed" })).toBe(500);
    expect(
      ((await (await apiAs(t.key, `/v1/webhook-endpoints/${endpoint_id}`)).json()) as { description: string | null }).description,
    ).not.toBe("changed");
    expect(await withAuditDown(t.key, `/v1/webhook-endpoints/${endpoint_id}`, "DELETE")).toBe(500);
    expect(await rowsOf(t, "webhook_endpoints")).toBe(1);
    expect((await apiAs(t.key, `/v1/webhook-endpoints/${endpoint_id}`, { method: "DELETE" })).status).toBe(200);
    expect(await audited(t, "webhook.deleted", endpoint_id)).toBe(1);
  });

  it("deletes no benchmark row until its benchmark.deleted entry can be written; the retry deletes it with the entry", async () => {
    const t = await createTenant();
    const benchmark_id = await storeBenchmark(t.key);
    expect(await withAuditDown(t.key, `/v1/benchmarks/${benchmark_id}`, "DELETE")).toBe(500);
    expect(await rowsOf(t, "benchmarks")).toBe(1);
    expect((await apiAs(t.key, `/v1/benchmarks/${benchmark_id}`, { method: "DELETE" })).status).toBe(200);
    expect(await rowsOf(t, "benchmarks")).toBe(0);
    expect(await audited(t, "benchmark.deleted", benchmark_id)).toBe(1);
  });

  it("creates no schedule, and deletes none, until the entry can be written: a retried create starts one schedule, not two", async () => {
    const t = await createTenant();
    const benchmark_id = await storeBenchmark(t.key);
    const body = {
      name: "nightly",
      cron: "0 3 * * *",
      benchmark_id,
      config: {
        answering_models: [{ id: "m", interface: "manual", manual_answers: { q1: "Paris" } }],
        parsing_models: [fakeModel("j", "m")],
      },
    };
    expect(await withAuditDown(t.key, "/v1/schedules", "POST", body)).toBe(500);
    expect(await rowsOf(t, "schedules")).toBe(0);
    const created = await apiAs(t.key, "/v1/schedules", { method: "POST", json: body });
    expect(created.status).toBe(201);
    const { schedule_id } = (await created.json()) as { schedule_id: string };
    expect(await withAuditDown(t.key, `/v1/schedules/${schedule_id}`, "PATCH", { enabled: false })).toBe(500);
    expect(((await (await apiAs(t.key, `/v1/schedules/${schedule_id}`)).json()) as { enabled: boolean }).enabled).toBe(true);
    expect(await withAuditDown(t.key, `/v1/schedules/${schedule_id}`, "DELETE")).toBe(500);
    expect(await rowsOf(t, "schedules")).toBe(1);
    expect((await apiAs(t.key, `/v1/schedules/${schedule_id}`, { method: "DELETE" })).status).toBe(200);
    expect(await audited(t, "schedule.created", schedule_id)).toBe(1);
    expect(await audited(t, "schedule.deleted", schedule_id)).toBe(1);
  });

  it("mints no judge token until its judge_token.created entry can be written", async () => {
    const t = await createTenant();
    const judge_id = await storeJudge(t.key, "m");
    expect(await withAuditDown(t.key, `/v1/judges/${judge_id}/tokens`, "POST", {})).toBe(500);
    expect(await rowsOf(t, "judge_tokens")).toBe(0);
    const minted = await apiAs(t.key, `/v1/judges/${judge_id}/tokens`, { method: "POST", json: {} });
    expect(minted.status).toBe(201);
    expect(await audited(t, "judge_token.created", ((await minted.json()) as { token_id: string }).token_id)).toBe(1);
  });
});

describe("a run submit whose run.submitted entry cannot be written", () => {
  it("starts no run: the 500's retry starts one, audited once", async () => {
    const t = await createTenant();
    const judge = uniqueModel("audit-atomic-submit");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "Paris" } } }]);
    const body = {
      benchmark: { name: "s", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: {
        answering_models: [{ id: "m", interface: "manual", manual_answers: { q1: "Paris" } }],
        parsing_models: [fakeModel("j", judge)],
      },
    };
    expect(await withAuditDown(t.key, "/v1/runs", "POST", body)).toBe(500);
    expect(await rowsOf(t, "runs")).toBe(0);
    // Nothing of it is left to run or to keep: its spec is gone (and its coordinator purged, or its
    // watch alarm would send the jobs of a run no one can see).
    expect(await r2Keys(`t/${t.tenant_id}/runs/`)).toEqual([]);
    const runId = await submitAs(t.key, body);
    expect(await rowsOf(t, "runs")).toBe(1);
    expect(await audited(t, "run.submitted", runId)).toBe(1);
  });
});

describe("a run cancel whose audit entry cannot be written", () => {
  it("is audited by the repeat: one run.cancelled entry however often it is repeated", async () => {
    const t = await createTenant();
    const slow = uniqueModel("audit-atomic-cancel");
    // Slow answers keep the run running while it is cancelled.
    await addFakeRules([{ match: { model: slow }, reply: { text: "Paris", latency_ms: 2000 } }]);
    const runId = await submitAs(t.key, {
      benchmark: { name: "c", questions: [1, 2, 3].map((i) => ({ id: `q${i}`, question: `Q${i}?`, template: exactTemplate("Paris") })) },
      config: { answering_models: [fakeModel("a", slow)], parsing_models: [fakeModel("j", slow)] },
    });
    expect(await withAuditDown(t.key, `/v1/runs/${runId}/cancel`, "POST")).toBe(500);
    expect(await audited(t, "run.cancelled", runId)).toBe(0);
    for (let i = 0; i < 2; i++) expect((await apiAs(t.key, `/v1/runs/${runId}/cancel`, { method: "POST" })).status).toBe(200);
    expect(await audited(t, "run.cancelled", runId)).toBe(1);
  });
});

describe("a change whose audit entry cannot be written", () => {
  it("leaves the run's row when its run.deleted entry cannot be written, and the retry deletes it with the entry", async () => {
    const t = await createTenant();
    const judge = uniqueModel("audit-atomic-run");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "Paris" } } }]);
    const view = await runAs(t.key, {
      benchmark: { name: "del", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: {
        answering_models: [{ id: "m", interface: "manual", manual_answers: { q1: "Paris" } }],
        parsing_models: [fakeModel("j", judge)],
      },
    });
    expect(await withAuditDown(t.key, `/v1/runs/${view.run_id}`, "DELETE")).toBe(500);
    // Its objects and coordinator state may be gone (deleted first); its row, which the retry finds, is not.
    const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM runs WHERE run_id = ?").bind(view.run_id).first<{ n: number }>();
    expect(row!.n).toBe(1);
    expect((await apiAs(t.key, `/v1/runs/${view.run_id}`, { method: "DELETE" })).status).toBe(200);
    expect((await apiAs(t.key, `/v1/runs/${view.run_id}`)).status).toBe(404);
    expect(await audited(t, "run.deleted", view.run_id)).toBe(1);
  });

  it("leaves the tenant as it was when the operator's PATCH cannot be audited, and the retry changes it with its entry", async () => {
    const t = await createTenant();
    const path = `/v1/admin/tenants/${t.tenant_id}`;
    expect(await withAuditDown(ADMIN_TOKEN, path, "PATCH", { disabled: true })).toBe(500);
    expect(((await (await apiAs(ADMIN_TOKEN, path)).json()) as { tenant: { disabled: boolean } }).tenant.disabled).toBe(false);
    forgetAllAuth();
    expect((await apiAs(t.key, "/v1/keys")).status).toBe(200);
    expect((await apiAs(ADMIN_TOKEN, path, { method: "PATCH", json: { retention_days: 30 } })).status).toBe(200);
    expect(await audited(t, "tenant.updated", t.tenant_id)).toBe(1);
  });

  it("stores no secret when its secret.set entry cannot be written", async () => {
    const t = await createTenant();
    const put = { value: "sk-unaudited-key", interface: "openai" };
    expect(await withAuditDown(t.key, "/v1/secrets/UNAUDITED_KEY", "PUT", put)).toBe(500);
    expect(await (await apiAs(t.key, "/v1/secrets")).json()).toEqual({ secrets: [], next_cursor: null });
    expect((await apiAs(t.key, "/v1/secrets/UNAUDITED_KEY", { method: "PUT", json: put })).status).toBe(201);
    expect(await audited(t, "secret.set", "UNAUDITED_KEY")).toBe(1);
  });
});
