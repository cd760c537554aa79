/**
 * Runs from before tenants (issue 14's migration): their rows belong to `default`, their R2
 * objects keep `runs/{run}/…` keys and their coordinator its bare run-id name; queue messages
 * without tenant_id still run, and reads use the keys and names recorded on the rows.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { planRun } from "../../src/submit/plan";
import { startRun } from "../../src/submit/submit";
import { CreateRunBody } from "../../src/schemas/api";
import { keyRing } from "../../src/tenants/key-ring";
import { addFakeRules, allResults, api, exactTemplate, fakeModel, r2Keys, savedResults, uniqueModel } from "./helpers";
import { apiAs, createTenant } from "./tenant-helpers";

describe("runs from before tenants", () => {
  it("run to the end from tenant-less messages and stay readable by tenant default through their recorded keys", async () => {
    const answerer = uniqueModel("legacy-answerer");
    const judge = uniqueModel("legacy-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris" } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const body = CreateRunBody.parse({
      benchmark: { name: "legacy", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)], replicate_count: 2 },
    });
    const plan = planRun(
      body,
      { run_id: crypto.randomUUID(), tenant_id: "default", created_at: new Date().toISOString() },
      keyRing(env, true, new Map()),
    );
    if (!plan.ok) throw new Error(JSON.stringify(plan.issues));
    // What an old deployment wrote: a spec without a tenant, a run row without a coordinator name.
    const { tenant_id: _dropped, ...legacySpec } = plan.spec;
    const sent: { body: Record<string, unknown> }[] = [];
    await startRun(
      { ...env, JOBS: { sendBatch: async (m: typeof sent) => void sent.push(...m) } as unknown as Queue<unknown> },
      legacySpec,
      plan.jobIds,
    );
    await env.DB.prepare("UPDATE runs SET coordinator_name = NULL WHERE run_id = ?").bind(plan.spec.run_id).run();
    expect(sent.map((m) => Object.keys(m.body).sort())).toEqual([
      ["job_id", "run_id"],
      ["job_id", "run_id"],
    ]);

    const batch = createMessageBatch(
      "edgeval-jobs",
      sent.map((m, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body: m.body })),
    );
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).retryMessages).toEqual([]);

    const runId = plan.spec.run_id;
    // Small results are whole in D1; nothing of the legacy run is written under the tenant layout.
    expect(await savedResults(runId)).toEqual(["d1", "d1"]);
    expect(await r2Keys(`t/default/runs/${runId}/`)).toEqual([]);
    const view = (await (await api(`/v1/runs/${runId}`)).json()) as any;
    expect(view).toMatchObject({ status: "completed", progress: { total: 2, done: 2 } });
    const results = await allResults(runId);
    expect(results).toHaveLength(2);
    expect((await api(`/v1/runs/${runId}/results/${results[0].metadata.result_id}`)).status).toBe(200);
    const rows = await env.DB.prepare("SELECT DISTINCT tenant_id FROM results WHERE run_id = ?").bind(runId).all();
    expect(rows.results).toEqual([{ tenant_id: "default" }]);

    // Another tenant does not see it; tenant default can delete it, old keys and all.
    const other = await createTenant();
    expect((await apiAs(other.key, `/v1/runs/${runId}`)).status).toBe(404);
    expect((await api(`/v1/runs/${runId}`, { method: "DELETE" })).status).toBe(200);
    expect(await r2Keys(`runs/${runId}/`)).toEqual([]);
  });
});

describe("jobs per run", () => {
  it("refuses a run planning more jobs than the tenant's jobs_per_run with a 400 at config", async () => {
    const t = await createTenant({ limits: { jobs_per_run: 2 } });
    const res = await apiAs(t.key, "/v1/runs", {
      method: "POST",
      json: {
        benchmark: { name: "big", questions: [{ id: "q", question: "?", template: exactTemplate("x") }] },
        config: {
          answering_models: [{ id: "m", interface: "manual", manual_answers: { q: "x" } }],
          parsing_models: [fakeModel("j", "j")],
          replicate_count: 3,
        },
      },
    });
    expect(res.status).toBe(400);
    const err = ((await res.json()) as any).error;
    expect(err.issues[0]).toMatchObject({ path: "config" });
    expect(err.issues[0].message).toMatch(/plans 3 jobs.*at most 2/);
  });
});
