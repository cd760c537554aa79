/**
 * Scheduled runs (issue 21 item 5): the Cron Trigger's handler, called directly, starts a
 * schedule's run once per minute; each ended run is compared with the schedule's previous one, and
 * a significant drop sends `run.regression` through the completion webhooks to a real receiver
 * that verifies the signature (test/webhook-receiver/server.mjs).
 *
 * The schedule names a stored preset (the judge) and overrides its answering models, as a run body may.
 * Script: 8 questions; the judge passes the first 8 answers it sees (run 1) and fails every later
 * one (run 2): 8 pass → fail flips, McNemar p = 2/2^8 ≈ 0.0078 < 0.05.
 */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { buildApp } from "../../src/http/app";
import { COMPARISONS_PER_TICK } from "../../src/schedules/tick";
import { addFakeRules, exactTemplate, fakeModel, uniqueModel } from "./helpers";
import { apiAs, createTenant, type TestTenant, waitAs } from "./tenant-helpers";
import { createEndpoint, deliveriesOf, receivedBy, waitForReceived } from "./webhook-helpers";

const QUESTIONS = Array.from({ length: 8 }, (_, i) => ({
  id: `q${i}`,
  question: `[S${i}] What is the capital of France?`,
  template: exactTemplate("Paris"),
}));
const T0 = Date.parse("2026-11-24T21:00:10Z");
const minute = (n: number) => T0 + n * 60_000;

async function tick(at: number, cron = "* * * * *") {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: at, cron }), env, ctx);
  await waitOnExecutionContext(ctx);
}

let t: TestTenant;
let scheduleId: string;
let benchmarkId: string;
let presetId: string;
const MANUAL = [{ id: "m", interface: "manual", manual_answers: Object.fromEntries(QUESTIONS.map((q) => [q.id, "It is Paris."])) }];
let hook: { endpoint_id: string; name: string };
const judge = uniqueModel("sched-judge");

const schedule = async () => (await (await apiAs(t.key, `/v1/schedules/${scheduleId}`)).json()) as any;

beforeAll(async () => {
  t = await createTenant({ name: "schedules" });
  await addFakeRules([
    { match: { model: judge }, reply: { json: { answer: "Paris" } }, times: QUESTIONS.length },
    { match: { model: judge }, reply: { json: { answer: "Lyon" } } },
  ]);
  hook = await createEndpoint(t.key, { event_types: ["run.regression"] });
  const stored = await apiAs(t.key, "/v1/benchmarks", { method: "POST", json: { name: "nightly", questions: QUESTIONS } });
  expect(stored.status).toBe(201);
  benchmarkId = ((await stored.json()) as any).benchmark_id;
  const preset = await apiAs(t.key, "/v1/presets", {
    method: "POST",
    json: {
      name: "judge only",
      config: { answering_models: [{ ...MANUAL[0], id: "from-preset" }], parsing_models: [fakeModel("judge", judge)] },
    },
  });
  expect(preset.status).toBe(201);
  presetId = ((await preset.json()) as any).preset_id;
  const created = await apiAs(t.key, "/v1/schedules", {
    method: "POST",
    json: { name: "nightly", cron: "* * * * *", benchmark_id: benchmarkId, preset_id: presetId, config: { answering_models: MANUAL } },
  });
  expect(created.status).toBe(201);
  const view = (await created.json()) as any;
  expect(view).toMatchObject({ preset_id: presetId, config: { answering_models: MANUAL } });
  scheduleId = view.schedule_id;
});

describe("scheduled runs", () => {
  it("start once per minute, compare with the previous run, and send run.regression on a significant drop", async () => {
    await tick(minute(0));
    await tick(minute(0) + 30_000); // the same minute again: no second run
    let s = await schedule();
    expect(s.recent_runs).toHaveLength(1);
    const first = s.recent_runs[0];
    expect(first).toMatchObject({ minute: "2026-11-24T21:00", skipped: null });
    const firstRun = await waitAs(t.key, first.run_id);
    expect(firstRun.status).toBe("completed");
    // The preset's judge and the schedule's answering model, merged as POST /v1/runs merges them.
    expect(firstRun.summary.map((p: any) => [p.answering_model, p.parsing_model])).toEqual([["m", "judge"]]);

    await tick(minute(1)); // starts run 2; run 1 ended and has no previous run: compared, no regression
    s = await schedule();
    expect(s.recent_runs.map((r: any) => r.minute)).toEqual(["2026-11-24T21:01", "2026-11-24T21:00"]);
    expect(s.recent_runs[1]).toMatchObject({ run_id: first.run_id, compared_with: null, regression: false });
    const second = s.recent_runs[0];
    expect((await waitAs(t.key, second.run_id)).status).toBe("completed");

    // The minute has no match for the hourly retention expression: only the every-minute cron starts runs.
    await tick(minute(2) + 5_000, "17 * * * *");
    expect((await schedule()).recent_runs).toHaveLength(2);

    await tick(minute(3)); // run 3 starts; run 2 is compared with run 1: 8 pass → fail
    s = await schedule();
    const compared = s.recent_runs.find((r: any) => r.run_id === second.run_id);
    expect(compared).toMatchObject({ compared_with: first.run_id, regression: true });
    expect(compared.model_pairs[0]).toMatchObject({ pass_to_fail: 8, fail_to_pass: 0, significant: true });
    expect(compared.model_pairs[0].p_value).toBeCloseTo(2 / 256, 12);

    const got = await waitForReceived(hook.name, (r) => r.length >= 1);
    expect(got).toHaveLength(1);
    expect(got[0]!.verified_by.length).toBeGreaterThan(0); // the receiver verified the signature
    const event = JSON.parse(got[0]!.body);
    expect(event).toMatchObject({
      type: "run.regression",
      data: {
        schedule_id: scheduleId,
        run_id: second.run_id,
        previous_run_id: first.run_id,
        // Absolute, on the origin the schedule was created through: the cron tick has no request.
        links: {
          compare: `http://edgeval.test/v1/runs/compare?a=${first.run_id}&b=${second.run_id}`,
          dashboard: `http://edgeval.test/dashboard/runs/${second.run_id}/compare?a=${first.run_id}`,
        },
      },
    });
    expect(got[0]!.webhook_id).toBe(`msg_regression_${second.run_id}`);

    // Another tick compares run 3 (no regression: it fails as run 2 did) and sends nothing more.
    const third = s.recent_runs[0];
    expect((await waitAs(t.key, third.run_id)).status).toBe("completed");
    await tick(minute(4));
    s = await schedule();
    expect(s.recent_runs.find((r: any) => r.run_id === third.run_id)).toMatchObject({ compared_with: second.run_id, regression: false });
    for (const r of s.recent_runs) await waitAs(t.key, r.run_id); // nothing left running when the file ends
    expect(await deliveriesOf(t.key, hook.endpoint_id)).toHaveLength(1);
    expect(await receivedBy(hook.name)).toHaveLength(1);
  }, 90_000);

  it("refuses a bad cron, an unknown benchmark or preset naming the field, and another tenant sees nothing", async () => {
    const noPreset = await apiAs(t.key, "/v1/schedules", {
      method: "POST",
      json: { name: "x", cron: "0 3 * * *", benchmark_id: benchmarkId, preset_id: "nope" },
    });
    expect(noPreset.status).toBe(400);
    expect(((await noPreset.json()) as any).error.issues[0].path).toBe("preset_id");
    // Without a preset the config is a whole VerificationConfig, checked as a run body's.
    const bareConfig = await apiAs(t.key, "/v1/schedules", {
      method: "POST",
      json: { name: "x", cron: "0 3 * * *", benchmark_id: benchmarkId, config: { answering_models: MANUAL } },
    });
    expect(bareConfig.status).toBe(400);
    expect(((await bareConfig.json()) as any).error.issues.map((i: any) => i.path)).toContain("config.parsing_models");
    const bad = await apiAs(t.key, "/v1/schedules", {
      method: "POST",
      json: { name: "x", cron: "61 * * * *", benchmark_id: "b", config: { answering_models: [], parsing_models: [] } },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.issues.map((i: any) => i.path)).toContain("cron");
    const missing = await apiAs(t.key, "/v1/schedules", {
      method: "POST",
      json: {
        name: "x",
        cron: "0 3 * * *",
        benchmark_id: "nope",
        config: {
          answering_models: [{ id: "m", interface: "manual", manual_answers: { q: "x" } }],
          parsing_models: [fakeModel("j", judge)],
        },
      },
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as any).error.issues[0].path).toBe("benchmark_id");
    const other = await createTenant({ name: "other" });
    expect((await apiAs(other.key, `/v1/schedules/${scheduleId}`)).status).toBe(404);
    expect(((await (await apiAs(other.key, "/v1/schedules")).json()) as any).schedules).toEqual([]);
  });

  it("PATCH of benchmark_id is a 400 saying it cannot be changed (not an unknown field), with the other fields' issues, and writes nothing", async () => {
    const before = await schedule();
    const alone = await apiAs(t.key, `/v1/schedules/${scheduleId}`, { method: "PATCH", json: { benchmark_id: "another" } });
    expect(alone.status).toBe(400);
    expect(((await alone.json()) as any).error.issues).toEqual([
      { path: "benchmark_id", message: expect.stringMatching(/cannot be changed.*create a new schedule/) },
    ]);
    const both = await apiAs(t.key, `/v1/schedules/${scheduleId}`, {
      method: "PATCH",
      json: { benchmark_id: "another", cron: "61 * * * *", name: "renamed" },
    });
    expect(both.status).toBe(400);
    const paths = ((await both.json()) as any).error.issues.map((i: { path: string }) => i.path);
    expect(paths).toEqual(["benchmark_id", expect.stringMatching(/^cron/)]);
    expect(await schedule()).toEqual(before);
  });

  it("PATCH disables a schedule: its minute no longer starts a run; DELETE removes it", async () => {
    const off = await apiAs(t.key, `/v1/schedules/${scheduleId}`, { method: "PATCH", json: { enabled: false } });
    expect(off.status).toBe(200);
    const before = (await schedule()).recent_runs.length;
    await tick(minute(10));
    expect((await schedule()).recent_runs.length).toBe(before);
    expect((await apiAs(t.key, `/v1/schedules/${scheduleId}`, { method: "DELETE" })).status).toBe(200);
    expect((await apiAs(t.key, `/v1/schedules/${scheduleId}`)).status).toBe(404);
  });

  it("a PATCH racing another loses neither: a disable landing between its read and its write stays", async () => {
    const created = await apiAs(t.key, "/v1/schedules", {
      method: "POST",
      json: { name: "race", cron: "0 3 * * *", benchmark_id: benchmarkId, preset_id: presetId, config: { answering_models: MANUAL } },
    });
    const { schedule_id } = (await created.json()) as { schedule_id: string };
    let landed = false;
    // The env's D1, except that another PATCH {enabled: false} lands right before this request writes.
    const db = new Proxy(env.DB, {
      get(target, prop) {
        if (prop === "batch")
          return async (statements: D1PreparedStatement[]) => {
            if (!landed) {
              landed = true;
              await target
                .prepare("UPDATE schedules SET enabled = 0, updated_at = ? WHERE schedule_id = ?")
                .bind(new Date(Date.now() - 1).toISOString(), schedule_id)
                .run();
            }
            return target.batch(statements);
          };
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const res = await buildApp().fetch(
      new Request(`http://edgeval.test/v1/schedules/${schedule_id}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "renamed" }),
      }),
      { ...env, DB: db },
      createExecutionContext(),
    );
    expect(res.status).toBe(200);
    const now = (await (await apiAs(t.key, `/v1/schedules/${schedule_id}`)).json()) as { name: string; enabled: boolean };
    expect(now).toMatchObject({ name: "renamed", enabled: false });
  });

  it("a tick skips a run submitRun refuses and says why: here the schedule's preset was deleted", async () => {
    const preset = await apiAs(t.key, "/v1/presets", {
      method: "POST",
      json: { config: { answering_models: MANUAL, parsing_models: [fakeModel("judge", judge)] } },
    });
    const id = ((await preset.json()) as any).preset_id;
    const created = await apiAs(t.key, "/v1/schedules", {
      method: "POST",
      json: { name: "orphan", cron: "0 22 * * *", benchmark_id: benchmarkId, preset_id: id },
    });
    expect(created.status).toBe(201);
    const orphan = ((await created.json()) as any).schedule_id;
    expect((await apiAs(t.key, `/v1/presets/${id}`, { method: "DELETE" })).status).toBe(200);
    await tick(Date.parse("2026-11-24T22:00:00Z"));
    const s = (await (await apiAs(t.key, `/v1/schedules/${orphan}`)).json()) as any;
    expect(s.recent_runs).toHaveLength(1);
    expect(s.recent_runs[0].run_id).toBeNull();
    expect(s.recent_runs[0].skipped).toMatch(/^invalid_body: preset_id: no preset/);
  });
  it("an ended scheduled run is compared even while more than a tick's worth of older scheduled runs (any tenant's) are still running", async () => {
    // Another tenant's COMPARISONS_PER_TICK scheduled runs, older than ours and still running.
    const busy = Array.from({ length: COMPARISONS_PER_TICK }, (_, i) => ({ run_id: `busy-run-${i}`, minute: `2026-11-20T00:0${i}` }));
    const rows = busy.flatMap((b) => [
      env.DB.prepare(
        "INSERT INTO runs (run_id, tenant_id, benchmark_name, status, total_results, total_jobs, spec_key, created_at) VALUES (?, 'busy-tenant', 'b', 'running', 1, 1, 'k', ?)",
      ).bind(b.run_id, `${b.minute}:00.000Z`),
      env.DB.prepare(
        "INSERT INTO schedule_runs (tenant_id, schedule_id, minute, run_id, created_at) VALUES ('busy-tenant', 'sch_busy', ?, ?, ?)",
      ).bind(b.minute, b.run_id, `${b.minute}:00.000Z`),
    ]);
    await env.DB.batch(rows);
    try {
      const created = await apiAs(t.key, "/v1/schedules", {
        method: "POST",
        json: { name: "late", cron: "0 23 * * *", benchmark_id: benchmarkId, preset_id: presetId, config: { answering_models: MANUAL } },
      });
      expect(created.status).toBe(201);
      const late = ((await created.json()) as any).schedule_id;
      const view = async () => (await (await apiAs(t.key, `/v1/schedules/${late}`)).json()) as any;
      await tick(Date.parse("2026-11-24T23:00:00Z"));
      const run = (await view()).recent_runs[0];
      expect((await waitAs(t.key, run.run_id)).status).toBe("completed");
      await tick(Date.parse("2026-11-24T23:01:00Z"));
      expect((await view()).recent_runs[0]).toMatchObject({ run_id: run.run_id, compared_with: null, regression: false });
      expect((await view()).recent_runs[0].compared_at).not.toBeNull();
    } finally {
      await env.DB.batch([
        env.DB.prepare("DELETE FROM schedule_runs WHERE tenant_id = 'busy-tenant'"),
        env.DB.prepare("DELETE FROM runs WHERE tenant_id = 'busy-tenant'"),
      ]);
    }
  });

  it("compares a run with the schedule's latest run that still exists: one deleted meanwhile is passed over", async () => {
    const own = await createTenant({ name: "schedules-deleted-previous" });
    const ok = uniqueModel("sched-prev-judge");
    await addFakeRules([{ match: { model: ok }, reply: { json: { answer: "Paris" } } }]);
    const stored = await apiAs(own.key, "/v1/benchmarks", { method: "POST", json: { name: "prev", questions: QUESTIONS.slice(0, 2) } });
    const bench = ((await stored.json()) as any).benchmark_id;
    const created = await apiAs(own.key, "/v1/schedules", {
      method: "POST",
      json: {
        name: "prev",
        cron: "30 4 * * *",
        benchmark_id: bench,
        config: { answering_models: MANUAL, parsing_models: [fakeModel("j", ok)] },
      },
    });
    const id = ((await created.json()) as any).schedule_id;
    const view = async () => (await (await apiAs(own.key, `/v1/schedules/${id}`)).json()) as any;
    const day = (n: number) => Date.parse(`2026-11-2${n}T04:30:00Z`);
    const runOf = async (n: number) => (await view()).recent_runs.find((r: any) => r.minute === `2026-11-2${n}T04:30`).run_id as string;
    for (const n of [5, 6, 7]) {
      await tick(day(n));
      await waitAs(own.key, await runOf(n));
    }
    const [first, second, third] = [await runOf(5), await runOf(6), await runOf(7)];
    // The second run is deleted before the third is compared.
    expect((await apiAs(own.key, `/v1/runs/${second}`, { method: "DELETE" })).status).toBe(200);
    await tick(day(8));
    expect((await view()).recent_runs.find((r: any) => r.run_id === third)).toMatchObject({ compared_with: first, regression: false });
    await waitAs(own.key, await runOf(8));
  });
});
