/** Data lifecycle (issue 14 item 2): DELETE for runs and benchmarks, and the retention sweep. */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { sweepRetention } from "../../src/tenants/retention";
import { addFakeRules, exactTemplate, fakeModel, fakeStats, r2Keys, uniqueModel } from "./helpers";
import { ADMIN_TOKEN, apiAs, createTenant, runAs, submitAs, type TestTenant } from "./tenant-helpers";

/** Submits with the tenant's key and waits for the run to finish; returns its id. */
const runAndWait = async (t: TestTenant, body: unknown, headers: Record<string, string> = {}) =>
  (await runAs(t.key, body, headers)).run_id as string;

/** Everything D1 holds about a run, by table. */
async function d1RowsOf(runId: string) {
  const count = async (sql: string) => (await env.DB.prepare(sql).bind(runId).first<{ n: number }>())!.n;
  return {
    runs: await count("SELECT COUNT(*) AS n FROM runs WHERE run_id = ?"),
    results: await count("SELECT COUNT(*) AS n FROM results WHERE run_id = ?"),
    idempotency_keys: await count("SELECT COUNT(*) AS n FROM idempotency_keys WHERE run_id = ?"),
  };
}

function cachedSpec(answerer: string, judge: string) {
  return {
    benchmark: { name: "del", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
    config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)], replicate_count: 2 },
    cache: { enabled: true, ttl_s: 3600 },
  };
}

describe("DELETE /v1/runs/:id", () => {
  it("leaves no D1 row, R2 object or cache entry of the run, and a re-run calls the models again", async () => {
    const t = await createTenant();
    const answerer = uniqueModel("del-answerer");
    const judge = uniqueModel("del-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris" } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const runId = await runAndWait(t, cachedSpec(answerer, judge), { "idempotency-key": `del-${crypto.randomUUID()}` });
    const prefix = `t/${t.tenant_id}/runs/${runId}/`;
    const before = { d1: await d1RowsOf(runId), objects: await r2Keys(prefix), cache: await r2Keys(`t/${t.tenant_id}/cache/`) };
    expect(before.d1).toEqual({ runs: 1, results: 2, idempotency_keys: 1 });
    expect(before.objects.filter((k) => k.includes("/spec.json"))).toHaveLength(1);
    expect(before.cache).toHaveLength(4);

    const res = await apiAs(t.key, `/v1/runs/${runId}`, { method: "DELETE" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ run_id: runId, deleted: true, cache_entries: 4 });

    expect(await d1RowsOf(runId)).toEqual({ runs: 0, results: 0, idempotency_keys: 0 });
    expect(await r2Keys(prefix)).toEqual([]);
    expect(await r2Keys(`t/${t.tenant_id}/cache/`)).toEqual([]);
    expect((await apiAs(t.key, `/v1/runs/${runId}`)).status).toBe(404);
    expect(await env.RUNS.getByName(`${t.tenant_id}:${runId}`).snapshot()).toBeNull();
    const audit = (await (await apiAs(t.key, "/v1/audit")).json()) as { entries: { action: string; target: string }[] };
    expect(audit.entries[0]).toMatchObject({ action: "run.deleted", target: runId });

    // the cache entries went with the run: the same spec is graded afresh
    const calls = async () => (await fakeStats(answerer)).total + (await fakeStats(judge)).total;
    const made = await calls();
    await runAndWait(t, cachedSpec(answerer, judge));
    expect(await calls()).toBe(made + 4);
  });

  it("refuses to delete a run that is still running", async () => {
    const t = await createTenant();
    const slow = uniqueModel("del-slow");
    await addFakeRules([{ match: { model: slow }, reply: { text: "Paris", latency_ms: 1500 } }]);
    const res = await apiAs(t.key, "/v1/runs", {
      method: "POST",
      json: {
        benchmark: { name: "slow", questions: [{ id: "q1", question: "?", template: exactTemplate("Paris") }] },
        config: { answering_models: [fakeModel("a", slow)], parsing_models: [fakeModel("j", slow)] },
      },
    });
    const runId = ((await res.json()) as { run_id: string }).run_id;
    const refused = await apiAs(t.key, `/v1/runs/${runId}`, { method: "DELETE" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as any).error.code).toBe("run_active");
    expect(await d1RowsOf(runId)).toMatchObject({ runs: 1 });
  });

  it("refuses to delete a cancelled run while calls it started are finishing, which would leave their results behind the run", async () => {
    const t = await createTenant();
    const slow = uniqueModel("del-cancel-slow");
    await addFakeRules([
      { match: { model: slow }, reply: { text: "Paris", latency_ms: 1500 } },
      { match: { model: `${slow}-j` }, reply: { json: { answer: "Paris" } } },
    ]);
    const runId = await submitAs(t.key, {
      benchmark: { name: "c", questions: [1, 2, 3].map((i) => ({ id: `q${i}`, question: `Q${i}?`, template: exactTemplate("Paris") })) },
      config: { answering_models: [fakeModel("a", slow)], parsing_models: [fakeModel("j", `${slow}-j`)] },
    });
    // Its answering calls are in flight (1.5 s each) when it is cancelled.
    await vi.waitUntil(async () => (await fakeStats(slow)).total >= 3, { timeout: 10_000, interval: 50 });
    expect((await apiAs(t.key, `/v1/runs/${runId}/cancel`, { method: "POST" })).status).toBe(200);
    const refused = await apiAs(t.key, `/v1/runs/${runId}`, { method: "DELETE" });
    expect(refused.status).toBe(409);
    const { error } = (await refused.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("run_active");
    expect(error.message).toContain("still finishing");
    // Once the calls have finished and been recorded, the run has ended (finished_at) and goes whole.
    await vi.waitUntil(async () => ((await (await apiAs(t.key, `/v1/runs/${runId}`)).json()) as any).finished_at !== null, {
      timeout: 10_000,
      interval: 100,
    });
    expect((await apiAs(t.key, `/v1/runs/${runId}`, { method: "DELETE" })).status).toBe(200);
    expect(await d1RowsOf(runId)).toEqual({ runs: 0, results: 0, idempotency_keys: 0 });
  });
});

describe("DELETE /v1/benchmarks/:id", () => {
  it("removes the stored body and its row", async () => {
    const t = await createTenant();
    const created = (await (
      await apiAs(t.key, "/v1/benchmarks", {
        method: "POST",
        json: { name: "b", questions: [{ id: "q", question: "?", template: exactTemplate("x") }] },
      })
    ).json()) as { benchmark_id: string };
    const key = `t/${t.tenant_id}/benchmarks/${created.benchmark_id}/benchmark.json`;
    expect(await env.BLOBS.head(key)).not.toBeNull();
    expect((await apiAs(t.key, `/v1/benchmarks/${created.benchmark_id}`, { method: "DELETE" })).status).toBe(200);
    expect(await env.BLOBS.head(key)).toBeNull();
    expect((await apiAs(t.key, `/v1/benchmarks/${created.benchmark_id}`)).status).toBe(404);
    expect((await apiAs(t.key, `/v1/benchmarks/${created.benchmark_id}`, { method: "DELETE" })).status).toBe(404);
  });

  it("answers a benchmark whose DELETE stopped after its body went with a 404 saying to repeat the DELETE, not a 500", async () => {
    const t = await createTenant();
    const created = (await (
      await apiAs(t.key, "/v1/benchmarks", {
        method: "POST",
        json: { name: "b", questions: [{ id: "q", question: "?", template: exactTemplate("x") }] },
      })
    ).json()) as { benchmark_id: string };
    const id = created.benchmark_id;
    // The body went (the DELETE's first step); its row is left, as when the row's batch failed.
    await env.BLOBS.delete(`t/${t.tenant_id}/benchmarks/${id}/benchmark.json`);
    for (const path of [`/v1/benchmarks/${id}`, `/v1/benchmarks/${id}/checkpoint`]) {
      const res = await apiAs(t.key, path);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as any).error.message, path).toContain(`repeat DELETE /v1/benchmarks/${id}`);
    }
    const run = await apiAs(t.key, "/v1/runs", {
      method: "POST",
      json: {
        benchmark_id: id,
        config: { answering_models: [{ id: "m", interface: "manual", manual_answers: { q: "x" } }], parsing_models: [fakeModel("j", "m")] },
      },
    });
    expect(run.status).toBe(400);
    expect(((await run.json()) as any).error.issues[0]).toMatchObject({
      path: "benchmark_id",
      message: expect.stringContaining("repeat DELETE"),
    });
    expect((await apiAs(t.key, `/v1/benchmarks/${id}`, { method: "DELETE" })).status).toBe(200);
    expect((await apiAs(t.key, `/v1/benchmarks/${id}`)).status).toBe(404);
  });
});

describe("retention sweep", () => {
  it("deletes a tenant's runs older than its retention_days and keeps newer ones and other tenants' runs", async () => {
    const kept = await createTenant();
    const t = await createTenant({ retention_days: 30 });
    const answerer = uniqueModel("ret-answerer");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris" } },
      { match: { model: `${answerer}-j` }, reply: { json: { answer: "Paris" } } },
    ]);
    const spec = {
      benchmark: { name: "ret", questions: [{ id: "q1", question: "?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", `${answerer}-j`)] },
    };
    const [old, recent, otherOld] = [await runAndWait(t, spec), await runAndWait(t, spec), await runAndWait(kept, spec)];
    const longAgo = new Date(Date.now() - 31 * 86_400_000).toISOString();
    await env.DB.prepare("UPDATE runs SET created_at = ? WHERE run_id IN (?, ?)").bind(longAgo, old, otherOld).run();

    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "17 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);

    expect(await d1RowsOf(old)).toEqual({ runs: 0, results: 0, idempotency_keys: 0 });
    expect(await r2Keys(`t/${t.tenant_id}/runs/${old}/`)).toEqual([]);
    expect(await d1RowsOf(recent)).toMatchObject({ runs: 1, results: 1 });
    expect(await d1RowsOf(otherOld)).toMatchObject({ runs: 1, results: 1 });
    // The tenant's audit log says where the run went: deleted by the operator's retention policy.
    const { entries } = (await (await apiAs(t.key, "/v1/audit?limit=20")).json()) as {
      entries: { action: string; actor: string; target: string; detail: Record<string, unknown> }[];
    };
    expect(entries.filter((e) => e.action === "run.deleted")).toEqual([
      {
        ...entries.find((e) => e.action === "run.deleted" && e.target === old)!,
        actor: "operator",
        detail: expect.objectContaining({ reason: "retention", retention_days: 30, created_at: longAgo }),
      },
    ]);
    // the operator turns retention off: nothing more is swept
    await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}`, { method: "PATCH", json: { retention_days: null } });
    await env.DB.prepare("UPDATE runs SET created_at = ? WHERE run_id = ?").bind(longAgo, recent).run();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "17 * * * *" }), env, createExecutionContext());
    expect(await d1RowsOf(recent)).toMatchObject({ runs: 1 });
  });

  it("leaves an old run cancelled with calls still finishing for a later sweep, so their results do not land behind it", async () => {
    const t = await createTenant({ retention_days: 30 });
    const slow = uniqueModel("ret-cancel-slow");
    await addFakeRules([
      { match: { model: slow }, reply: { text: "Paris", latency_ms: 1500 } },
      { match: { model: `${slow}-j` }, reply: { json: { answer: "Paris" } } },
    ]);
    const runId = await submitAs(t.key, {
      benchmark: { name: "c", questions: [1, 2].map((i) => ({ id: `q${i}`, question: `Q${i}?`, template: exactTemplate("Paris") })) },
      config: { answering_models: [fakeModel("a", slow)], parsing_models: [fakeModel("j", `${slow}-j`)] },
    });
    await vi.waitUntil(async () => (await fakeStats(slow)).total >= 2, { timeout: 10_000, interval: 50 });
    expect((await apiAs(t.key, `/v1/runs/${runId}/cancel`, { method: "POST" })).status).toBe(200);
    await env.DB.prepare("UPDATE runs SET created_at = ? WHERE run_id = ?")
      .bind(new Date(Date.now() - 31 * 86_400_000).toISOString(), runId)
      .run();
    const out = await sweepRetention(env, Date.now());
    expect(out.find((o) => o.tenant_id === t.tenant_id)).toEqual({ tenant_id: t.tenant_id, deleted: 0, failed: 0 });
    await vi.waitUntil(async () => ((await (await apiAs(t.key, `/v1/runs/${runId}`)).json()) as any).finished_at !== null, {
      timeout: 10_000,
      interval: 100,
    });
    expect((await sweepRetention(env, Date.now())).find((o) => o.tenant_id === t.tenant_id)).toMatchObject({ deleted: 1 });
    expect(await d1RowsOf(runId)).toEqual({ runs: 0, results: 0, idempotency_keys: 0 });
  });

  it("goes on past a run it cannot delete: other runs and tenants are swept, the failed run is retried next time and reads 410", async () => {
    const broken = await createTenant({ retention_days: 30 });
    const fine = await createTenant({ retention_days: 30 });
    const answerer = uniqueModel("ret-broken");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris" } },
      { match: { model: `${answerer}-j` }, reply: { json: { answer: "Paris" } } },
    ]);
    const spec = {
      benchmark: { name: "ret", questions: [{ id: "q1", question: "?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", `${answerer}-j`)] },
    };
    const [stuck, swept] = [await runAndWait(broken, spec), await runAndWait(fine, spec)];
    const longAgo = new Date(Date.now() - 31 * 86_400_000).toISOString();
    await env.DB.prepare("UPDATE runs SET created_at = ? WHERE run_id IN (?, ?)").bind(longAgo, stuck, swept).run();
    // R2 fails for the broken tenant's objects (an outage, or an object that cannot be listed).
    const blobs = new Proxy(env.BLOBS, {
      get(target, prop) {
        if (prop === "list")
          return (o: R2ListOptions) => {
            if (o.prefix?.includes(broken.tenant_id)) throw new Error("R2 list failed");
            return target.list(o);
          };
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const out = await sweepRetention({ ...env, BLOBS: blobs }, Date.now());
    expect(out.filter((o) => [broken.tenant_id, fine.tenant_id].includes(o.tenant_id))).toEqual(
      expect.arrayContaining([
        { tenant_id: broken.tenant_id, deleted: 0, failed: 1 },
        { tenant_id: fine.tenant_id, deleted: 1, failed: 0 },
      ]),
    );
    expect(await d1RowsOf(swept)).toMatchObject({ runs: 0 });
    expect(await d1RowsOf(stuck)).toMatchObject({ runs: 1 });
    expect((await apiAs(broken.key, `/v1/runs/${stuck}`)).status).toBe(410);
    // The next sweep, R2 working again, finishes it.
    await sweepRetention(env, Date.now());
    expect(await d1RowsOf(stuck)).toMatchObject({ runs: 0 });
  });
});
