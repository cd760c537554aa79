/**
 * Issue 17: the opt-in `result.created` event, inside workerd against the verifying receiver
 * (test/webhook-receiver/server.mjs): one per result, only to endpoints that name it, never a secret.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { upsertResults } from "../../src/storage/results-repo";
import { EVENT_MAX_BYTES } from "../../src/webhooks/emit";
import { addFakeRules, exactTemplate, uniqueModel } from "./helpers";
import { apiAs, createTenant, submitAs, waitAs } from "./tenant-helpers";
import { createEndpoint, receivedBy, waitForReceived } from "./webhook-helpers";

const hex = (s: string) => [...new TextEncoder().encode(s)].map((b) => b.toString(16).padStart(2, "0")).join("");

/** The coordinator's outbox of result.created (empty once handed over) and whether the run keeps one. */
async function outboxOf(tenantId: string, runId: string) {
  return runInDurableObject(env.RUNS.getByName(`${tenantId}:${runId}`), async (_i, state) => ({
    flagged: state.storage.sql.exec("SELECT v FROM meta WHERE k = 'result_events'").toArray().length > 0,
    waiting: state.storage.sql.exec("SELECT result_id FROM result_events").toArray().length,
  }));
}

describe("result.created (opt-in)", () => {
  const judge = uniqueModel("result-event-judge");
  beforeAll(() => addFakeRules([{ match: { model: judge }, reply: { json: { answer: "x" } } }]));

  const threeQuestions = (judgeModel: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    run_name: "three",
    benchmark: { name: "hooks", questions: ["q1", "q2", "q3"].map((id) => ({ id, question: "?", template: exactTemplate("x") })) },
    config: {
      answering_models: [{ id: "m", interface: "manual", manual_answers: { q1: "x", q2: "x", q3: "x" } }],
      parsing_models: [judgeModel],
    },
    ...extra,
  });

  it("an endpoint naming result.created gets one verified event per result besides run.completed; the default filter does not; no secret in any", async () => {
    const own = await createTenant({ name: "result events" });
    const canary = `sk-canary-${crypto.randomUUID()}`;
    const put = await apiAs(own.key, "/v1/secrets/HOOK_JUDGE_KEY", {
      method: "PUT",
      json: { value: canary, interface: "openai", origins: [env.FAKE_LLM_URL] },
    });
    expect(put.status).toBe(201);
    const both = await createEndpoint(own.key, { event_types: ["run.completed", "result.created"] });
    const plain = await createEndpoint(own.key);
    const judgeModel = {
      id: "j",
      interface: "openai",
      model_name: judge,
      base_url: `${env.FAKE_LLM_URL}/v1`,
      api_key_secret: "HOOK_JUDGE_KEY",
    };
    const runId = await submitAs(own.key, threeQuestions(judgeModel));
    await waitAs(own.key, runId);
    const got = await waitForReceived(both.name, (r) => r.length >= 4);
    await new Promise((r) => setTimeout(r, 300));
    const all = await receivedBy(both.name);
    expect(all).toHaveLength(4);
    expect(all.every((r) => r.verified_by.length === 1 && r.status === 200)).toBe(true);
    const bodies = got.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.type).sort()).toEqual(["result.created", "result.created", "result.created", "run.completed"]);

    const listed = (await (await apiAs(own.key, `/v1/runs/${runId}/results`)).json()) as { results: { metadata: { result_id: string } }[] };
    const resultIds = listed.results.map((r) => r.metadata.result_id).sort();
    const created = all.filter((r) => JSON.parse(r.body).type === "result.created");
    expect(created.map((r) => r.webhook_id).sort()).toEqual(resultIds.map((id) => `msg_${runId}_${id}`).sort());
    const one = JSON.parse(created[0]!.body);
    expect(one).toEqual({
      type: "result.created",
      timestamp: expect.any(String),
      data: {
        run_id: runId,
        run_name: "three",
        result_id: expect.any(String),
        question_id: expect.stringMatching(/^q[123]$/),
        answering_model: "m",
        parsing_model: "j",
        replicate: expect.any(Number),
        verdict: "pass",
        verify_result: true,
        failure_category: null,
        links: {
          result: `http://edgeval.test/v1/runs/${runId}/results/${one.data.result_id}`,
          run: `http://edgeval.test/v1/runs/${runId}`,
        },
      },
    });
    expect((await apiAs(own.key, new URL(one.data.links.result).pathname)).status).toBe(200);

    // Opt-in: the endpoint with the default filter got the run's end only.
    expect((await receivedBy(plain.name)).map((r) => JSON.parse(r.body).type)).toEqual(["run.completed"]);
    // The judge used the key; no event carries it, a signing secret or the tenant's API key.
    const leaks = [canary, btoa(canary), hex(canary), both.secret, both.secret.slice(6), plain.secret.slice(6), own.key];
    for (const r of [...all, ...(await receivedBy(plain.name))]) {
      expect(new TextEncoder().encode(r.body).length).toBeLessThanOrEqual(EVENT_MAX_BYTES);
      for (const secret of leaks) expect(r.body.includes(secret)).toBe(false);
    }
    expect(await outboxOf(own.tenant_id, runId)).toEqual({ flagged: true, waiting: 0 });
  });

  it("a run with no result.created receiver keeps no outbox", async () => {
    const own = await createTenant({ name: "no result events" });
    const plain = await createEndpoint(own.key);
    const optedIn = await createEndpoint(own.key, { all_runs: false, event_types: ["result.created"] });
    const runId = await submitAs(
      own.key,
      threeQuestions({ id: "j", interface: "openai_compatible", model_name: judge, base_url: `${env.FAKE_LLM_URL}/v1` }),
    );
    await waitAs(own.key, runId);
    await waitForReceived(plain.name, (r) => r.length >= 1);
    expect(await outboxOf(own.tenant_id, runId)).toEqual({ flagged: false, waiting: 0 });
    expect(await receivedBy(optedIn.name)).toEqual([]);
  });

  it("with six receivers a hand-over starts at most 200 deliveries; the alarm hands the rest over, then the run's end", async () => {
    const own = await createTenant({ name: "many receivers" });
    const receivers = [];
    for (let i = 0; i < 6; i++) receivers.push(await createEndpoint(own.key, { event_types: ["result.created", "run.completed"] }));
    const runId = crypto.randomUUID();
    const now = new Date().toISOString();
    const ids = Array.from({ length: 40 }, (_, i) => `r${String(i).padStart(2, "0")}`);
    await upsertResults(
      env.DB,
      ids.map((id) => ({
        result_id: id,
        tenant_id: own.tenant_id,
        run_id: runId,
        question_id: `q-${id}`,
        answering_model: "m",
        parsing_model: "j",
        replicate: 0,
        verdict: "pass" as const,
        verify_result: true,
        failure_category: null,
        r2_key: `k/${id}`,
        compact_json: "{}",
        trace_json: null,
        created_at: now,
      })),
    );
    const stub = env.RUNS.getByName(`${own.tenant_id}:${runId}`);
    await stub.init({
      run_id: runId,
      tenant_id: own.tenant_id,
      job_ids: ["j1"],
      answering_ids: ["m"],
      parsing_ids: ["j"],
      results_per_pair: 40,
      result_events: true,
    });
    for (const [i, id] of ids.entries()) {
      await stub.record(
        { result_id: id, job_id: "j1", answering_id: "m", parsing_id: "j", verdict: "pass" },
        { completesJob: i === ids.length - 1 },
      );
    }
    const deliveries = () =>
      env.DB.prepare(
        `SELECT d.created_at AS at, COUNT(*) AS n FROM webhook_deliveries d JOIN webhook_events e ON e.tenant_id = d.tenant_id AND e.event_id = d.event_id
         WHERE e.tenant_id = ? AND e.run_id = ? GROUP BY d.created_at`,
      )
        .bind(own.tenant_id, runId)
        .all<{ at: string; n: number }>();
    let handOvers: { at: string; n: number }[] = [];
    for (let i = 0; i < 1000; i++) {
      handOvers = (await deliveries()).results;
      if (handOvers.reduce((a, h) => a + h.n, 0) >= 41 * 6) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(handOvers.reduce((a, h) => a + h.n, 0)).toBe(41 * 6);
    expect(Math.max(...handOvers.map((h) => h.n))).toBeLessThanOrEqual(200);
    expect(handOvers.length).toBeGreaterThanOrEqual(3);
    const events = await env.DB.prepare(
      "SELECT type, COUNT(*) AS n FROM webhook_events WHERE tenant_id = ? AND run_id = ? GROUP BY type ORDER BY type",
    )
      .bind(own.tenant_id, runId)
      .all<{ type: string; n: number }>();
    expect(events.results).toEqual([
      { type: "result.created", n: 40 },
      { type: "run.completed", n: 1 },
    ]);
    expect(await outboxOf(own.tenant_id, runId)).toEqual({ flagged: true, waiting: 0 });
  }, 90_000); // 246 real deliveries to the receiver: seconds, more under load

  it("a result recorded twice (a redelivered job) sends one result.created; the run's end follows once", async () => {
    const own = await createTenant({ name: "result twice" });
    const ep = await createEndpoint(own.key, { all_runs: false, event_types: ["result.created", "run.completed"] });
    const runId = crypto.randomUUID();
    const now = new Date().toISOString();
    const row = (result_id: string, question_id: string) => ({
      result_id,
      tenant_id: own.tenant_id,
      run_id: runId,
      question_id,
      answering_model: "m",
      parsing_model: "j",
      replicate: 0,
      verdict: "fail" as const,
      verify_result: false,
      failure_category: null,
      r2_key: `k/${result_id}`,
      compact_json: "{}",
      trace_json: null,
      created_at: now,
    });
    // As the consumer does: the D1 row first, then the coordinator hears of the result.
    await upsertResults(env.DB, [row("r1", "q1"), row("r2", "q2")]);
    const stub = env.RUNS.getByName(`${own.tenant_id}:${runId}`);
    await stub.init({
      run_id: runId,
      tenant_id: own.tenant_id,
      job_ids: ["j1", "j2"],
      answering_ids: ["m"],
      parsing_ids: ["j"],
      results_per_pair: 2,
      webhook_endpoint_ids: [ep.endpoint_id],
      result_events: true,
    });
    const result = (id: string, job: string) => ({
      result_id: id,
      job_id: job,
      answering_id: "m",
      parsing_id: "j",
      verdict: "fail" as const,
    });
    await stub.record(result("r1", "j1"));
    await stub.record(result("r1", "j1"), { completesJob: true });
    await waitForReceived(ep.name, (r) => r.length >= 1);
    await stub.record(result("r1", "j1"), { completesJob: true });
    await stub.record(result("r2", "j2"), { completesJob: true });
    await waitForReceived(ep.name, (r) => r.length >= 3);
    await new Promise((r) => setTimeout(r, 300));
    const got = await receivedBy(ep.name);
    expect(got.map((r) => r.webhook_id).sort()).toEqual([`msg_${runId}`, `msg_${runId}_r1`, `msg_${runId}_r2`].sort());
    expect(JSON.parse(got.find((r) => r.webhook_id === `msg_${runId}_r2`)!.body).data).toMatchObject({
      question_id: "q2",
      verdict: "fail",
      verify_result: false,
    });
    expect(JSON.parse(got.find((r) => r.webhook_id === `msg_${runId}`)!.body)).toMatchObject({
      type: "run.completed",
      data: { status: "completed" },
    });
  });
});
