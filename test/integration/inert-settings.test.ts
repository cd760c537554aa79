/**
 * A Karenina option edgeval accepts but does not apply, set by the user, is named in the submit's
 * answer (src/submit/inert-settings.ts): the run still starts, and the choice is not dropped in silence.
 */
import { describe, expect, it } from "vitest";
import { addFakeRules, api, exactTemplate, fakeModel, uniqueModel, waitForRun } from "./helpers";

describe("options accepted but not applied", () => {
  const judge = uniqueModel("inert-judge");
  const body = (config: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
    benchmark: { name: "inert", questions: [{ id: "q", question: "Capital of France?", template: exactTemplate("Paris") }] },
    config: {
      answering_models: [{ id: "m", interface: "manual", manual_answers: { q: "Paris" } }],
      parsing_models: [fakeModel("j", judge)],
      ...config,
    },
    ...extra,
  });

  it("a run setting max_concurrent_requests and task_ordering starts, and its 202 names both; one at the defaults names none", async () => {
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "Paris" } } }]);
    const res = await api("/v1/runs", { method: "POST", json: body({ max_concurrent_requests: 2, task_ordering: "random" }) });
    expect(res.status).toBe(202);
    const submitted = (await res.json()) as { run_id: string; warnings: { path: string; message: string }[] };
    expect(submitted.warnings.map((w) => w.path)).toEqual(["config.max_concurrent_requests", "config.task_ordering"]);
    expect(submitted.warnings[0]!.message).toMatch(/not applied.*limits/);
    expect(await waitForRun(submitted.run_id)).toMatchObject({ status: "completed" });

    const plain = await api("/v1/runs", { method: "POST", json: body() });
    expect(((await plain.json()) as { warnings: unknown[] }).warnings).toEqual([]);
  });

  it("a dry run lists them among its warnings", async () => {
    const res = await api("/v1/runs", { method: "POST", json: body({ async_enabled: false }, { dry_run: true }) });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { warnings: { path: string }[] };
    expect(out.warnings.map((w) => w.path)).toEqual(["config.async_enabled"]);
  });
});
