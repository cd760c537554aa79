// GET /v1/runs/:id keeps a live run's D1 row in the isolate between polls (src/http/live-run-rows.ts).
// The row's fields are edited in D1 behind the isolate's back, as in auth-cache.test.ts: while the
// run is live the kept row answers; the first poll that finds it finished reads the row again,
// with the children a re-score gives it from then on.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_TENANT } from "../../src/storage/r2-keys";
import { deleteRun } from "../../src/storage/delete-run";
import { getRun, insertRun } from "../../src/storage/runs-repo";
import { addFakeRules, api, exactTemplate, fakeModel, submitRun, uniqueModel, waitForRun } from "./helpers";
import { apiAs, createTenant } from "./tenant-helpers";

const LIVE = ["queued", "running"];

describe("a live run's row between polls", () => {
  it("answers from the kept row while the run is live, and from D1 once it has finished", async () => {
    const runId = await submitSlowRun({ run_name: "as submitted" });
    const first = (await (await api(`/v1/runs/${runId}`)).json()) as { status: string; run_name: string };
    expect(LIVE).toContain(first.status);
    expect(first.run_name).toBe("as submitted");

    await env.DB.prepare("UPDATE runs SET run_name = ? WHERE tenant_id = ? AND run_id = ?")
      .bind("edited in D1", DEFAULT_TENANT, runId)
      .run();
    const kept = (await (await api(`/v1/runs/${runId}`)).json()) as { status: string; run_name: string };
    expect(LIVE).toContain(kept.status);
    expect(kept.run_name).toBe("as submitted");
    // Another tenant's key never reaches the kept row.
    const other = await createTenant();
    expect((await apiAs(other.key, `/v1/runs/${runId}`)).status).toBe(404);

    const done = (await waitForRun(runId, ["completed"], 30_000)) as unknown as { run_name: string };
    expect(done.run_name).toBe("edited in D1");
    // A finished run's row is read on every poll: a child added now is listed.
    const child = `${runId}-child`;
    await insertRun(env.DB, {
      run_id: child,
      tenant_id: DEFAULT_TENANT,
      coordinator_name: child,
      run_name: null,
      benchmark_name: "live-rows",
      status: "completed",
      total_results: 1,
      total_jobs: 1,
      spec_key: `specs/${child}.json`,
      created_at: new Date().toISOString(),
      finished_at: null,
      parent_run_id: runId,
    }).run();
    const after = (await (await api(`/v1/runs/${runId}`)).json()) as { lineage: { children: string[] } };
    expect(after.lineage.children).toEqual([child]);
  });

  it("answers 404 for a kept run deleted since: the missing snapshot falls through to D1", async () => {
    const runId = await submitSlowRun({});
    expect(LIVE).toContain(((await (await api(`/v1/runs/${runId}`)).json()) as { status: string }).status);
    // Another isolate sees the run finish and deletes it (its row and its coordinator's state), behind this isolate's back.
    const row = (await getRun(env.DB, DEFAULT_TENANT, runId))!;
    await waitForRunEnd(row.coordinator_name ?? runId);
    await deleteRun(env, row, new Date().toISOString());
    const res = await api(`/v1/runs/${runId}`);
    expect(res.status).toBe(404);
  });
});

/** A one-question run whose answer takes 1.5 s: still live for the polls a test makes right after submitting it. */
async function submitSlowRun(extra: Record<string, unknown>): Promise<string> {
  const [answerer, judge] = [uniqueModel("lr-ans"), uniqueModel("lr-judge")];
  await addFakeRules([
    { match: { model: answerer }, reply: { text: "ANSWER<TP53>", latency_ms: 1500 } },
    { match: { model: judge }, reply: { json: { answer: "TP53" } } },
  ]);
  return submitRun({
    ...extra,
    benchmark: { name: "live-rows", questions: [{ id: "q1", question: "Which gene encodes p53?", template: exactTemplate("TP53") }] },
    config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)] },
  });
}

/** Waits for the run's end without GET /v1/runs/:id (which would drop the kept row): the coordinator's own status. */
async function waitForRunEnd(coordinator: string): Promise<void> {
  const stub = env.RUNS.getByName(coordinator);
  for (let i = 0; i < 300; i++) {
    const snap = await stub.snapshot({ offset: 0, limit: 0 });
    if (snap && !LIVE.includes(snap.status)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${coordinator} did not end`);
}
