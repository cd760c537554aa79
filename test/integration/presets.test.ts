/**
 * Issue 18 item 3: presets. Karenina's preset_full.json (test/fixtures/karenina, identical to
 * ../shared/reference/karenina-data/preset_full.json) is stored as is and used by a run and by a
 * trigger, with answering and parsing overrides pointing at the fake LLM.
 */
import { sign } from "@octokit/webhooks-methods";
import { beforeAll, describe, expect, it } from "vitest";
import presetFull from "../fixtures/karenina/preset_full.json";
import { addFakeRules, exactTemplate, fakeModel, uniqueModel } from "./helpers";
import { apiAs, createTenant, submitAs, type TestTenant, waitAs } from "./tenant-helpers";
import { createTrigger, deliver } from "./trigger-helpers";

describe("presets", () => {
  let t: TestTenant;
  let benchmarkId: string;
  const answerer = uniqueModel("preset-answerer");
  const judge = uniqueModel("preset-judge");
  const overrides = () => ({ answering_models: [fakeModel("fake-answerer", answerer)], parsing_models: [fakeModel("fake-judge", judge)] });

  beforeAll(async () => {
    t = await createTenant({ name: "presets" });
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "The capital is Paris." } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const res = await apiAs(t.key, "/v1/benchmarks", {
      method: "POST",
      json: { name: "one", questions: [{ id: "fr", question: "Capital of France?", template: exactTemplate("Paris") }] },
    });
    benchmarkId = ((await res.json()) as { benchmark_id: string }).benchmark_id;
  });

  it("stores Karenina's preset_full.json as is; reads, lists, replaces and deletes it; refuses an unknown key and a bad config at their paths", async () => {
    const res = await apiAs(t.key, "/v1/presets", { method: "POST", json: presetFull });
    expect(res.status, await res.clone().text()).toBe(201);
    const p = (await res.json()) as { preset_id: string; name: string; config: Record<string, unknown> };
    expect(p.config).toEqual(presetFull.config);
    expect(p.name).toBe(p.preset_id);
    expect(await (await apiAs(t.key, `/v1/presets/${p.preset_id}`)).json()).toMatchObject({
      preset_id: p.preset_id,
      config: presetFull.config,
    });
    const put = await apiAs(t.key, `/v1/presets/${p.preset_id}`, {
      method: "PUT",
      json: { ...presetFull, name: "full", config: { ...presetFull.config, replicate_count: 2 } },
    });
    expect(await put.json()).toMatchObject({ name: "full", config: { replicate_count: 2 } });
    const list = (await (await apiAs(t.key, "/v1/presets")).json()) as { presets: { preset_id: string }[] };
    expect(list.presets.map((x) => x.preset_id)).toContain(p.preset_id);
    const bad = await apiAs(t.key, "/v1/presets", {
      method: "POST",
      json: { config: { ...presetFull.config, replicate_count: 0 }, extra: 1 },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.issues.map((i: { path: string }) => i.path)).toEqual(["extra"]);
    const badConfig = await apiAs(t.key, "/v1/presets", { method: "POST", json: { config: { ...presetFull.config, replicate_count: 0 } } });
    expect(((await badConfig.json()) as any).error.issues.map((i: { path: string }) => i.path)).toEqual(["config.replicate_count"]);
    expect((await apiAs(t.key, `/v1/presets/${p.preset_id}`, { method: "DELETE" })).status).toBe(200);
    expect((await apiAs(t.key, `/v1/presets/${p.preset_id}`)).status).toBe(404);
  });

  it("a run names the preset with overrides pointing at the fake; without the overrides the preset's own models are planned (and refused for want of a key)", async () => {
    const p = (await (await apiAs(t.key, "/v1/presets", { method: "POST", json: presetFull })).json()) as { preset_id: string };
    const runId = await submitAs(t.key, { benchmark_id: benchmarkId, preset_id: p.preset_id, config: overrides() });
    const done = await waitAs(t.key, runId);
    expect(done.status).toBe("completed");
    expect(done.summary).toEqual([expect.objectContaining({ answering_model: "fake-answerer", parsing_model: "fake-judge", passed: 1 })]);
    const bare = await apiAs(t.key, "/v1/runs", { method: "POST", json: { benchmark_id: benchmarkId, preset_id: p.preset_id } });
    expect(bare.status).toBe(400);
    expect(JSON.stringify(await bare.json())).toContain("config.answering_models[0]");
    const unknown = await apiAs(t.key, "/v1/runs", { method: "POST", json: { benchmark_id: benchmarkId, preset_id: "pre_nope" } });
    expect(((await unknown.json()) as any).error.issues).toEqual([expect.objectContaining({ path: "preset_id" })]);
  });

  it("a trigger names preset_full.json with answering and parsing overrides at the fake: a signed delivery runs it", async () => {
    const p = (await (await apiAs(t.key, "/v1/presets", { method: "POST", json: presetFull })).json()) as { preset_id: string };
    const trig = await createTrigger(t.key, {
      name: "preset",
      benchmark_id: benchmarkId,
      preset_id: p.preset_id,
      config: overrides(),
      signing: { scheme: "github" },
    });
    const body = JSON.stringify({ ref: "refs/heads/main" });
    const got = await deliver(trig.trigger_id, body, {
      "x-hub-signature-256": await sign(trig.secret, body),
      "x-github-event": "push",
      "x-github-delivery": crypto.randomUUID(),
    });
    expect(got.res.status).toBe(202);
    const done = await waitAs(t.key, ((await got.res.json()) as { run_id: string }).run_id);
    expect(done.status).toBe("completed");
    expect(done.summary).toEqual([expect.objectContaining({ answering_model: "fake-answerer", parsing_model: "fake-judge", passed: 1 })]);
    const unknown = await apiAs(t.key, "/v1/triggers", {
      method: "POST",
      json: { name: "x", benchmark_id: benchmarkId, preset_id: "pre_nope", signing: { scheme: "github" } },
    });
    expect(((await unknown.json()) as any).error.issues).toEqual([expect.objectContaining({ path: "preset_id" })]);
  });
});
