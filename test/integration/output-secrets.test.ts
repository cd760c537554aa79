import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CreateRunBody } from "../../src/schemas/api";
import { coordinatorName } from "../../src/storage/r2-keys";
import { addFakeRules, exactTemplate, uniqueModel } from "./helpers";
import { coordinatorDump, d1Dump, forms, r2Dump, runQueuedAs } from "./leak-scan";
import { apiAs, createTenant } from "./tenant-helpers";

afterEach(() => vi.restoreAllMocks());

describe("secrets in model output", () => {
  it("are scrubbed before the answer, the parsed result, the cache or a log keeps them", async () => {
    const canary = `sk-echo-${crypto.randomUUID()}`;
    const t = await createTenant();
    const put = await apiAs(t.key, "/v1/secrets/ECHO_KEY", {
      method: "PUT",
      json: { value: canary, interface: "openai", origins: [env.FAKE_LLM_URL] },
    });
    expect(put.status).toBe(201);
    const answerer = uniqueModel("echo-answerer");
    const judge = uniqueModel("echo-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: `Paris. (My API key is ${canary}.)` } },
      { match: { model: judge }, reply: { json: { answer: `Paris ${canary}` } } },
    ]);
    const model = (id: string, model_name: string) => ({
      id,
      interface: "openai",
      model_name,
      base_url: `${env.FAKE_LLM_URL}/v1`,
      api_key_secret: "ECHO_KEY",
    });
    const body = CreateRunBody.parse({
      benchmark: { name: "echo", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [model("a", answerer)], parsing_models: [model("j", judge)] },
      cache: { enabled: true },
    });
    const logs: string[] = [];
    for (const m of ["log", "warn", "error", "info", "debug"] as const)
      vi.spyOn(console, m).mockImplementation((...a) => void logs.push(a.map(String).join(" ")));

    const { spec, outcome } = await runQueuedAs(t.tenant_id, body);
    expect(outcome.retryMessages).toEqual([]);

    const results = await (await apiAs(t.key, `/v1/runs/${spec.run_id}/results`)).text();
    const haystacks = {
      results,
      d1: await d1Dump(),
      r2: await r2Dump(),
      durable_object: await coordinatorDump(coordinatorName(spec)),
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
