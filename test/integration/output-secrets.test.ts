import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseKek, seal, secretAad } from "../../src/lib/secret-crypto";
import { CreateRunBody } from "../../src/schemas/api";
import { coordinatorName } from "../../src/storage/r2-keys";
import { upsertSecret } from "../../src/tenants/secrets-repo";
import { addFakeRules, exactTemplate, uniqueModel } from "./helpers";
import { coordinatorDump, d1Dump, forms, r2Dump, runQueuedAs } from "./leak-scan";
import { apiAs, createTenant, type TestTenant } from "./tenant-helpers";

afterEach(() => vi.restoreAllMocks());

/**
 * A run whose models use the tenant's secret ECHO_KEY, the answerer and the judge both echoing
 * `canary` (what the provider received); every place a copy of the output lands is swept for it.
 */
async function echoRunLeaks(t: TestTenant, canary: string) {
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
  const leaks = Object.entries(haystacks).map(([where, text]) => ({ where, leaked: forms(canary).some((f) => text.includes(f)) }));
  return { leaks, results, r2: haystacks.r2 };
}

describe("secrets in model output", () => {
  it("are scrubbed before the answer, the parsed result, the cache or a log keeps them", async () => {
    const canary = `sk-echo-${crypto.randomUUID()}`;
    const t = await createTenant();
    const put = await apiAs(t.key, "/v1/secrets/ECHO_KEY", {
      method: "PUT",
      json: { value: canary, interface: "openai", origins: [env.FAKE_LLM_URL] },
    });
    expect(put.status).toBe(201);
    const { leaks, results, r2 } = await echoRunLeaks(t, canary);
    for (const l of leaks) expect(l).toEqual({ where: l.where, leaked: false });
    // The output was kept, with the key replaced (in the result and in the response cache).
    expect(results).toContain("My API key is [redacted]");
    expect(r2).toContain("[redacted]");
  });

  it("are scrubbed as sent when the stored key ends in a newline (a row stored before PUT refused one)", async () => {
    const canary = `sk-echo-${crypto.randomUUID()}`;
    const t = await createTenant();
    const now = new Date().toISOString();
    const sealed = await seal(parseKek(env.EDGEVAL_SECRETS_KEK), secretAad(t.tenant_id, "ECHO_KEY"), `${canary}\n`);
    await upsertSecret(env.DB, {
      tenant_id: t.tenant_id,
      name: "ECHO_KEY",
      interface: "openai",
      origins_json: [new URL(env.FAKE_LLM_URL).origin],
      limits_json: null,
      ...sealed,
      created_at: now,
      updated_at: now,
    }).run();
    // The provider gets the key with its ends trimmed (a header value is), and echoes that.
    const { leaks, results } = await echoRunLeaks(t, canary);
    for (const l of leaks) expect(l).toEqual({ where: l.where, leaked: false });
    expect(results).toContain("My API key is [redacted]");
  });
});
