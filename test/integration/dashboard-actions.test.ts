// Issue 25: the dashboard's actions inside workerd. The run page's Cancel button cancels through the
// same path as POST /v1/runs/:id/cancel, only from this origin and only for a key with runs:write.
import { describe, expect, it } from "vitest";
import { addFakeRules, exactTemplate, fakeModel, uniqueModel } from "./helpers";
import { apiAs, createKey, createTenant, submitAs, waitAs } from "./tenant-helpers";
import { dashboardFetch, dashboardSession, ORIGIN } from "./dashboard-helpers";

/** A run whose judge answers after `latencyMs`, so it is still going when the test acts on it. */
async function slowRun(key: string, latencyMs: number): Promise<string> {
  const judge = uniqueModel("dash-cancel");
  await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "x" }, latency_ms: latencyMs } }]);
  const questions = Array.from({ length: 6 }, (_, i) => ({ id: `q${i}`, question: `Q${i}?`, template: exactTemplate("x") }));
  return submitAs(key, {
    benchmark: { name: "dash-cancel", questions },
    config: {
      answering_models: [{ id: "m", interface: "manual", manual_answers: Object.fromEntries(questions.map((q) => [q.id, "x"])) }],
      parsing_models: [fakeModel("j", judge)],
    },
  });
}

const statusOf = async (key: string, runId: string) =>
  ((await (await apiAs(key, `/v1/runs/${runId}`)).json()) as { status: string }).status;

describe("dashboard cancel button", () => {
  it("cancels a running run from the run page's form: Origin checked, runs:write required, then back to the run", async () => {
    const t = await createTenant();
    const reader = await createKey(t.key, { scopes: ["runs:read"] });
    const runId = await slowRun(t.key, 3000);
    const session = await dashboardSession(t.key);
    const readerSession = await dashboardSession(reader.key);
    const cancel = (cookie: string, headers: Record<string, string>) =>
      dashboardFetch(`/dashboard/runs/${runId}/cancel`, { method: "POST", cookie, headers });

    // The button is on the page for a key that may cancel, not for a read-only key.
    expect(await (await dashboardFetch(`/dashboard/runs/${runId}`, { cookie: session })).text()).toContain(
      `action="/dashboard/runs/${runId}/cancel"`,
    );
    expect(await (await dashboardFetch(`/dashboard/runs/${runId}`, { cookie: readerSession })).text()).not.toContain("Cancel run");

    // Refused: no Origin, a foreign Origin, a read-only key. The run goes on.
    expect((await cancel(session, {})).status).toBe(403);
    expect((await cancel(session, { origin: "https://evil.example" })).status).toBe(403);
    expect((await cancel(readerSession, { origin: ORIGIN })).status).toBe(403);
    expect(await statusOf(t.key, runId)).not.toBe("cancelled");

    const res = await cancel(session, { origin: ORIGIN });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/dashboard/runs/${runId}`);
    expect(await statusOf(t.key, runId)).toBe("cancelled");
    // A second press changes nothing and lands on the run again.
    expect((await cancel(session, { origin: ORIGIN })).status).toBe(303);
    const audit = (await (await apiAs(t.key, "/v1/audit?limit=20")).json()) as { entries: { action: string; target: string }[] };
    expect(audit.entries.filter((e) => e.action === "run.cancelled" && e.target === runId)).toHaveLength(1);
    await waitAs(t.key, runId);
    // The ended run's page has no button.
    expect(await (await dashboardFetch(`/dashboard/runs/${runId}`, { cookie: session })).text()).not.toContain("Cancel run");
  });

  it("a run that already ended is a 409 page saying how it ended", async () => {
    const t = await createTenant();
    const runId = await slowRun(t.key, 0);
    await waitAs(t.key, runId);
    const res = await dashboardFetch(`/dashboard/runs/${runId}/cancel`, {
      method: "POST",
      cookie: await dashboardSession(t.key),
      headers: { origin: ORIGIN },
    });
    expect(res.status).toBe(409);
    const page = await res.text();
    expect(page).toContain("Conflict");
    expect(page).toContain("already ended completed");
  });
});

describe("dashboard export buttons on a run still going", () => {
  it("are replaced by a note, and a POST anyway is a 409 page: no header-only file of a run whose results are still landing", async () => {
    const t = await createTenant();
    const runId = await slowRun(t.key, 4000);
    const session = await dashboardSession(t.key);
    const runPage = await (await dashboardFetch(`/dashboard/runs/${runId}`, { cookie: session })).text();
    expect(runPage).not.toContain(`action="/dashboard/runs/${runId}/exports"`);
    expect(runPage).toContain("Export is available once the run has finished");

    const res = await dashboardFetch(`/dashboard/runs/${runId}/exports`, {
      method: "POST",
      cookie: session,
      headers: { origin: ORIGIN },
      body: new URLSearchParams({ format: "csv" }),
    });
    expect(res.status).toBe(409);
    expect(await res.text()).toContain("export it once it has finished");

    await waitAs(t.key, runId);
    expect(await (await dashboardFetch(`/dashboard/runs/${runId}`, { cookie: session })).text()).toContain(
      `action="/dashboard/runs/${runId}/exports"`,
    );
  }, 30_000);
});
