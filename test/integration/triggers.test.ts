/**
 * Issue 18 item 1-2: signed inbound triggers. Deliveries are signed by real counterparts
 * (`@octokit/webhooks-methods` sign(), `standardwebhooks`), the run's completion event is verified by
 * the webhook receiver with `standardwebhooks`, and refusals are checked to write nothing.
 */
import { sign } from "@octokit/webhooks-methods";
import { Webhook } from "standardwebhooks";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/sha256";
import { addFakeRules, exactTemplate, fakeModel, uniqueModel } from "./helpers";
import { apiAs, createTenant, type TestTenant, waitAs } from "./tenant-helpers";
import { createTrigger, deliver, tenantRows } from "./trigger-helpers";
import { createEndpoint, waitForReceived } from "./webhook-helpers";

/** One answer per question of the shared three-question benchmark. */
const ALL_ANSWERS = { fr: "It is Paris", it: "It is Rome", de: "It is Berlin" };

/** Stores the three-question capitals benchmark for a tenant; its benchmark_id. */
async function storeCapitals(key: string): Promise<string> {
  const res = await apiAs(key, "/v1/benchmarks", {
    method: "POST",
    json: {
      name: "capitals",
      questions: [
        { id: "fr", question: "Capital of France?", template: exactTemplate("Paris") },
        { id: "it", question: "Capital of Italy?", template: exactTemplate("Rome") },
        { id: "de", question: "Capital of Germany?", template: exactTemplate("Berlin") },
      ],
    },
  });
  return ((await res.json()) as { benchmark_id: string }).benchmark_id;
}

describe("signed inbound triggers", () => {
  let t: TestTenant;
  let benchmarkId: string;
  const judge = uniqueModel("trigger-judge");
  const config = () => ({
    answering_models: [{ id: "ci", interface: "manual", manual_answers: {} }],
    parsing_models: [fakeModel("j", judge)],
  });

  beforeAll(async () => {
    t = await createTenant({ name: "triggers" });
    // The judge extracts "Paris" only from an answer that says Paris: the mapped answers decide the verdicts.
    await addFakeRules([
      { match: { model: judge, contains: "It is Paris" }, reply: { json: { answer: "Paris" } } },
      { match: { model: judge }, reply: { json: { answer: "somewhere else" } } },
    ]);
    benchmarkId = await storeCapitals(t.key);
  });

  it("GitHub: one payload signed with octokit's sign() and delivered 3× with one X-GitHub-Delivery starts one run; all three answer its id", async () => {
    const own = await createTenant({ name: "github 3x" });
    const bench = await apiAs(own.key, "/v1/benchmarks", {
      method: "POST",
      json: { name: "one", questions: [{ id: "fr", question: "Capital of France?", template: exactTemplate("Paris") }] },
    });
    const trig = await createTrigger(own.key, {
      name: "push",
      benchmark_id: ((await bench.json()) as { benchmark_id: string }).benchmark_id,
      config: config(),
      signing: { scheme: "github" },
      mapping: { run_name: { pointer: "/head_commit/id" }, manual_answers: { pointer: "/answers" } },
    });
    expect(trig.secret).toMatch(/^whsec_/);
    const body = JSON.stringify({ head_commit: { id: "abc123" }, answers: { fr: "It is Paris" } });
    const headers = {
      "x-hub-signature-256": await sign(trig.secret, body),
      "x-github-event": "push",
      "x-github-delivery": crypto.randomUUID(),
    };
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await deliver(trig.trigger_id, body, headers));
    expect(answers.map((a) => a.res.status)).toEqual([202, 202, 202]);
    const ids = await Promise.all(answers.map(async (a) => ((await a.res.json()) as { run_id: string }).run_id));
    expect(new Set(ids).size).toBe(1);
    expect(answers.map((a) => a.queueSends)).toEqual([1, 0, 0]);
    const runs = ((await (await apiAs(own.key, "/v1/runs")).json()) as { runs: { run_id: string; run_name: string }[] }).runs;
    expect(runs).toEqual([expect.objectContaining({ run_id: ids[0], run_name: "abc123" })]);
    const done = await waitAs(own.key, ids[0]!);
    expect(done.summary).toEqual([expect.objectContaining({ answering_model: "ci", passed: 1 })]);
  });

  it("GitHub ping: 200, nothing started", async () => {
    const own = await createTenant({ name: "ping" });
    const trig = await createTrigger(own.key, {
      name: "ping",
      benchmark_id: await storeCapitals(own.key),
      config: config(),
      signing: { scheme: "github" },
    });
    const before = await tenantRows(own.tenant_id);
    const body = JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1 });
    const got = await deliver(trig.trigger_id, body, {
      "x-hub-signature-256": await sign(trig.secret, body),
      "x-github-event": "ping",
      "x-github-delivery": crypto.randomUUID(),
    });
    expect(got.res.status).toBe(200);
    expect(await got.res.json()).toEqual({ ping: true, trigger_id: trig.trigger_id });
    expect(got.queueSends).toBe(0);
    expect(await tenantRows(own.tenant_id)).toEqual(before);
  });

  it("GitHub's default form-encoded delivery (payload=…) is a 400 that says to set the webhook's content type to application/json", async () => {
    const trig = await createTrigger(t.key, { name: "form", benchmark_id: benchmarkId, config: config(), signing: { scheme: "github" } });
    const body = `payload=${encodeURIComponent(JSON.stringify({ answers: ALL_ANSWERS }))}`;
    const got = await deliver(trig.trigger_id, body, {
      "content-type": "application/x-www-form-urlencoded",
      "x-hub-signature-256": await sign(trig.secret, body),
      "x-github-event": "push",
      "x-github-delivery": crypto.randomUUID(),
    });
    expect(got.res.status).toBe(400);
    expect(got.queueSends).toBe(0);
    const error = ((await got.res.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("invalid_json");
    expect(error.message).toContain("application/x-www-form-urlencoded");
    expect(error.message).toContain("Content type to application/json");
  });

  it("a repeated delivery id whose first delivery has not started its run is a 409 to retry, never a 202 for a run that does not exist; once the key is let go it starts the run", async () => {
    const trig = await createTrigger(t.key, {
      name: "in flight",
      benchmark_id: benchmarkId,
      config: config(),
      signing: { scheme: "github" },
      mapping: { manual_answers: { pointer: "/answers" } },
    });
    const body = JSON.stringify({ answers: ALL_ANSWERS });
    const delivery = crypto.randomUUID();
    const headers = async () => ({
      "x-hub-signature-256": await sign(trig.secret, body),
      "x-github-event": "push",
      "x-github-delivery": delivery,
    });
    // What a first delivery holds between taking the key and writing its run (or while it is
    // refused, before it lets the key go): the key, and no run.
    const pending = crypto.randomUUID();
    await env.DB.prepare("INSERT INTO idempotency_keys (tenant_id, key, body_hash, run_id, created_at) VALUES (?, ?, ?, ?, ?)")
      .bind(t.tenant_id, `hook:${trig.trigger_id}:${delivery}`, await sha256Hex(body), pending, new Date().toISOString())
      .run();
    const repeat = await deliver(trig.trigger_id, body, await headers());
    expect(repeat.res.status).toBe(409);
    expect(((await repeat.res.json()) as { error: { code: string } }).error.code).toBe("idempotency_in_progress");
    expect(repeat.queueSends).toBe(0);
    // The first one was refused and let the key go: the delivery, retried, starts the run.
    await env.DB.prepare("DELETE FROM idempotency_keys WHERE tenant_id = ? AND run_id = ?").bind(t.tenant_id, pending).run();
    const retried = await deliver(trig.trigger_id, body, await headers());
    expect(retried.res.status).toBe(202);
    const { run_id } = (await retried.res.json()) as { run_id: string };
    expect((await waitAs(t.key, run_id)).status).toBe("completed");
    const again = await deliver(trig.trigger_id, body, await headers());
    expect(((await again.res.json()) as { run_id: string }).run_id).toBe(run_id);
  }, 60_000);

  it("a bad or missing GitHub signature is 401 with zero writes (rows and queue sends)", async () => {
    const trig = await createTrigger(t.key, {
      name: "bad sig",
      benchmark_id: benchmarkId,
      config: config(),
      signing: { scheme: "github" },
      mapping: { manual_answers: { pointer: "/answers" } },
    });
    const body = JSON.stringify({ answers: ALL_ANSWERS });
    const before = await tenantRows(t.tenant_id);
    expect(Object.keys(before)).toEqual(expect.arrayContaining(["runs", "idempotency_keys", "audit_log", "triggers"]));
    const forged = await sign("whsec_not-the-secret", body);
    const attempts: Record<string, string>[] = [{ "x-hub-signature-256": forged }, {}, { "x-hub-signature-256": forged.slice(0, -1) }];
    for (const headers of attempts) {
      const got = await deliver(trig.trigger_id, body, { ...headers, "x-github-event": "push", "x-github-delivery": crypto.randomUUID() });
      expect(got.res.status).toBe(401);
      expect(got.queueSends).toBe(0);
    }
    expect(await tenantRows(t.tenant_id)).toEqual(before);
    // The same body signed with the trigger's secret is accepted: the 401s were the signature's doing.
    const good = await deliver(trig.trigger_id, body, {
      "x-hub-signature-256": await sign(trig.secret, body),
      "x-github-event": "push",
      "x-github-delivery": crypto.randomUUID(),
    });
    expect(good.res.status).toBe(202);
  });

  it("Standard Webhooks: a timestamp 6 minutes old is 401 with zero writes; a fresh one maps answers into a graded run whose completion webhook verifies", async () => {
    const own = await createTenant({ name: "standard" });

    const ep = await createEndpoint(own.key, { all_runs: false });
    const trig = await createTrigger(own.key, {
      name: "deploy",
      benchmark_id: await storeCapitals(own.key),
      config: config(),
      webhook_endpoint_ids: [ep.endpoint_id],
      signing: { scheme: "standard_webhooks" },
      mapping: {
        run_name: { literal: "deploy check" },
        question_ids: "/asked",
        manual_answers: { model_id: "ci", items: "/results", id: "/question", answer: "/output/text" },
      },
    });
    const body = JSON.stringify({
      asked: ["fr", "it"],
      results: [
        { question: "fr", output: { text: "It is Paris" } },
        { question: "it", output: { text: "It is Madrid" } },
      ],
    });
    const hook = new Webhook(trig.secret);
    const signed = (id: string, at: Date) => ({
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": hook.sign(id, at, body),
    });

    const before = await tenantRows(own.tenant_id);
    const stale = await deliver(trig.trigger_id, body, signed("msg_stale", new Date(Date.now() - 6 * 60_000)));
    expect(stale.res.status).toBe(401);
    expect(stale.queueSends).toBe(0);
    expect(await tenantRows(own.tenant_id)).toEqual(before);

    const fresh = await deliver(trig.trigger_id, body, signed("msg_fresh", new Date()));
    expect(fresh.res.status).toBe(202);
    const { run_id } = (await fresh.res.json()) as { run_id: string };
    const done = await waitAs(own.key, run_id);
    expect(done).toMatchObject({ run_name: "deploy check", status: "completed", progress: { total: 2, done: 2 } });
    expect(done.summary).toEqual([expect.objectContaining({ answering_model: "ci", passed: 1, total: 2 })]);
    const got = await waitForReceived(ep.name, (r) => r.length >= 1);
    expect(got).toHaveLength(1);
    expect(got[0]!.verified_by).toEqual([0]);
    expect(JSON.parse(got[0]!.body)).toMatchObject({ type: "run.completed", data: { run_id, run_name: "deploy check" } });
  });

  it("rotate-secret: the new secret verifies at once, the replaced one for overlap_seconds, then a 401 with zero writes; no view shows a secret", async () => {
    const own = await createTenant({ name: "rotation" });
    const trig = await createTrigger(own.key, {
      name: "rotating",
      benchmark_id: await storeCapitals(own.key),
      config: config(),
      signing: { scheme: "standard_webhooks" },
      mapping: { question_ids: "/asked", manual_answers: { pointer: "/answers" } },
    });
    const body = JSON.stringify({ asked: ["fr"], answers: { fr: "It is Paris" } });
    const signedWith = (secret: string) => {
      const id = `msg_${crypto.randomUUID()}`;
      const at = new Date();
      return {
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": new Webhook(secret).sign(id, at, body),
      };
    };
    const rotate = async (json: unknown) => {
      const res = await apiAs(own.key, `/v1/triggers/${trig.trigger_id}/rotate-secret`, { method: "POST", json });
      expect(res.status, await res.clone().text()).toBe(201);
      return (await res.json()) as { secret: string; previous_secret_expires_at: string; hook_url: string };
    };

    const second = await rotate({ overlap_seconds: 3600 });
    expect(second.secret).toMatch(/^whsec_/);
    expect(second.secret).not.toBe(trig.secret);
    expect(second.hook_url).toBe(`http://edgeval.test/v1/hooks/${trig.trigger_id}`);
    expect(Math.abs(Date.parse(second.previous_secret_expires_at) - (Date.now() + 3600_000))).toBeLessThan(60_000);
    // During the overlap both secrets start runs: a sender not moved over yet is not refused.
    expect((await deliver(trig.trigger_id, body, signedWith(second.secret))).res.status).toBe(202);
    expect((await deliver(trig.trigger_id, body, signedWith(trig.secret))).res.status).toBe(202);

    // Rotating again with no overlap: only the newest secret verifies.
    const third = await rotate({ overlap_seconds: 0 });
    const before = await tenantRows(own.tenant_id);
    for (const old of [trig.secret, second.secret]) {
      const refused = await deliver(trig.trigger_id, body, signedWith(old));
      expect(refused.res.status).toBe(401);
      expect(refused.queueSends).toBe(0);
    }
    expect(await tenantRows(own.tenant_id)).toEqual(before);
    expect((await deliver(trig.trigger_id, body, signedWith(third.secret))).res.status).toBe(202);

    const view = await (await apiAs(own.key, `/v1/triggers/${trig.trigger_id}`)).json();
    expect(view).not.toHaveProperty("secret");
    expect(view).toMatchObject({ previous_secret_expires_at: expect.any(String) });
    for (const secret of [trig.secret, second.secret, third.secret]) expect(JSON.stringify(view)).not.toContain(secret.slice(6));
    const auditLog = (await (await apiAs(own.key, "/v1/audit")).json()) as {
      entries: { action: string; target: string; detail: unknown }[];
    };
    expect(auditLog.entries.filter((e) => e.action === "trigger.secret_rotated").map((e) => e.detail)).toEqual([
      { overlap_seconds: 0 },
      { overlap_seconds: 3600 },
    ]);
    // Another tenant's trigger is not there to rotate.
    const other = await createTenant({ name: "rotation other" });
    expect((await apiAs(other.key, `/v1/triggers/${trig.trigger_id}/rotate-secret`, { method: "POST", json: {} })).status).toBe(404);
  });

  it("plain hex header (sha256= optional) with a delivery id header; a payload missing a mapped pointer is a 400 naming it", async () => {
    const trig = await createTrigger(t.key, {
      name: "app",
      benchmark_id: benchmarkId,
      config: config(),
      signing: { scheme: "hex_header", header: "X-App-Signature", delivery_id_header: "X-App-Delivery" },
      mapping: { manual_answers: { pointer: "/answers" } },
    });
    const hex = async (body: string) => (await sign(trig.secret, body)).slice("sha256=".length);
    const body = JSON.stringify({ answers: ALL_ANSWERS });
    const id = crypto.randomUUID();
    const a = await deliver(trig.trigger_id, body, { "x-app-signature": await hex(body), "x-app-delivery": id });
    const b = await deliver(trig.trigger_id, body, { "x-app-signature": `sha256=${await hex(body)}`, "x-app-delivery": id });
    expect([a.res.status, b.res.status]).toEqual([202, 202]);
    expect(((await b.res.json()) as { run_id: string }).run_id).toBe(((await a.res.json()) as { run_id: string }).run_id);
    const upper = await deliver(trig.trigger_id, body, { "x-app-signature": (await hex(body)).toUpperCase() });
    expect(upper.res.status).toBe(401);
    const missing = JSON.stringify({ nothing: true });
    const bad = await deliver(trig.trigger_id, missing, { "x-app-signature": await hex(missing) });
    expect(bad.res.status).toBe(400);
    expect(((await bad.res.json()) as any).error.issues).toEqual([expect.objectContaining({ path: "payload /answers" })]);
  });

  it("a trigger naming a preset whose manual answering model takes the mapped answers: the delivery starts a run graded on them", async () => {
    const own = await createTenant({ name: "preset manual" });
    const preset = await apiAs(own.key, "/v1/presets", { method: "POST", json: { name: "manual", config: config() } });
    expect(preset.status, await preset.clone().text()).toBe(201);
    const trig = await createTrigger(own.key, {
      name: "preset answers",
      benchmark_id: await storeCapitals(own.key),
      preset_id: ((await preset.json()) as { preset_id: string }).preset_id,
      signing: { scheme: "github" },
      mapping: { manual_answers: { pointer: "/answers" } },
    });
    const body = JSON.stringify({ answers: ALL_ANSWERS });
    const got = await deliver(trig.trigger_id, body, {
      "x-hub-signature-256": await sign(trig.secret, body),
      "x-github-event": "push",
      "x-github-delivery": crypto.randomUUID(),
    });
    expect(got.res.status, await got.res.clone().text()).toBe(202);
    const done = await waitAs(own.key, ((await got.res.json()) as { run_id: string }).run_id);
    expect(done.summary).toEqual([expect.objectContaining({ answering_model: "ci", passed: 1, total: 3 })]);
  });

  it("creating a trigger on an unknown benchmark or naming an unknown webhook endpoint is a 400 at that field, nothing written", async () => {
    const own = await createTenant({ name: "trigger refs" });
    const before = await tenantRows(own.tenant_id);
    const noBench = await apiAs(own.key, "/v1/triggers", {
      method: "POST",
      json: { name: "x", benchmark_id: "no-such-benchmark", config: config(), signing: { scheme: "github" } },
    });
    expect(noBench.status).toBe(400);
    expect(((await noBench.json()) as any).error.issues).toEqual([expect.objectContaining({ path: "benchmark_id" })]);
    const noEndpoint = await apiAs(own.key, "/v1/triggers", {
      method: "POST",
      json: {
        name: "x",
        benchmark_id: await storeCapitals(own.key),
        config: config(),
        webhook_endpoint_ids: ["whe_nope"],
        signing: { scheme: "github" },
      },
    });
    expect(noEndpoint.status).toBe(400);
    expect(((await noEndpoint.json()) as any).error.issues).toEqual([expect.objectContaining({ path: "webhook_endpoint_ids[0]" })]);
    const after = await tenantRows(own.tenant_id);
    expect(after.triggers).toBe(before.triggers);
  });

  it("creating a trigger whose config names a model no delivery could call (a private base_url) is the 400 POST /v1/runs gives, nothing written", async () => {
    const own = await createTenant({ name: "trigger models" });
    const benchmark_id = await storeCapitals(own.key);
    const refused = { ...config(), parsing_models: [{ ...fakeModel("j", judge), base_url: "http://10.1.2.3/v1" }] };
    const run = await apiAs(own.key, "/v1/runs", { method: "POST", json: { benchmark_id, config: refused } });
    expect(run.status).toBe(400);
    const runIssues = ((await run.json()) as { error: { issues: { path: string }[] } }).error.issues;
    expect(runIssues.map((i) => i.path)).toContain("config.parsing_models[0].base_url");
    const before = await tenantRows(own.tenant_id);
    const res = await apiAs(own.key, "/v1/triggers", {
      method: "POST",
      json: {
        name: "x",
        benchmark_id,
        config: refused,
        signing: { scheme: "github" },
        mapping: { manual_answers: { pointer: "/answers" } },
      },
    });
    expect(res.status).toBe(400);
    const issues = ((await res.json()) as { error: { issues: { path: string }[] } }).error.issues;
    expect(issues).toEqual(runIssues.filter((i) => i.path === "config.parsing_models[0].base_url"));
    expect((await tenantRows(own.tenant_id)).triggers).toBe(before.triggers);
  });

  it("model overrides from the payload are validated as POST /v1/runs validates them; the secret is shown once", async () => {
    const trig = await createTrigger(t.key, {
      name: "models",
      benchmark_id: benchmarkId,
      config: config(),
      signing: { scheme: "github" },
      mapping: { manual_answers: { pointer: "/answers" }, parsing_models: "/judges" },
    });
    const body = JSON.stringify({
      answers: { fr: "x" },
      judges: [{ id: "j", interface: "openai_compatible", model_name: "m", base_url: "ftp://nope" }],
    });
    const got = await deliver(trig.trigger_id, body, { "x-hub-signature-256": await sign(trig.secret, body), "x-github-event": "push" });
    expect(got.res.status).toBe(400);
    expect(JSON.stringify(await got.res.json())).toContain("config.parsing_models[0].base_url");
    const view = await (await apiAs(t.key, `/v1/triggers/${trig.trigger_id}`)).text();
    expect(view).not.toContain(trig.secret.slice(6));
    const bad = await apiAs(t.key, "/v1/triggers", {
      method: "POST",
      json: { name: "x", benchmark_id: benchmarkId, config: config(), signing: { scheme: "github" }, mapping: { question_ids: "ids" } },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.issues.map((i: { path: string }) => i.path)).toEqual(["mapping.question_ids"]);
  });
});
