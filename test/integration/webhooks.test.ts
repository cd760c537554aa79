/**
 * Issue 17: signed completion webhooks, inside workerd against a real receiver (a Node server
 * verifying every delivery with the `standardwebhooks` package, test/webhook-receiver/server.mjs).
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { getDelivery } from "../../src/webhooks/deliveries-repo";
import { emitRunEvent } from "../../src/webhooks/emit";
import { signDelivery } from "../../src/webhooks/signing";
import { writeTestFigures } from "../reliability/scenario";
import { addFakeRules, uniqueModel } from "./helpers";
import { apiAs, createTenant, runAs, submitAs, type TestTenant, waitAs } from "./tenant-helpers";
import {
  createEndpoint,
  deliveriesOf,
  hookUrl,
  receivedBy,
  registerHook,
  settledDeliveries,
  tinyRun,
  updateHook,
  waitForReceived,
} from "./webhook-helpers";

const accepted = (r: { status: number }) => r.status >= 200 && r.status < 300;

describe("signed completion webhooks", () => {
  let t: TestTenant;
  const judge = uniqueModel("hook-judge");

  beforeAll(async () => {
    t = await createTenant({ name: "webhooks" });
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "x" } } }]);
  });

  it("creates, lists, updates and deletes endpoints; the secret is shown once and sealed in D1", async () => {
    const ep = await createEndpoint(t.key, { description: "ci", event_types: ["run.completed"] });
    expect(ep.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const got = (await (await apiAs(t.key, `/v1/webhook-endpoints/${ep.endpoint_id}`)).json()) as Record<string, unknown>;
    expect(got).toMatchObject({
      endpoint_id: ep.endpoint_id,
      description: "ci",
      event_types: ["run.completed"],
      all_runs: true,
      enabled: true,
    });
    expect(JSON.stringify(got)).not.toContain(ep.secret.slice(6));
    const row = await env.DB.prepare("SELECT * FROM webhook_endpoints WHERE endpoint_id = ?")
      .bind(ep.endpoint_id)
      .first<Record<string, unknown>>();
    expect(row!.tenant_id).toBe(t.tenant_id);
    expect(JSON.stringify(row)).not.toContain(ep.secret.slice(6));
    const patched = await apiAs(t.key, `/v1/webhook-endpoints/${ep.endpoint_id}`, {
      method: "PATCH",
      json: { enabled: false, description: "off" },
    });
    expect(await patched.json()).toMatchObject({ enabled: false, description: "off" });
    const bad = await apiAs(t.key, "/v1/webhook-endpoints", { method: "POST", json: { url: "ftp://x", event_types: ["run.done"] } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.issues.map((i: { path: string }) => i.path).sort()).toEqual(["event_types[0]", "url"]);
    expect((await apiAs(t.key, `/v1/webhook-endpoints/${ep.endpoint_id}`, { method: "DELETE" })).status).toBe(200);
    expect((await apiAs(t.key, `/v1/webhook-endpoints/${ep.endpoint_id}`)).status).toBe(404);
  });

  it("a tenant has at most 20 endpoints: the 21st is a 409 endpoint_limit; after a delete one more fits", async () => {
    const own = await createTenant({ name: "endpoint cap" });
    const create = () =>
      apiAs(own.key, "/v1/webhook-endpoints", { method: "POST", json: { url: hookUrl(`cap-${crypto.randomUUID().slice(0, 8)}`) } });
    const made = await Promise.all(Array.from({ length: 20 }, create));
    expect(made.map((r) => r.status)).toEqual(Array(20).fill(201));
    const over = await create();
    expect(over.status).toBe(409);
    expect(((await over.json()) as any).error.code).toBe("endpoint_limit");
    const first = ((await made[0]!.json()) as { endpoint_id: string }).endpoint_id;
    expect((await apiAs(own.key, `/v1/webhook-endpoints/${first}`, { method: "DELETE" })).status).toBe(200);
    expect((await create()).status).toBe(201);
    expect(((await (await apiAs(own.key, "/v1/webhook-endpoints")).json()) as { endpoints: unknown[] }).endpoints).toHaveLength(20);
  });

  it("refuses webhook_endpoint_ids that are not the tenant's endpoints, at their path", async () => {
    const ep = await createEndpoint(t.key, { all_runs: false });
    const res = await apiAs(t.key, "/v1/runs", {
      method: "POST",
      json: tinyRun(judge, { webhook_endpoint_ids: [ep.endpoint_id, "whe_nope"] }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.issues).toEqual([expect.objectContaining({ path: "webhook_endpoint_ids[1]" })]);
  });

  it("N = 6 runs end → exactly 6 distinct webhook-ids, each verified, each in the Standard Webhooks shape", async () => {
    const own = await createTenant({ name: "six runs" });
    const ep = await createEndpoint(own.key);
    const runIds = await Promise.all(Array.from({ length: 6 }, (_, i) => submitAs(own.key, tinyRun(judge, { run_name: `six-${i}` }))));
    for (const id of runIds) await waitAs(own.key, id);
    const got = await waitForReceived(ep.name, (r) => r.length >= 6);
    await new Promise((r) => setTimeout(r, 300)); // nothing more arrives
    const all = await receivedBy(ep.name);
    expect(all).toHaveLength(6);
    expect(all.every((r) => r.verified_by.length === 1 && accepted(r))).toBe(true);
    expect(new Set(all.map((r) => r.webhook_id)).size).toBe(6);
    const events = got.map((r) => JSON.parse(r.body));
    expect(events.map((e) => e.data.run_id).sort()).toEqual([...runIds].sort());
    const first = events.find((e) => e.data.run_id === runIds[0])!;
    expect(first).toEqual({
      type: "run.completed",
      timestamp: expect.any(String),
      data: {
        run_id: runIds[0],
        run_name: "six-0",
        status: "completed",
        progress: { total: 1, done: 1 },
        pairs: [expect.objectContaining({ answering_model: "m", parsing_model: "j", passed: 1 })],
        pairs_truncated: false,
        // Absolute, on the origin the run was submitted through: a receiver has only the event.
        links: {
          run: `http://edgeval.test/v1/runs/${runIds[0]}`,
          summary: `http://edgeval.test/v1/runs/${runIds[0]}/summary`,
          results: `http://edgeval.test/v1/runs/${runIds[0]}/results`,
          dashboard: `http://edgeval.test/dashboard/runs/${runIds[0]}`,
        },
      },
    });
    expect(all.find((r) => JSON.parse(r.body).data.run_id === runIds[0])!.webhook_id).toBe(`msg_${runIds[0]}`);
    const log = await settledDeliveries(own.key, ep.endpoint_id, 6);
    expect(log.map((d) => d.status)).toEqual(Array(6).fill("delivered"));
  });

  it("a test event reaches the receiver signed like any event, whatever its event_types, and says how the receiver took it", async () => {
    const own = await createTenant({ name: "test event" });
    const ep = await createEndpoint(own.key, { event_types: ["result.created"] });
    const res = await apiAs(own.key, `/v1/webhook-endpoints/${ep.endpoint_id}/test`, { method: "POST" });
    expect(res.status, await res.clone().text()).toBe(200);
    const sent = (await res.json()) as Record<string, unknown>;
    expect(sent).toEqual({
      event_id: expect.stringMatching(/^msg_test_/),
      delivery_id: expect.any(String),
      status: "delivered",
      status_code: 200,
      error: null,
    });
    const [got] = await receivedBy(ep.name);
    // The receiver (the standardwebhooks package) verified it with the endpoint's secret.
    expect(got!.verified_by).toEqual([0]);
    expect(got!.webhook_id).toBe(sent.event_id);
    expect(JSON.parse(got!.body)).toEqual({
      type: "webhook.test",
      timestamp: expect.any(String),
      data: {
        endpoint_id: ep.endpoint_id,
        message: expect.stringContaining("no run is behind it"),
        links: { deliveries: `http://edgeval.test/v1/webhook-endpoints/${ep.endpoint_id}/deliveries` },
      },
    });
    const [logged] = await deliveriesOf(own.key, ep.endpoint_id);
    expect(logged).toMatchObject({
      delivery_id: sent.delivery_id,
      event_type: "webhook.test",
      run_id: null,
      status: "delivered",
      attempts: 1,
    });
  });

  it("a test event to a failing receiver answers its status and is retried on the schedule; a body field or a disabled endpoint is refused", async () => {
    const own = await createTenant({ name: "test event failing" });
    const ep = await createEndpoint(own.key, {}, [{ status: 503 }]);
    const res = await apiAs(own.key, `/v1/webhook-endpoints/${ep.endpoint_id}/test`, { method: "POST", json: {} });
    expect(await res.json()).toMatchObject({ status: "pending", status_code: 503, error: "HTTP 503" });
    // The dispatcher makes the next attempt (WEBHOOK_RETRY_SCALE shortens the schedule here): the 200 after the 503.
    const [d] = await settledDeliveries(own.key, ep.endpoint_id, 1);
    expect(d.attempt_log.map((a: { status_code: number }) => a.status_code)).toEqual([503, 200]);

    const extra = await apiAs(own.key, `/v1/webhook-endpoints/${ep.endpoint_id}/test`, { method: "POST", json: { type: "run.completed" } });
    expect(extra.status).toBe(400);
    expect(((await extra.json()) as any).error.issues[0].path).toBe("type");
    await apiAs(own.key, `/v1/webhook-endpoints/${ep.endpoint_id}`, { method: "PATCH", json: { enabled: false } });
    const off = await apiAs(own.key, `/v1/webhook-endpoints/${ep.endpoint_id}/test`, { method: "POST" });
    expect(off.status).toBe(409);
    expect(((await off.json()) as any).error.message).toContain('enable it (PATCH {"enabled": true}) first');
    // Neither refused request wrote a delivery.
    expect(await deliveriesOf(own.key, ep.endpoint_id)).toHaveLength(1);
  });

  it("503 three times, then 200: one accepted delivery per event id, every attempt freshly signed and verified", async () => {
    const own = await createTenant({ name: "retries" });
    // Slow 503s push attempts into different seconds, so a fresh timestamp shows as a new signature.
    const slow503 = { status: 503, delay_ms: 1100 };
    const ep = await createEndpoint(own.key, { all_runs: false }, [slow503, slow503, slow503]);
    const runId = await submitAs(own.key, tinyRun(judge, { webhook_endpoint_ids: [ep.endpoint_id] }));
    await waitAs(own.key, runId);
    const got = await waitForReceived(ep.name, (r) => r.some(accepted));
    // Scenario 9 of the reliability suite (test/reliability/README.md): the receiver down, then up.
    const signatures = new Set(got.map((r) => r.signature)).size;
    await writeTestFigures({
      name: "s9-webhook-down-up",
      scenario: "9 webhook receiver down → up (503 ×3, then 200)",
      size: "1 run, 1 endpoint",
      faults_injected: got.filter((r) => r.status === 503).length,
      invariants: {
        delivered_once: {
          pass: got.filter(accepted).length === 1 && new Set(got.map((r) => r.webhook_id)).size === 1,
          detail: `${got.length} attempts (${got.map((r) => r.status).join(", ")}), ${got.filter(accepted).length} accepted, webhook-ids ${new Set(got.map((r) => r.webhook_id)).size}`,
        },
        every_attempt_verified: {
          pass: got.every((r) => r.verified_by.length === 1) && signatures === got.length,
          detail: `${got.filter((r) => r.verified_by.length === 1).length} of ${got.length} verified by standardwebhooks, ${signatures} distinct signatures`,
        },
      },
      figures: { attempts: got.length },
    });
    expect(got.map((r) => r.status)).toEqual([503, 503, 503, 200]);
    expect(new Set(got.map((r) => r.webhook_id))).toEqual(new Set([`msg_${runId}`]));
    expect(got.every((r) => r.verified_by.length === 1)).toBe(true);
    expect(new Set(got.map((r) => r.timestamp)).size).toBe(4);
    expect(new Set(got.map((r) => r.signature)).size).toBe(4);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    const [d] = await settledDeliveries(own.key, ep.endpoint_id, 1);
    expect(d).toMatchObject({ status: "delivered", attempts: 4, event_type: "run.completed", run_id: runId });
    expect(d.attempt_log.map((a: { status_code: number }) => a.status_code)).toEqual([503, 503, 503, 200]);
    expect(d.attempt_log.map((a: { webhook_timestamp: number }) => String(a.webhook_timestamp))).toEqual(got.map((r) => r.timestamp));
  });

  it("after the eighth failed attempt the delivery is failed: no ninth attempt and no alarm left", async () => {
    const own = await createTenant({ name: "spent" });
    const ep = await createEndpoint(
      own.key,
      {},
      Array.from({ length: 9 }, () => ({ status: 503 })),
    );
    const end = {
      tenant_id: own.tenant_id,
      run_id: crypto.randomUUID(),
      status: "failed" as const,
      progress: { total: 1, done: 0 },
      pairs: [],
      pairs_total: 1,
      named_endpoint_ids: [],
    };
    const [deliveryId] = (await emitRunEvent(env, end))!.deliveries;
    const dispatcher = env.WEBHOOKS.getByName(`${own.tenant_id}:${deliveryId}`);
    // The scaled schedule still waits ~10 s in all; run the dispatcher's alarms now instead.
    for (let i = 0; i < 200 && (await getDelivery(env.DB, own.tenant_id, deliveryId!))!.status === "pending"; i++) {
      await runDurableObjectAlarm(dispatcher);
      await new Promise((r) => setTimeout(r, 10));
    }
    const [d] = await deliveriesOf(own.key, ep.endpoint_id);
    expect(d).toMatchObject({ status: "failed", attempts: 8, last_status_code: 503, next_attempt_at: null, event_type: "run.failed" });
    expect(d.attempt_log.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await runDurableObjectAlarm(dispatcher)).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    const got = await receivedBy(ep.name);
    expect(got.map((r) => r.status)).toEqual(Array(8).fill(503));
    expect(got.every((r) => r.verified_by.length === 1 && r.webhook_id === `msg_${end.run_id}`)).toBe(true);
  });

  it("a run not naming an endpoint with all_runs false sends it nothing", async () => {
    const own = await createTenant({ name: "not named" });
    const ep = await createEndpoint(own.key, { all_runs: false });
    await runAs(own.key, tinyRun(judge));
    await new Promise((r) => setTimeout(r, 300));
    expect(await receivedBy(ep.name)).toEqual([]);
    expect(await deliveriesOf(own.key, ep.endpoint_id)).toEqual([]);
  });

  it("410 Gone disables the endpoint: no further attempts, no later deliveries; retry refused until it is enabled", async () => {
    const own = await createTenant({ name: "gone" });
    const ep = await createEndpoint(own.key, {}, [{ status: 410 }]);
    await runAs(own.key, tinyRun(judge));
    const [d] = await settledDeliveries(own.key, ep.endpoint_id, 1);
    expect(d).toMatchObject({ status: "failed", attempts: 1, last_status_code: 410 });
    const view = (await (await apiAs(own.key, `/v1/webhook-endpoints/${ep.endpoint_id}`)).json()) as any;
    expect(view).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining("410") });
    await runAs(own.key, tinyRun(judge));
    await new Promise((r) => setTimeout(r, 300));
    expect(await receivedBy(ep.name)).toHaveLength(1);
    expect(await deliveriesOf(own.key, ep.endpoint_id)).toHaveLength(1);
    const retry = `/v1/webhook-endpoints/${ep.endpoint_id}/deliveries/${d.delivery_id}/retry`;
    expect((await apiAs(own.key, retry, { method: "POST" })).status).toBe(409);
    // Enabled again, a manual retry delivers the same event (same webhook-id).
    await apiAs(own.key, `/v1/webhook-endpoints/${ep.endpoint_id}`, { method: "PATCH", json: { enabled: true } });
    expect((await apiAs(own.key, retry, { method: "POST" })).status).toBe(202);
    const got = await waitForReceived(ep.name, (r) => r.some(accepted));
    expect(got.map((r) => [r.status, r.webhook_id])).toEqual([
      [410, got[0]!.webhook_id],
      [200, got[0]!.webhook_id],
    ]);
  });

  it("a 301 is not followed: the redirect target receives nothing and the delivery is retried at the endpoint", async () => {
    const own = await createTenant({ name: "redirect" });
    const target = `target-${crypto.randomUUID().slice(0, 8)}`;
    const ep = await createEndpoint(own.key, {}, [{ status: 301, location: hookUrl(target) }]);
    await registerHook(target, [ep.secret]);
    await runAs(own.key, tinyRun(judge));
    const [d] = await settledDeliveries(own.key, ep.endpoint_id, 1);
    expect(d.attempt_log.map((a: any) => [a.status_code, a.error])).toEqual([
      [301, "redirect 301 not followed"],
      [200, null],
    ]);
    expect(await receivedBy(target)).toEqual([]);
  });

  it("standardwebhooks refuses a tampered body, a 6-minute-old timestamp and a wrong secret", async () => {
    const own = await createTenant({ name: "verify" });
    const ep = await createEndpoint(own.key);
    await runAs(own.key, tinyRun(judge));
    const [r] = await waitForReceived(ep.name, (x) => x.length >= 1);
    const headers = { "webhook-id": r!.webhook_id!, "webhook-timestamp": r!.timestamp!, "webhook-signature": r!.signature! };
    expect(new Webhook(ep.secret).verify(r!.body, headers)).toMatchObject({ type: "run.completed" });
    expect(() => new Webhook(ep.secret).verify(r!.body.replace('"completed"', '"failed"'), headers)).toThrow(/signature/i);
    const other = (await createEndpoint(own.key)).secret;
    expect(() => new Webhook(other).verify(r!.body, headers)).toThrow(/signature/i);
    // Our signer at 6 minutes ago: correctly signed, and still refused as too old.
    const old = signDelivery([ep.secret], r!.webhook_id!, new Date(Date.now() - 6 * 60_000), r!.body);
    expect(() => new Webhook(ep.secret).verify(r!.body, { ...old })).toThrow(/too old/);
    const now = signDelivery([ep.secret], r!.webhook_id!, new Date(), r!.body);
    expect(new Webhook(ep.secret).verify(r!.body, { ...now })).toBeTruthy();
    // Scenario 9 of the reliability suite (test/reliability/README.md): each forgery, verified again for the report.
    const refused = (body: string, h: Record<string, string>, secret: string) => {
      try {
        new Webhook(secret).verify(body, h);
        return false;
      } catch {
        return true;
      }
    };
    const forgeries = [
      refused(r!.body.replace('"completed"', '"failed"'), headers, ep.secret),
      refused(r!.body, headers, other),
      refused(r!.body, { ...old }, ep.secret),
    ];
    await writeTestFigures({
      name: "s9-bad-signatures",
      scenario: "9 bad signatures (tampered body, wrong secret, 6-minute-old timestamp)",
      size: "1 delivery, 3 forgeries",
      faults_injected: forgeries.length,
      invariants: {
        forgeries_refused: {
          pass: forgeries.every(Boolean),
          detail: `${forgeries.filter(Boolean).length} of ${forgeries.length} refused by standardwebhooks`,
        },
        genuine_verified: { pass: !refused(r!.body, headers, ep.secret), detail: "the delivery as received verifies" },
      },
    });
  });

  it("during a rotation both secrets verify (two v1 signatures); after the overlap only the new one", async () => {
    const own = await createTenant({ name: "rotation" });
    const ep = await createEndpoint(own.key);
    const rotated = await apiAs(own.key, `/v1/webhook-endpoints/${ep.endpoint_id}/rotate-secret`, {
      method: "POST",
      json: { overlap_seconds: 3600 },
    });
    expect(rotated.status).toBe(201);
    const next = ((await rotated.json()) as { secret: string; previous_secret_expires_at: string }).secret;
    expect(next).not.toBe(ep.secret);
    await updateHook(ep.name, { secrets: [ep.secret, next] });
    await runAs(own.key, tinyRun(judge));
    const [during] = await waitForReceived(ep.name, (x) => x.length >= 1);
    expect(during!.verified_by).toEqual([0, 1]);
    expect(during!.signature!.split(" ")).toHaveLength(2);
    // A rotation with no overlap: the secret before it no longer signs.
    const again = await apiAs(own.key, `/v1/webhook-endpoints/${ep.endpoint_id}/rotate-secret`, {
      method: "POST",
      json: { overlap_seconds: 0 },
    });
    const third = ((await again.json()) as { secret: string }).secret;
    await updateHook(ep.name, { secrets: [next, third] });
    await runAs(own.key, tinyRun(judge));
    const got = await waitForReceived(ep.name, (x) => x.length >= 2);
    expect(got[1]!.verified_by).toEqual([1]);
    expect(got[1]!.signature!.split(" ")).toHaveLength(1);
  });

  it("deleting a run deletes its events and their delivery log; deleting an endpoint, its log and the events no other endpoint needs", async () => {
    const own = await createTenant({ name: "lifecycle" });
    const one = await createEndpoint(own.key);
    const two = await createEndpoint(own.key);
    const first = (await runAs(own.key, tinyRun(judge))).run_id as string;
    const second = (await runAs(own.key, tinyRun(judge))).run_id as string;
    await settledDeliveries(own.key, one.endpoint_id, 2);
    await settledDeliveries(own.key, two.endpoint_id, 2);
    const count = async (table: string) =>
      (await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE tenant_id = ?`).bind(own.tenant_id).first<{ n: number }>())!.n;
    expect([await count("webhook_events"), await count("webhook_deliveries"), await count("webhook_attempts")]).toEqual([2, 4, 4]);

    expect((await apiAs(own.key, `/v1/runs/${first}`, { method: "DELETE" })).status).toBe(200);
    expect((await deliveriesOf(own.key, one.endpoint_id)).map((d) => d.run_id)).toEqual([second]);
    expect([await count("webhook_events"), await count("webhook_deliveries"), await count("webhook_attempts")]).toEqual([1, 2, 2]);

    expect((await apiAs(own.key, `/v1/webhook-endpoints/${one.endpoint_id}`, { method: "DELETE" })).status).toBe(200);
    expect((await deliveriesOf(own.key, two.endpoint_id)).map((d) => d.run_id)).toEqual([second]);
    expect([await count("webhook_events"), await count("webhook_deliveries"), await count("webhook_attempts")]).toEqual([1, 1, 1]);
    expect((await apiAs(own.key, `/v1/webhook-endpoints/${two.endpoint_id}`, { method: "DELETE" })).status).toBe(200);
    expect([await count("webhook_events"), await count("webhook_deliveries"), await count("webhook_attempts")]).toEqual([0, 0, 0]);
  });

  it("the delivery log pages past 100 deliveries (D1 binds at most 100 parameters per query)", async () => {
    const own = await createTenant({ name: "long log" });
    const ep = await createEndpoint(own.key);
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    const rows = Array.from({ length: 120 }, (_, i) => [
      env.DB.prepare(
        "INSERT INTO webhook_events (tenant_id, event_id, run_id, type, payload, created_at) VALUES (?, ?, ?, 'run.completed', '{}', ?)",
      ).bind(own.tenant_id, `msg_${i}`, `run-${i}`, at(i)),
      env.DB.prepare(
        "INSERT INTO webhook_deliveries (tenant_id, delivery_id, event_id, endpoint_id, status, attempts, created_at, updated_at) VALUES (?, ?, ?, ?, 'delivered', 1, ?, ?)",
      ).bind(own.tenant_id, `dlv_${String(i).padStart(3, "0")}`, `msg_${i}`, ep.endpoint_id, at(i), at(i)),
      env.DB.prepare(
        "INSERT INTO webhook_attempts (tenant_id, delivery_id, attempt, at, webhook_timestamp, status_code) VALUES (?, ?, 1, ?, 0, 200)",
      ).bind(own.tenant_id, `dlv_${String(i).padStart(3, "0")}`, at(i)),
    ]);
    await env.DB.batch(rows.flat());
    const res = await apiAs(own.key, `/v1/webhook-endpoints/${ep.endpoint_id}/deliveries?limit=500`);
    expect(res.status).toBe(200);
    const page = (await res.json()) as { deliveries: any[]; next_cursor: string | null };
    expect(page.deliveries).toHaveLength(120);
    expect(page.deliveries[0]).toMatchObject({ delivery_id: "dlv_119", attempt_log: [{ attempt: 1, status_code: 200 }] });
    expect(page.deliveries.every((d) => d.attempt_log.length === 1)).toBe(true);
    expect(page.next_cursor).toBeNull();
  });

  it("the last two jobs of a run finishing at once, their redeliveries and a late dead-letter produce one run.completed (one webhook-id)", async () => {
    const own = await createTenant({ name: "race" });
    const ep = await createEndpoint(own.key);
    const runId = crypto.randomUUID();
    const stub = env.RUNS.getByName(`${own.tenant_id}:${runId}`);
    await stub.init({
      run_id: runId,
      tenant_id: own.tenant_id,
      job_ids: ["j1", "j2"],
      answering_ids: ["m"],
      parsing_ids: ["j"],
      results_per_pair: 2,
    });
    const result = (job: string) => ({ result_id: `r-${job}`, job_id: job, answering_id: "m", parsing_id: "j", verdict: "pass" as const });
    await Promise.all([stub.record(result("j1"), { completesJob: true }), stub.record(result("j2"), { completesJob: true })]);
    // At least once: both messages come again, and the dead-letter queue gives up on one late.
    await Promise.all([
      stub.record(result("j1"), { completesJob: true }),
      stub.record(result("j2"), { completesJob: true }),
      stub.markDead("j2"),
    ]);
    await waitForReceived(ep.name, (x) => x.length >= 1);
    await new Promise((r) => setTimeout(r, 300));
    const got = await receivedBy(ep.name);
    expect(got.map((r) => r.webhook_id)).toEqual([`msg_${runId}`]);
    expect(JSON.parse(got[0]!.body)).toMatchObject({
      type: "run.completed",
      data: { status: "completed", progress: { total: 2, done: 2 } },
    });
    const events = await env.DB.prepare("SELECT COUNT(*) AS n FROM webhook_events WHERE tenant_id = ? AND run_id = ?")
      .bind(own.tenant_id, runId)
      .first<{ n: number }>();
    expect(events!.n).toBe(1);
    expect(await deliveriesOf(own.key, ep.endpoint_id)).toHaveLength(1);
  });

  it("emitting a run's end again (a retry after a failure half-way) writes no second event or delivery and sends nothing twice", async () => {
    const own = await createTenant({ name: "emit twice" });
    const ep = await createEndpoint(own.key);
    const runId = crypto.randomUUID();
    const end = {
      tenant_id: own.tenant_id,
      run_id: runId,
      status: "completed" as const,
      progress: { total: 1, done: 1 },
      pairs: [],
      pairs_total: 1,
      named_endpoint_ids: [],
    };
    const first = await emitRunEvent(env, end);
    await waitForReceived(ep.name, (x) => x.length >= 1);
    const again = await emitRunEvent(env, { ...end, status: "partial" });
    await new Promise((r) => setTimeout(r, 300));
    const got = await receivedBy(ep.name);
    expect(got.map((r) => [r.webhook_id, JSON.parse(r.body).type])).toEqual([[`msg_${runId}`, "run.completed"]]);
    expect(await deliveriesOf(own.key, ep.endpoint_id)).toHaveLength(1);
    expect(again).toEqual(first);
  });
});
