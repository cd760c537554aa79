/**
 * Disabling a tenant (PATCH /v1/admin/tenants/:id {disabled: true}) stops what it was spending:
 * its keys are refused (tenants-keys.test.ts), and a run of it still queued or running is
 * cancelled when its next job is delivered, before any model call, audited as the operator's.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CreateRunBody } from "../../src/schemas/api";
import { ADMIN_TOKEN, apiAs, createTenant, waitAs } from "./tenant-helpers";
import { addFakeRules, exactTemplate, fakeModel, fakeStats, uniqueModel } from "./helpers";
import { runQueuedAs } from "./leak-scan";

/** The run's status once it has ended, read from D1 (the tenant's keys are refused while it is disabled). */
async function endedWhileDisabled(runId: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const row = await env.DB.prepare("SELECT status, finished_at FROM runs WHERE run_id = ?")
      .bind(runId)
      .first<{ status: string; finished_at: string | null }>();
    if (row?.finished_at) return row.status;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`run ${runId} did not end`);
}

describe("a disabled tenant's runs", () => {
  it("are cancelled at their next job, with no model called, and audited as the operator's", async () => {
    const t = await createTenant();
    const answerer = uniqueModel("disabled-answerer");
    const judge = uniqueModel("disabled-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris" } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const body = CreateRunBody.parse({
      benchmark: {
        name: "disabled",
        questions: ["q1", "q2", "q3"].map((id) => ({ id, question: "Capital of France?", template: exactTemplate("Paris") })),
      },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)] },
    });
    const disable = (disabled: boolean) => apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}`, { method: "PATCH", json: { disabled } });
    const { spec, outcome } = await runQueuedAs(t.tenant_id, body, {
      beforeDelivery: async () => expect((await disable(true)).status).toBe(200),
    });
    expect(outcome.retryMessages).toEqual([]);
    // A sharded run's root sends its shards' jobs through the real queue: they arrive a moment later.
    expect(await endedWhileDisabled(spec.run_id)).toBe("cancelled");
    expect((await fakeStats(answerer)).total).toBe(0);
    expect((await fakeStats(judge)).total).toBe(0);

    expect((await disable(false)).status).toBe(200);
    expect((await waitAs(t.key, spec.run_id)).status).toBe("cancelled");
    const audit = (await (await apiAs(t.key, "/v1/audit?limit=10")).json()) as {
      entries: { actor: string; action: string; target: string; detail: Record<string, unknown> }[];
    };
    const cancelled = audit.entries.filter((e) => e.action === "run.cancelled");
    expect(cancelled).toEqual([
      { ...cancelled[0], actor: "operator", target: spec.run_id, detail: expect.objectContaining({ reason: "tenant disabled" }) },
    ]);
  });
});
