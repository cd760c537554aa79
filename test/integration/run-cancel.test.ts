/**
 * POST /v1/runs/:id/cancel (issue 20 item 2): no model call of the run starts later than 1 s after
 * the cancel returned, calls in flight finish and are recorded, unstarted jobs are skipped, the run
 * ends cancelled and its completion webhook fires once.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { addFakeRules, exactTemplate, fakeModel, fakeStats, uniqueModel } from "./helpers";
import { apiAs, createKey, createTenant, submitAs, waitAs } from "./tenant-helpers";
import { createEndpoint, receivedBy, tinyRun, waitForReceived } from "./webhook-helpers";

const L = 500;

async function fakeRequests(model: string): Promise<{ at: number }[]> {
  const res = await fetch(`${env.FAKE_LLM_URL}/_admin/requests?model=${encodeURIComponent(model)}`);
  return ((await res.json()) as { requests: { at: number }[] }).requests;
}

async function allResultsAs(key: string, runId: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const page = (await (await apiAs(key, `/v1/runs/${runId}/results?limit=100${cursor ? `&cursor=${cursor}` : ""}`)).json()) as any;
    out.push(...page.results);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

describe("cancelling a run", () => {
  it("200 jobs at L = 500 ms: most never reach the model, no call starts over 1 s after cancel returned, results kept, one run.cancelled", async () => {
    const t = await createTenant();
    const ep = await createEndpoint(t.key);
    const ans = uniqueModel("cancel-ans");
    const judge = uniqueModel("cancel-judge");
    await addFakeRules([
      { match: { model: ans }, reply: { text: "Paris", latency_ms: L } },
      { match: { model: judge }, reply: { json: { answer: "Paris" }, latency_ms: L } },
    ]);
    const questions = Array.from({ length: 200 }, (_, i) => ({
      id: `q${i}`,
      question: `Capital number ${i}?`,
      template: exactTemplate("Paris"),
    }));
    const runId = await submitAs(t.key, {
      benchmark: { name: "cancel", questions },
      // Six judges per job, one after another: a job running at the cancel would go on calling for up
      // to 3 s more without the gate on each call (the claim alone is not enough).
      config: {
        answering_models: [fakeModel("a", ans)],
        parsing_models: ["j1", "j2", "j3", "j4", "j5", "j6"].map((id) => fakeModel(id, judge)),
        replicate_count: 1,
      },
    });
    const before = await vi.waitUntil(
      async () => {
        const v = (await (await apiAs(t.key, `/v1/runs/${runId}`)).json()) as any;
        return v.progress.done >= 3 ? v : false;
      },
      { timeout: 20_000, interval: 100 },
    );

    const res = await apiAs(t.key, `/v1/runs/${runId}/cancel`, { method: "POST" });
    const cancelReturned = Date.now();
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).status).toBe("cancelled");
    // A second cancel is the same answer, no second effect.
    const again = await apiAs(t.key, `/v1/runs/${runId}/cancel`, { method: "POST" });
    expect(again.status).toBe(200);
    expect(((await again.json()) as any).status).toBe("cancelled");

    const end = await vi.waitUntil(
      async () => {
        const v = (await (await apiAs(t.key, `/v1/runs/${runId}`)).json()) as any;
        return v.finished_at ? v : false;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(end.status).toBe("cancelled");
    // Let any late delivery of a job show itself at the fake before counting.
    await new Promise((r) => setTimeout(r, 1_500));

    const answerCalls = (await fakeStats(ans)).total;
    const judgeCalls = (await fakeStats(judge)).total;
    expect(200 - answerCalls).toBeGreaterThanOrEqual(100);
    const starts = [...(await fakeRequests(ans)), ...(await fakeRequests(judge))].map((r) => r.at);
    expect(starts).toHaveLength(answerCalls + judgeCalls);
    expect(Math.max(...starts) - cancelReturned).toBeLessThanOrEqual(1_000);

    // Earlier results intact; every judge call that was made (in flight at the cancel included) is a recorded result.
    const results = await allResultsAs(t.key, runId);
    expect(results.length).toBeGreaterThanOrEqual(before.progress.done);
    expect(results).toHaveLength(judgeCalls);
    expect(end.progress.done).toBe(results.length);
    expect(results.every((r) => r.template.verify_result === true)).toBe(true);
    const d1 = await env.DB.prepare("SELECT status, finished_at FROM runs WHERE tenant_id = ? AND run_id = ?")
      .bind(t.tenant_id, runId)
      .first<any>();
    expect(d1).toMatchObject({ status: "cancelled", finished_at: end.finished_at });

    const got = await waitForReceived(ep.name, (r) => r.length >= 1);
    await new Promise((r) => setTimeout(r, 500));
    expect((await receivedBy(ep.name)).map((r) => JSON.parse(r.body).type)).toEqual(["run.cancelled"]);
    expect(JSON.parse(got[0]!.body).data).toMatchObject({ run_id: runId, status: "cancelled" });
    const audit = (await (await apiAs(t.key, "/v1/audit")).json()) as { entries: { action: string; target: string }[] };
    expect(audit.entries.filter((e) => e.action === "run.cancelled")).toEqual([expect.objectContaining({ target: runId })]);
  }, 60_000);

  it("a finished run is a 409 naming its status; cancel needs runs:write", async () => {
    const t = await createTenant();
    const judge = uniqueModel("cancel-done");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "x" } } }]);
    const runId = await submitAs(t.key, tinyRun(judge));
    await waitAs(t.key, runId);
    const reader = await createKey(t.key, { scopes: ["runs:read"] });
    const refused = await apiAs(reader.key, `/v1/runs/${runId}/cancel`, { method: "POST" });
    expect(refused.status).toBe(403);
    const res = await apiAs(t.key, `/v1/runs/${runId}/cancel`, { method: "POST" });
    expect(res.status).toBe(409);
    expect(((await res.json()) as any).error).toMatchObject({ code: "run_finished", status: "completed" });
    expect(((await (await apiAs(t.key, `/v1/runs/${runId}`)).json()) as any).status).toBe("completed");
  });
});
