/**
 * The key ring decrypts only the secrets what it serves may send (src/tenants/key-ring.ts,
 * secret-names.ts): a tenant's other secrets are never read nor decrypted, so one that is broken
 * (a row damaged, or sealed under a KEK the deployment no longer has) cannot fail or slow a run
 * that does not use it, and a name nobody opened is never served from the deployment instead.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CreateRunBody } from "../../src/schemas/api";
import { tenantKeyRing } from "../../src/tenants/key-ring";
import { getTenant } from "../../src/tenants/tenants-repo";
import { addFakeRules, exactTemplate, uniqueModel } from "./helpers";
import { runQueuedAs } from "./leak-scan";
import { apiAs, createTenant, type TestTenant, waitAs } from "./tenant-helpers";

afterEach(() => vi.restoreAllMocks());

const put = (t: TestTenant, name: string, value: string) =>
  apiAs(t.key, `/v1/secrets/${name}`, { method: "PUT", json: { value, interface: "openai", origins: [env.FAKE_LLM_URL] } });

/** UNUSED_SEALED: its ciphertext no longer decrypts; UNUSED_ROW: its metadata is not JSON any more. */
async function breakTwoSecrets(t: TestTenant) {
  for (const name of ["UNUSED_SEALED", "UNUSED_ROW"]) expect((await put(t, name, `sk-${name}`)).status).toBe(201);
  await env.DB.prepare("UPDATE tenant_secrets SET ciphertext = ? WHERE tenant_id = ? AND name = 'UNUSED_SEALED'")
    .bind(btoa("not what was sealed"), t.tenant_id)
    .run();
  await env.DB.prepare("UPDATE tenant_secrets SET origins_json = 'not json' WHERE tenant_id = ? AND name = 'UNUSED_ROW'")
    .bind(t.tenant_id)
    .run();
}

function captureLogs(): string[] {
  const logs: string[] = [];
  for (const m of ["log", "warn", "error", "info", "debug"] as const)
    vi.spyOn(console, m).mockImplementation((...a) => void logs.push(a.map(String).join(" ")));
  return logs;
}

describe("the key ring", () => {
  it("runs with the secret the run names while the tenant's other secrets are broken, never touching them", async () => {
    const t = await createTenant();
    expect((await put(t, "USED_KEY", "sk-used-key")).status).toBe(201);
    await breakTwoSecrets(t);
    const answerer = uniqueModel("lazy-answerer");
    const judge = uniqueModel("lazy-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris" } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const model = (id: string, model_name: string) => ({
      id,
      interface: "openai",
      model_name,
      base_url: `${env.FAKE_LLM_URL}/v1`,
      api_key_secret: "USED_KEY",
    });
    const body = {
      benchmark: { name: "lazy", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [model("a", answerer)], parsing_models: [model("j", judge)] },
    };
    const logs = captureLogs();
    // Submit (the route's ring) and the queue consumer's ring.
    const res = await apiAs(t.key, "/v1/runs", { method: "POST", json: { ...body, dry_run: true } });
    expect(res.status, await res.clone().text()).toBe(200);
    const { spec, outcome } = await runQueuedAs(t.tenant_id, CreateRunBody.parse(body));
    expect(outcome.retryMessages).toEqual([]);
    const view = await waitAs(t.key, spec.run_id);
    expect(view.status).toBe("completed");
    expect(logs.join("\n")).not.toMatch(/tenant_secret_unreadable|UNUSED_/);
  });

  it("opens a name once, decrypts only the names opened, and refuses to serve a name it was not opened for", async () => {
    const t = await createTenant({ use_deployment_keys: true });
    expect((await put(t, "USED_KEY", "sk-used-key")).status).toBe(201);
    // A tenant secret named as a deployment secret: an unopened ring must not hand out the deployment's.
    expect((await put(t, "FAKE_PROVIDER_KEY", "sk-tenant-own")).status).toBe(201);
    await breakTwoSecrets(t);
    const logs = captureLogs();
    const keys = tenantKeyRing(env, (await getTenant(env.DB, t.tenant_id))!);
    await keys.open(["USED_KEY", "NOT_SET_KEY"]);
    await keys.open(["USED_KEY"]);
    expect(keys.ring.secret("USED_KEY")).toBe("sk-used-key");
    expect(keys.ring.secret("NOT_SET_KEY")).toBeUndefined();
    expect(keys.ring.knownSecrets()).toContain("sk-used-key");
    expect(keys.ring.knownSecrets()).not.toContain("sk-tenant-own");
    expect(() => keys.ring.secret("FAKE_PROVIDER_KEY")).toThrow(/not opened for the secret FAKE_PROVIDER_KEY/);
    await keys.open(["FAKE_PROVIDER_KEY"]);
    expect(keys.ring.secret("FAKE_PROVIDER_KEY")).toBe("sk-tenant-own");
    expect(logs.join("\n")).not.toMatch(/tenant_secret_unreadable/);
    // A broken secret asked for by name is still left out and logged by name only, as before.
    await keys.open(["UNUSED_SEALED"]);
    expect(keys.ring.secret("UNUSED_SEALED")).toBeUndefined();
    expect(logs.join("\n")).toMatch(/tenant_secret_unreadable.*UNUSED_SEALED/);
    expect(logs.join("\n")).not.toContain("sk-UNUSED_SEALED");
  });
});
