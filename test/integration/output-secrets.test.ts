/**
 * Issue 16 item 8: a server at an allowed origin that echoes the key it was sent into its output.
 * Before, scrubbing covered errors only, and the key was stored in the result, the coordinator's
 * tables and the R2 result and response cache. Now model output is scrubbed on the adapter
 * (src/llm/scrubbing.ts): the key reaches the provider, and appears in no result, D1 row, R2
 * object, Durable Object table or log line.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { planRun } from "../../src/submit/plan";
import { startRun } from "../../src/submit/submit";
import { CreateRunBody } from "../../src/schemas/api";
import { coordinatorName } from "../../src/storage/r2-keys";
import { loadKeyRing } from "../../src/tenants/key-ring";
import { getTenant } from "../../src/tenants/tenants-repo";
import { addFakeRules, exactTemplate, uniqueModel } from "./helpers";
import { coordinatorDump, d1Dump, forms, r2Dump } from "./leak-scan";
import { apiAs, createTenant } from "./tenant-helpers";

afterEach(() => vi.restoreAllMocks());

describe("secrets in model output", () => {
  it("are scrubbed before the answer, the parsed result, the cache or a log keeps them", async () => {
    const canary = `sk-echo-${crypto.randomUUID()}`;
    const t = await createTenant();
    const put = await apiAs(t.key, "/v1/secrets/ECHO_KEY", { method: "PUT", json: { value: canary, interface: "openai", origins: [env.FAKE_LLM_URL] } });
    expect(put.status).toBe(201);
    const answerer = uniqueModel("echo-answerer");
    const judge = uniqueModel("echo-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: `Paris. (My API key is ${canary}.)` } },
      { match: { model: judge }, reply: { json: { answer: `Paris ${canary}` } } },
    ]);
    const model = (id: string, model_name: string) => ({ id, interface: "openai", model_name, base_url: `${env.FAKE_LLM_URL}/v1`, api_key_secret: "ECHO_KEY" });
    const body = CreateRunBody.parse({
      benchmark: { name: "echo", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [model("a", answerer)], parsing_models: [model("j", judge)] },
      cache: { enabled: true },
    });
    const logs: string[] = [];
    for (const m of ["log", "warn", "error", "info", "debug"] as const) vi.spyOn(console, m).mockImplementation((...a) => void logs.push(a.map(String).join(" ")));

    const tenant = (await getTenant(env.DB, t.tenant_id))!;
    const plan = planRun(body, { run_id: crypto.randomUUID(), tenant_id: t.tenant_id, created_at: new Date().toISOString() }, await loadKeyRing(env, tenant));
    if (!plan.ok) throw new Error(JSON.stringify(plan.issues));
    const sent: { body: unknown }[] = [];
    await startRun({ ...env, JOBS: { sendBatch: async (m: { body: unknown }[]) => void sent.push(...m) } as unknown as Queue<unknown> }, plan.spec, plan.jobIds);
    const batch = createMessageBatch("edgeval-jobs", sent.map((m, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body: m.body })));
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).retryMessages).toEqual([]);

    const results = await (await apiAs(t.key, `/v1/runs/${plan.spec.run_id}/results`)).text();
    const haystacks = {
      results,
      d1: await d1Dump(),
      r2: await r2Dump(),
      durable_object: await coordinatorDump(coordinatorName(plan.spec)),
      logs: logs.join("\n"),
    };
    for (const [where, text] of Object.entries(haystacks)) {
      for (const form of forms(canary)) expect({ where, leaked: text.includes(form) }).toEqual({ where, leaked: false });
    }
    // The output was kept, with the key replaced (in the result and in the response cache).
    expect(results).toContain("My API key is [redacted]");
    expect(haystacks.r2).toContain("[redacted]");
  });
});
