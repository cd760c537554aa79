/**
 * Issue 14's isolation guarantees, end to end inside workerd: tenant B's key on every id-taking
 * route of the app (enumerated from `app.routes`) finds none of tenant A's resources (404), B's
 * listings never show them, and A's canary string appears in none of B's responses.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { buildWorkerApp } from "../../src/worker-app";
import { addFakeRules, exactTemplate, fakeModel, fakeStats, uniqueModel } from "./helpers";
import { writeTestFigures } from "../reliability/scenario";
import { apiAs, createTenant, submitAs, type TestTenant, waitAs } from "./tenant-helpers";
import { createEndpoint, settledDeliveries } from "./webhook-helpers";
import { createTrigger } from "./trigger-helpers";
import { dashboardFetch, dashboardSession, ORIGIN } from "./dashboard-helpers";

const CANARY = `canary-${crypto.randomUUID().slice(0, 8)}`;

interface AIds {
  run_id: string;
  benchmark_id: string;
  result_id: string;
  key_id: string;
  secret_name: string;
  endpoint_id: string;
  delivery_id: string;
  trigger_id: string;
  preset_id: string;
  judge_id: string;
  judge_token_id: string;
  export_id: string;
  schedule_id: string;
}

/** Path parameters per route: A's ids. A route missing here fails the enumeration test. */
function paramsFor(path: string, a: AIds): Record<string, string> | undefined {
  const table: Record<string, Record<string, string>> = {
    "/v1/runs/:id": { id: a.run_id },
    "/v1/runs/:id/results": { id: a.run_id },
    "/v1/runs/:id/summary": { id: a.run_id },
    "/v1/runs/:id/cancel": { id: a.run_id },
    "/v1/runs/:id/events": { id: a.run_id },
    "/v1/runs/:id/results/:result_id": { id: a.run_id, result_id: a.result_id },
    "/v1/runs/:id/export": { id: a.run_id },
    "/v1/runs/:id/rescore": { id: a.run_id },
    "/v1/runs/:id/exports": { id: a.run_id },
    "/v1/runs/:id/exports/:export_id": { id: a.run_id, export_id: a.export_id },
    "/v1/runs/:id/exports/:export_id/download": { id: a.run_id, export_id: a.export_id },
    "/v1/schedules/:id": { id: a.schedule_id },
    "/v1/benchmarks/:id": { id: a.benchmark_id },
    "/v1/benchmarks/:id/checkpoint": { id: a.benchmark_id },
    "/v1/keys/:id": { id: a.key_id },
    "/v1/keys/:id/rotate": { id: a.key_id },
    "/v1/secrets/:name": { name: a.secret_name },
    "/v1/webhook-endpoints/:id": { id: a.endpoint_id },
    "/v1/webhook-endpoints/:id/rotate-secret": { id: a.endpoint_id },
    "/v1/webhook-endpoints/:id/deliveries": { id: a.endpoint_id },
    "/v1/webhook-endpoints/:id/test": { id: a.endpoint_id },
    "/v1/triggers/:id": { id: a.trigger_id },
    "/v1/triggers/:id/rotate-secret": { id: a.trigger_id },
    "/v1/presets/:id": { id: a.preset_id },
    "/v1/judges/:id": { id: a.judge_id },
    "/v1/judges/:id/tokens": { id: a.judge_id },
    "/v1/judges/:id/tokens/:token_id": { id: a.judge_id, token_id: a.judge_token_id },
    "/v1/webhook-endpoints/:id/deliveries/:delivery_id/retry": { id: a.endpoint_id, delivery_id: a.delivery_id },
    // The dashboard's pages, requested with B's session cookie (issue 25).
    "/dashboard/runs/:id": { id: a.run_id },
    "/dashboard/runs/:id/events": { id: a.run_id },
    "/dashboard/runs/:id/cancel": { id: a.run_id },
    "/dashboard/runs/:id/rescore": { id: a.run_id },
    "/dashboard/runs/:id/results": { id: a.run_id },
    "/dashboard/runs/:id/results/:result_id": { id: a.run_id, result_id: a.result_id },
    "/dashboard/runs/:id/compare": { id: a.run_id },
    "/dashboard/runs/:id/exports": { id: a.run_id },
    "/dashboard/runs/:id/exports/:export_id": { id: a.run_id, export_id: a.export_id },
    "/dashboard/runs/:id/exports/:export_id/download": { id: a.run_id, export_id: a.export_id },
  };
  return table[path];
}

describe("tenant isolation", () => {
  let a: TestTenant;
  let b: TestTenant;
  let ids: AIds;
  const answerer = uniqueModel("iso-answerer");
  const judge = uniqueModel("iso-judge");

  beforeAll(async () => {
    a = await createTenant({ name: `A ${CANARY}` });
    b = await createTenant({ name: "B" });
    await addFakeRules([
      { match: { model: answerer }, reply: { text: `The answer is ${CANARY}` } },
      { match: { model: judge }, reply: { json: { answer: CANARY } } },
    ]);
    const stored = await apiAs(a.key, "/v1/benchmarks", {
      method: "POST",
      json: {
        name: `bench ${CANARY}`,
        questions: [
          { id: `q-${CANARY}`, question: `What is ${CANARY}?`, raw_answer: CANARY, keywords: [CANARY], template: exactTemplate(CANARY) },
        ],
      },
    });
    const benchmark_id = ((await stored.json()) as { benchmark_id: string }).benchmark_id;
    // A's webhook endpoint receives A's run's end event: B must reach neither it nor its deliveries.
    const endpoint = await createEndpoint(a.key, { description: `hook ${CANARY}` });
    const run_id = await submitAs(a.key, {
      benchmark_id,
      run_name: `run ${CANARY}`,
      config: {
        answering_models: [fakeModel(`a-${CANARY}`, answerer)],
        parsing_models: [fakeModel(`j-${CANARY}`, judge)],
        replicate_count: 1,
      },
    });
    await waitAs(a.key, run_id);
    const page = (await (await apiAs(a.key, `/v1/runs/${run_id}/results`)).json()) as { results: { metadata: { result_id: string } }[] };
    const secret_name = `SECRET_${CANARY.slice(7).toUpperCase()}`;
    const put = await apiAs(a.key, `/v1/secrets/${secret_name}`, { method: "PUT", json: { value: `sk-${CANARY}`, interface: "openai" } });
    expect(put.status).toBe(201);
    const [delivery] = await settledDeliveries(a.key, endpoint.endpoint_id, 1);
    const preset = (await (
      await apiAs(a.key, "/v1/presets", {
        method: "POST",
        json: {
          name: `preset ${CANARY}`,
          config: { answering_models: [fakeModel(`a-${CANARY}`, answerer)], parsing_models: [fakeModel(`j-${CANARY}`, judge)] },
        },
      })
    ).json()) as { preset_id: string };
    const trigger = await createTrigger(a.key, {
      name: `trigger ${CANARY}`,
      benchmark_id,
      config: { answering_models: [fakeModel(`a-${CANARY}`, answerer)], parsing_models: [fakeModel(`j-${CANARY}`, judge)] },
      signing: { scheme: "github" },
    });
    const storedJudge = (await (
      await apiAs(a.key, "/v1/judges", {
        method: "POST",
        json: {
          name: `judge ${CANARY}`,
          config: { type: "judge", prompt: `${CANARY}: {{output}}`, provider: fakeModel(`j-${CANARY}`, judge) },
        },
      })
    ).json()) as { judge_id: string };
    const judgeToken = (await (
      await apiAs(a.key, `/v1/judges/${storedJudge.judge_id}/tokens`, { method: "POST", json: { name: `token ${CANARY}` } })
    ).json()) as { token_id: string };
    const exported = await apiAs(a.key, `/v1/runs/${run_id}/exports`, { method: "POST", json: { format: "ndjson" } });
    expect(exported.status).toBe(202);
    const scheduled = await apiAs(a.key, "/v1/schedules", {
      method: "POST",
      json: {
        name: `sched ${CANARY}`,
        cron: "0 3 * * *",
        benchmark_id,
        config: { answering_models: [fakeModel(`a-${CANARY}`, answerer)], parsing_models: [fakeModel(`j-${CANARY}`, judge)] },
      },
    });
    expect(scheduled.status).toBe(201);
    ids = {
      run_id,
      benchmark_id,
      result_id: page.results[0]!.metadata.result_id,
      key_id: a.key_id,
      secret_name,
      endpoint_id: endpoint.endpoint_id,
      delivery_id: delivery.delivery_id,
      trigger_id: trigger.trigger_id,
      preset_id: preset.preset_id,
      judge_id: storedJudge.judge_id,
      judge_token_id: judgeToken.token_id,
      export_id: ((await exported.json()) as { export_id: string }).export_id,
      schedule_id: ((await scheduled.json()) as { schedule_id: string }).schedule_id,
    };
    // A's own view has the canary (so its absence from B's responses means something).
    expect(JSON.stringify(page)).toContain(CANARY);
  });

  it("answers 404 to B on every id-taking route of app.routes called with A's ids, and leaves A's resources as they were", async () => {
    const creating = (r: { method: string; path: string }) => r.method === "PUT" && r.path === "/v1/secrets/:name";
    const routes = buildWorkerApp()
      // /v1/hooks takes no key: the trigger's signature is its credential (test/integration/triggers.test.ts);
      // a stored judge's promptfoo route takes its judge token (below, and stored-judges.test.ts).
      .routes.filter(
        (r) =>
          r.method !== "ALL" &&
          r.path.includes("/:") &&
          !r.path.startsWith("/v1/admin") &&
          !r.path.startsWith("/v1/hooks") &&
          !r.path.endsWith("/promptfoo"),
      )
      // the one route that creates (B's own secret of A's name) goes last, after B's DELETE of that name
      .sort((x, y) => Number(creating(x)) - Number(creating(y)));
    expect(routes.length).toBeGreaterThanOrEqual(7);
    const seen: string[] = [];
    const bSession = await dashboardSession(b.key);
    for (const r of routes) {
      const params = paramsFor(r.path, ids);
      expect(params, `route ${r.method} ${r.path} is not covered by the isolation test`).toBeDefined();
      const path = r.path.replace(/:([a-z_]+)/g, (_, name: string) => params![name]!);
      // PUT /v1/secrets/:name names no resource of A's: it sets B's own secret of that name (201).
      const creates = creating(r);
      const json = creates ? { value: "sk-b", interface: "openai" } : {};
      const res = r.path.startsWith("/dashboard/")
        ? await dashboardFetch(path, { method: r.method, cookie: bSession, headers: { origin: ORIGIN } })
        : await apiAs(b.key, path, { method: r.method, ...(r.method === "GET" ? {} : { json }) });
      const text = await res.text();
      expect({ route: `${r.method} ${r.path}`, status: res.status }).toEqual({
        route: `${r.method} ${r.path}`,
        status: creates ? 201 : 404,
      });
      expect(text).not.toContain(CANARY);
      seen.push(`${r.method} ${r.path}`);
    }
    expect(seen).toContain("GET /v1/runs/:id/results/:result_id");
    expect(seen).toContain("GET /dashboard/runs/:id/results/:result_id");
    // The one run route whose ids are in the query: A's runs are unknown to B there too.
    const compared = await apiAs(b.key, `/v1/runs/compare?a=${ids.run_id}&b=${ids.run_id}`);
    expect(compared.status).toBe(404);
    expect(await compared.text()).not.toContain(CANARY);
    // Through a run of B's own, A's export (status page, download) and A's run (the compare page's `a`) are 404s as well.
    const bRun = await submitAs(b.key, {
      benchmark: { name: "b", questions: [{ id: "q", question: "Q?", template: exactTemplate("x") }] },
      config: { answering_models: [{ id: "m", interface: "manual", manual_answers: { q: "x" } }], parsing_models: [fakeModel("j", judge)] },
    });
    await waitAs(b.key, bRun);
    for (const path of [
      `/dashboard/runs/${bRun}/exports/${ids.export_id}`,
      `/dashboard/runs/${bRun}/exports/${ids.export_id}/download`,
      `/dashboard/runs/${bRun}/compare?a=${ids.run_id}`,
    ]) {
      const res = await dashboardFetch(path, { cookie: bSession });
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(await res.text()).not.toContain(CANARY);
    }
    // B's run goes again, objects and all (a later test finds nothing under B's prefix).
    expect((await apiAs(b.key, `/v1/runs/${bRun}`, { method: "DELETE" })).status).toBeLessThan(300);
    // Scenario 9 of the reliability suite (test/reliability/README.md): the corpus is every id-taking route.
    await writeTestFigures({
      name: "s9-cross-tenant",
      scenario: "9 cross-tenant: B calls A's ids",
      size: `${seen.length} routes`,
      faults_injected: seen.length,
      invariants: {
        all_refused: {
          pass: seen.length === routes.length,
          detail: `${seen.length} of ${routes.length} routes answered B 404 (201 for B's own secret) without A's canary`,
        },
      },
    });
    // A's run, results and key are untouched by B's attempts.
    expect((await apiAs(a.key, `/v1/runs/${ids.run_id}/results/${ids.result_id}`)).status).toBe(200);
    expect((await apiAs(a.key, `/v1/benchmarks/${ids.benchmark_id}`)).status).toBe(200);
    const keys = (await (await apiAs(a.key, "/v1/keys")).json()) as { keys: { key_id: string; revoked_at: string | null }[] };
    expect(keys.keys).toEqual([expect.objectContaining({ key_id: a.key_id, revoked_at: null })]);
    const aSecrets = (await (await apiAs(a.key, "/v1/secrets")).json()) as {
      secrets: { name: string; created_at: string; updated_at: string }[];
    };
    expect(aSecrets.secrets).toHaveLength(1);
    expect(aSecrets.secrets[0]!.updated_at).toBe(aSecrets.secrets[0]!.created_at);
    const hook = (await (await apiAs(a.key, `/v1/webhook-endpoints/${ids.endpoint_id}`)).json()) as Record<string, unknown>;
    expect(hook).toMatchObject({ enabled: true, description: `hook ${CANARY}`, previous_secret_expires_at: null });
    expect(hook.updated_at).toBe(hook.created_at);
    const aTokens = (await (await apiAs(a.key, `/v1/judges/${ids.judge_id}/tokens`)).json()) as { tokens: { revoked_at: string | null }[] };
    expect(aTokens.tokens).toEqual([expect.objectContaining({ revoked_at: null })]);
  });

  it("grades with A's stored judge for no token of B's: B's judge token on A's judge is a 401 with no model call", async () => {
    const bJudge = (await (
      await apiAs(b.key, "/v1/judges", { method: "POST", json: { name: "b", config: { type: "judge", provider: fakeModel("j", judge) } } })
    ).json()) as { judge_id: string };
    const bToken = (await (await apiAs(b.key, `/v1/judges/${bJudge.judge_id}/tokens`, { method: "POST", json: {} })).json()) as {
      token: string;
    };
    const calls = (await fakeStats(judge)).total;
    const res = await apiAs(b.key, `/v1/judges/${ids.judge_id}/promptfoo?token=${bToken.token}`, {
      method: "POST",
      json: { output: "x", context: { prompt: "p", vars: {} } },
    });
    expect(res.status).toBe(401);
    expect(await res.text()).not.toContain(CANARY);
    expect((await fakeStats(judge)).total).toBe(calls);
  });

  it("never lists A's resources to B, and no response to B carries A's canary", async () => {
    for (const path of [
      "/v1/runs",
      "/v1/benchmarks",
      "/v1/keys",
      "/v1/audit",
      "/v1/secrets",
      "/v1/usage",
      "/v1/webhook-endpoints",
      "/v1/triggers",
      "/v1/presets",
      "/v1/judges",
      "/v1/schedules",
    ]) {
      const res = await apiAs(b.key, path);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).not.toContain(CANARY);
      // (B set a secret of A's secret's name itself in the test above: that name is B's too.)
      for (const id of [
        ids.run_id,
        ids.benchmark_id,
        ids.result_id,
        ids.key_id,
        ids.endpoint_id,
        ids.delivery_id,
        ids.trigger_id,
        ids.preset_id,
        ids.judge_id,
        ids.schedule_id,
      ])
        expect(text).not.toContain(id);
    }
    // A's benchmark named in a run body is unknown to B (a 400 at benchmark_id, no canary).
    const res = await apiAs(b.key, "/v1/runs", {
      method: "POST",
      json: {
        benchmark_id: ids.benchmark_id,
        config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)] },
      },
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(JSON.parse(text).error.issues[0].path).toBe("benchmark_id");
    expect(text).not.toContain(CANARY);
    // A's webhook endpoint named in B's run is unknown to B as well.
    const named = await apiAs(b.key, "/v1/runs", {
      method: "POST",
      json: {
        benchmark: { name: "b", questions: [{ id: "q", question: "?", template: exactTemplate("x") }] },
        config: {
          answering_models: [{ id: "m", interface: "manual", manual_answers: { q: "x" } }],
          parsing_models: [fakeModel("j", judge)],
        },
        webhook_endpoint_ids: [ids.endpoint_id],
      },
    });
    expect(named.status).toBe(400);
    expect(((await named.json()) as any).error.issues[0].path).toBe("webhook_endpoint_ids[0]");
  });

  it("keeps each tenant's rows, objects and coordinator under its tenant", async () => {
    const row = await env.DB.prepare("SELECT tenant_id, coordinator_name, spec_key FROM runs WHERE run_id = ?")
      .bind(ids.run_id)
      .first<any>();
    expect(row).toEqual({
      tenant_id: a.tenant_id,
      coordinator_name: `${a.tenant_id}:${ids.run_id}`,
      spec_key: `t/${a.tenant_id}/runs/${ids.run_id}/spec.json`,
    });
    // A small result is whole in its row (no R2 object); large ones go under the tenant (result-storage.test.ts).
    const results = await env.DB.prepare("SELECT DISTINCT tenant_id, r2_key FROM results WHERE run_id = ?").bind(ids.run_id).all<any>();
    expect(results.results).toEqual([{ tenant_id: a.tenant_id, r2_key: "" }]);
    const bench = await env.DB.prepare("SELECT tenant_id, body_key FROM benchmarks WHERE benchmark_id = ?")
      .bind(ids.benchmark_id)
      .first<any>();
    expect(bench).toEqual({ tenant_id: a.tenant_id, body_key: `t/${a.tenant_id}/benchmarks/${ids.benchmark_id}/benchmark.json` });
    const listed = await env.BLOBS.list({ prefix: `t/${a.tenant_id}/` });
    // The run spec and the stored benchmark (a small result is whole in its D1 row).
    expect(listed.objects.length).toBeGreaterThanOrEqual(2);
    expect((await env.BLOBS.list({ prefix: `t/${b.tenant_id}/` })).objects).toEqual([]);
  });

  it("scopes Idempotency-Key per tenant: the same key with different bodies is a new run for each tenant", async () => {
    const key = `idem-${crypto.randomUUID()}`;
    const body = (name: string) => ({
      benchmark: { name, questions: [{ id: "q", question: "?", template: exactTemplate("x") }] },
      config: { answering_models: [{ id: "m", interface: "manual", manual_answers: { q: "x" } }], parsing_models: [fakeModel("j", judge)] },
    });
    const runA = await submitAs(a.key, body("one"), { "idempotency-key": key });
    const runB = await submitAs(b.key, body("two"), { "idempotency-key": key });
    expect(runB).not.toBe(runA);
    expect(await submitAs(a.key, body("one"), { "idempotency-key": key })).toBe(runA);
    expect((await apiAs(a.key, "/v1/runs", { method: "POST", json: body("two"), headers: { "idempotency-key": key } })).status).toBe(409);
    await waitAs(a.key, runA);
    await waitAs(b.key, runB);
  });
});

describe("response cache per tenant", () => {
  it("never serves one tenant's cached calls to another: B makes its own calls, A re-running makes none", async () => {
    const [a, b] = [await createTenant(), await createTenant()];
    const answerer = uniqueModel("tcache-answerer");
    const judge = uniqueModel("tcache-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris" } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const spec = {
      benchmark: { name: "cache", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)], replicate_count: 2 },
      cache: { enabled: true, ttl_s: 3600 },
    };
    const calls = async () => (await fakeStats(answerer)).total + (await fakeStats(judge)).total;
    await waitAs(a.key, await submitAs(a.key, spec));
    expect(await calls()).toBe(4);
    await waitAs(b.key, await submitAs(b.key, spec));
    expect(await calls()).toBe(8);
    await waitAs(a.key, await submitAs(a.key, spec));
    expect(await calls()).toBe(8);
  });
});

describe("concurrent runs per tenant", () => {
  it("refuses a tenant at its concurrent-run limit with 429, Retry-After and RateLimit headers; another tenant is unaffected", async () => {
    const limited = await createTenant({ limits: { concurrent_runs: 1 } });
    const other = await createTenant({ limits: { concurrent_runs: 1 } });
    const slow = uniqueModel("slow-answerer");
    const judge = uniqueModel("slow-judge");
    await addFakeRules([
      { match: { model: slow }, reply: { text: "Paris", latency_ms: 2000 } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const spec = {
      benchmark: { name: "slow", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", slow)], parsing_models: [fakeModel("j", judge)] },
    };
    const first = await submitAs(limited.key, spec);
    const idem = { "idempotency-key": `conc-${crypto.randomUUID()}` };
    const refused = await apiAs(limited.key, "/v1/runs", { method: "POST", json: spec, headers: idem });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as any).error.code).toBe("quota_exceeded");
    expect(refused.headers.get("Retry-After")).toBe("30");
    expect(refused.headers.get("RateLimit-Policy")).toBe('"requests";q=600;w=60, "concurrent_runs";q=1');
    expect(refused.headers.get("RateLimit")).toMatch(/^"requests";r=\d+;t=\d+, "concurrent_runs";r=0$/);
    const otherRun = await submitAs(other.key, spec);
    await waitAs(limited.key, first);
    // the finished run frees the slot, and the refused request's Idempotency-Key was not kept
    const again = await submitAs(limited.key, spec, idem);
    expect(again).not.toBe(first);
    await waitAs(limited.key, again);
    await waitAs(other.key, otherRun);
  });
});
