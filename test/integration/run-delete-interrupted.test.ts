/**
 * A DELETE /v1/runs/:id that fails half-way (here: the D1 batch deleting the run's rows, after its
 * R2 objects and coordinator state are gone) leaves a run that every read answers with a 410
 * `run_deleting` saying to repeat the DELETE, never a 500; the repeat finishes the deletion once,
 * with one audit entry, and the month's usage is what it was. Before, GET /v1/runs/:id answered
 * 500 "run state is missing" until the DELETE was repeated.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/app";
import { addFakeRules, exactTemplate, fakeModel, uniqueModel } from "./helpers";
import { apiAs, createTenant, runAs } from "./tenant-helpers";

/** The env's D1, except that the batch deleting a run's row fails (as a D1 write can). */
function failingRunDelete(db: D1Database): D1Database {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => target.prepare(sql.replace(/^DELETE FROM runs\b/, "DELETE FROM runs_unavailable"));
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function deleteWithD1Failing(key: string, runId: string): Promise<number> {
  const res = await buildApp().fetch(
    new Request(`http://edgeval.test/v1/runs/${runId}`, { method: "DELETE", headers: { authorization: `Bearer ${key}` } }),
    { ...env, DB: failingRunDelete(env.DB) },
    createExecutionContext(),
  );
  return res.status;
}

describe("a run DELETE that failed half-way", () => {
  it("answers every read of the run with 410 run_deleting until the DELETE is repeated, which finishes it once", async () => {
    const t = await createTenant();
    const judge = uniqueModel("delete-interrupted");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "Paris" } } }]);
    const view = await runAs(t.key, {
      benchmark: { name: "del", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: {
        answering_models: [{ id: "m", interface: "manual", manual_answers: { q1: "Paris" } }],
        parsing_models: [fakeModel("j", judge)],
      },
    });
    const id = view.run_id as string;
    const { results } = (await (await apiAs(t.key, `/v1/runs/${id}/results`)).json()) as { results: { result_id: string }[] };
    const usageBefore = await (await apiAs(t.key, "/v1/usage")).json();

    expect(await deleteWithD1Failing(t.key, id)).toBe(500);

    for (const path of [
      `/v1/runs/${id}`,
      `/v1/runs/${id}/summary`,
      `/v1/runs/${id}/summary?group_by=question`,
      `/v1/runs/${id}/results`,
      `/v1/runs/${id}/results/${results[0]!.result_id}`,
      `/v1/runs/${id}/events`,
      `/v1/runs/${id}/export?format=ndjson`,
    ]) {
      const res = await apiAs(t.key, path);
      expect(res.status, path).toBe(410);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code, path).toBe("run_deleting");
      expect(body.error.message, path).toContain(`DELETE /v1/runs/${id}`);
    }
    const cancel = await apiAs(t.key, `/v1/runs/${id}/cancel`, { method: "POST" });
    expect(cancel.status).toBe(410);

    const again = await apiAs(t.key, `/v1/runs/${id}`, { method: "DELETE" });
    expect(again.status).toBe(200);
    expect((await apiAs(t.key, `/v1/runs/${id}`)).status).toBe(404);
    expect((await apiAs(t.key, `/v1/runs/${id}`, { method: "DELETE" })).status).toBe(404);
    const { entries } = (await (await apiAs(t.key, "/v1/audit?limit=100")).json()) as { entries: { action: string; target: string }[] };
    expect(entries.filter((e) => e.action === "run.deleted" && e.target === id)).toHaveLength(1);
    expect(await (await apiAs(t.key, "/v1/usage")).json()).toEqual(usageBefore);
  });
});
