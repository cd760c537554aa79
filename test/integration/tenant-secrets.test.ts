/**
 * Provider keys per tenant (issue 14 item 3): a canary key set with PUT /v1/secrets reaches the
 * fake provider (so it was used) and appears nowhere else — nor its base64 or hex forms — in D1,
 * R2, queue messages, the run's Durable Object storage or the worker's log output of a full run.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/http/app";
import { CreateRunBody } from "../../src/schemas/api";
import { coordinatorName } from "../../src/storage/r2-keys";
import { addFakeRules, api, exactTemplate, uniqueModel } from "./helpers";
import { coordinatorDump, d1Dump, forms, r2Dump, runQueuedAs } from "./leak-scan";
import { apiAs, createTenant } from "./tenant-helpers";

async function fakeRequests(model: string): Promise<{ credential: string | null }[]> {
  const res = await fetch(`${env.FAKE_LLM_URL}/_admin/requests?model=${encodeURIComponent(model)}`);
  return ((await res.json()) as { requests: { credential: string | null }[] }).requests;
}

const openaiAtFake = (id: string, model_name: string, secret: string) => ({
  id,
  interface: "openai",
  model_name,
  base_url: `${env.FAKE_LLM_URL}/v1`,
  api_key_secret: secret,
});

afterEach(() => vi.restoreAllMocks());

describe("tenant secrets", () => {
  it("stores a key sealed, lists metadata only, and sends it to the provider without leaking it anywhere", async () => {
    const canary = `sk-canary-${crypto.randomUUID()}`;
    const t = await createTenant();
    const put = await apiAs(t.key, "/v1/secrets/ACME_OPENAI_KEY", {
      method: "PUT",
      json: { value: canary, interface: "openai", origins: [env.FAKE_LLM_URL], limits: { rpm: 600 } },
    });
    expect(put.status).toBe(201);
    const listed = await (await apiAs(t.key, "/v1/secrets")).text();
    expect(JSON.parse(listed).secrets).toEqual([
      expect.objectContaining({
        name: "ACME_OPENAI_KEY",
        interface: "openai",
        origins: [new URL(env.FAKE_LLM_URL).origin],
        kek_version: 1,
      }),
    ]);

    const logs: string[] = [];
    for (const m of ["log", "warn", "error", "info", "debug"] as const)
      vi.spyOn(console, m).mockImplementation((...a) => void logs.push(a.map(String).join(" ")));

    const answerer = uniqueModel("secret-answerer");
    const judge = uniqueModel("secret-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris" } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const body = CreateRunBody.parse({
      benchmark: { name: "secrets", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: {
        answering_models: [openaiAtFake("a", answerer, "ACME_OPENAI_KEY")],
        parsing_models: [openaiAtFake("j", judge, "ACME_OPENAI_KEY")],
        replicate_count: 2,
      },
    });
    const { spec, sent, outcome } = await runQueuedAs(t.tenant_id, body);
    expect(outcome.retryMessages).toEqual([]);
    const view = (await (await apiAs(t.key, `/v1/runs/${spec.run_id}`)).json()) as any;
    expect(view.status).toBe("completed");
    expect(view.summary[0]).toMatchObject({ total: 2, passed: 2 });

    // It was used: every call reached the provider with the tenant's key.
    const calls = [...(await fakeRequests(answerer)), ...(await fakeRequests(judge))];
    expect(calls).toHaveLength(4);
    expect(calls.every((c) => c.credential === canary)).toBe(true);

    // And it is nowhere else.
    const coordinatorTables = await coordinatorDump(coordinatorName(spec));
    expect(coordinatorTables).toContain(spec.run_id);
    const haystacks = {
      d1: await d1Dump(),
      r2: await r2Dump(),
      queue: JSON.stringify(sent),
      durable_object: coordinatorTables,
      logs: logs.join("\n"),
      listing: listed,
    };
    expect(haystacks.d1).toContain("ACME_OPENAI_KEY");
    for (const [where, text] of Object.entries(haystacks)) {
      for (const form of forms(canary)) expect({ where, leaked: text.includes(form) }).toEqual({ where, leaked: false });
    }
    // D1 holds only hashes of API keys: the secret part of the tenant's key is in no table.
    expect(haystacks.d1).not.toContain(t.key.split("_")[2]);
  });

  it("binds a key to its interface and registered origins, and lets a tenant use deployment keys only if allowed", async () => {
    const t = await createTenant();
    await apiAs(t.key, "/v1/secrets/BOUND_KEY", {
      method: "PUT",
      json: { value: "sk-bound", interface: "openai", origins: [env.FAKE_LLM_URL] },
    });
    const submit = (key: string, model: Record<string, unknown>) =>
      apiAs(key, "/v1/runs", {
        method: "POST",
        json: {
          benchmark: { name: "b", questions: [{ id: "q", question: "?", template: exactTemplate("x") }] },
          config: { answering_models: [model], parsing_models: [model] },
          dry_run: true,
        },
      });
    // A dry run never refuses for a missing secret (issue 15 item 2): it names it in `warnings`.
    const unset = async (res: Response) => {
      expect(res.status).toBe(200);
      return ((await res.json()) as { warnings: { message: string }[] }).warnings.map((w) => w.message).join("\n");
    };
    expect(await unset(await submit(t.key, openaiAtFake("m", "gpt-x", "BOUND_KEY")))).toBe("");
    const elsewhere = await submit(t.key, { ...openaiAtFake("m", "gpt-x", "BOUND_KEY"), base_url: "https://collector.example/v1" });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toMatch(/BOUND_KEY to https:\/\/collector\.example/);
    const otherInterface = await submit(t.key, {
      id: "m",
      interface: "anthropic",
      model_name: "c",
      base_url: env.FAKE_LLM_URL,
      api_key_secret: "BOUND_KEY",
    });
    expect(otherInterface.status).toBe(400);
    expect(await otherInterface.text()).toMatch(/registered for interface openai/);

    // FAKE_PROVIDER_KEY is a deployment secret: tenant default may use it, a new tenant may not.
    const deploymentKeyModel = {
      id: "m",
      interface: "openai_compatible",
      model_name: "x",
      base_url: `${env.FAKE_LLM_URL}/v1`,
      api_key_secret: "FAKE_PROVIDER_KEY",
    };
    expect(await unset(await submit("test-token", deploymentKeyModel))).toBe("");
    expect(await unset(await submit(t.key, deploymentKeyModel))).toMatch(/needs the secret FAKE_PROVIDER_KEY, which is not set/);
    await api(`/v1/admin/tenants/${t.tenant_id}`, {
      method: "PATCH",
      json: { use_deployment_keys: true },
      headers: { authorization: "Bearer test-admin-token" },
    });
    expect(await unset(await submit(t.key, deploymentKeyModel))).toBe("");

    // Another tenant does not see the secret, and cannot delete it.
    const other = await createTenant();
    expect((await (await apiAs(other.key, "/v1/secrets")).json()) as any).toEqual({ secrets: [], next_cursor: null });
    expect((await apiAs(other.key, "/v1/secrets/BOUND_KEY", { method: "DELETE" })).status).toBe(404);
    expect(await unset(await submit(other.key, openaiAtFake("m", "gpt-x", "BOUND_KEY")))).toMatch(
      /needs the secret BOUND_KEY, which is not set/,
    );
    expect((await apiAs(t.key, "/v1/secrets/BOUND_KEY", { method: "DELETE" })).status).toBe(200);
    expect(await unset(await submit(t.key, openaiAtFake("m", "gpt-x", "BOUND_KEY")))).toMatch(
      /needs the secret BOUND_KEY, which is not set/,
    );
  });

  it("refuses reserved names and, outside local mode, http origins", async () => {
    const t = await createTenant();
    expect(
      (await apiAs(t.key, "/v1/secrets/EDGEVAL_ADMIN_TOKEN", { method: "PUT", json: { value: "x", interface: "openai" } })).status,
    ).toBe(400);
    expect((await apiAs(t.key, "/v1/secrets/lower", { method: "PUT", json: { value: "x", interface: "openai" } })).status).toBe(400);
    const put = (vars: Record<string, unknown>) =>
      buildApp().fetch(
        new Request("http://edgeval.test/v1/secrets/HTTP_KEY", {
          method: "PUT",
          headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
          body: JSON.stringify({ value: "x", interface: "openai_compatible", origins: ["http://10.0.0.7:8000"] }),
        }),
        { ...env, ...vars },
        createExecutionContext(),
      );
    const production = await put({ EDGEVAL_ENV: undefined });
    expect(production.status).toBe(400);
    expect(((await production.json()) as any).error.issues[0].path).toBe("origins[0]");
    expect((await put({})).status).toBe(201);
  });

  it("refuses an origin with a path, query, fragment or user name (it would not restrict the key), naming it, storing nothing", async () => {
    const t = await createTenant();
    const put = (origins: string[]) =>
      apiAs(t.key, "/v1/secrets/PATH_KEY", { method: "PUT", json: { value: "sk-path-key", interface: "openai_compatible", origins } });
    for (const sent of [
      "https://api.example.com/v1",
      "https://api.example.com/?tenant=a",
      "https://api.example.com#v1",
      "https://user@api.example.com",
    ]) {
      const res = await put(["https://ok.example.com", sent]);
      expect(res.status, sent).toBe(400);
      const { error } = (await res.json()) as { error: { code: string; issues: { path: string; message: string }[] } };
      expect(error.code).toBe("invalid_body");
      expect(error.issues.map((i) => i.path)).toEqual(["origins[1]"]);
      expect(error.issues[0]!.message).toContain(`send ${new URL(sent).origin}`);
    }
    expect(await (await apiAs(t.key, "/v1/secrets")).json()).toEqual({ secrets: [], next_cursor: null });
    // The bare origin, with or without its root slash, is what a secret takes.
    const ok = await put(["https://api.example.com/", "https://other.example.com:8443"]);
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { origins: string[] }).origins).toEqual(["https://api.example.com", "https://other.example.com:8443"]);
  });

  it("refuses a value with a space or line break at an end, or a character no key has, and stores nothing", async () => {
    const t = await createTenant();
    const key = `sk-${crypto.randomUUID()}`;
    const edges = "value starts or ends with a space or line break (read from a file?); send the key without it";
    const inside =
      "value may hold only printable ASCII characters, as keys do: a line break or control character inside it makes it unusable";
    const cases: [string, string][] = [
      [`${key}\n`, edges],
      [` ${key}`, edges],
      [`${key}\r\n${key}`, inside],
      [`${key}é`, inside],
    ];
    for (const [value, message] of cases) {
      const res = await apiAs(t.key, "/v1/secrets/PASTED_KEY", { method: "PUT", json: { value, interface: "openai" } });
      expect(res.status, JSON.stringify(value)).toBe(400);
      const { error } = (await res.json()) as { error: { issues: { path: string; message: string }[] } };
      expect(error.issues).toEqual([
        { path: "value", message: `${message} (got ${value.length} characters, not shown: this field may hold a key)` },
      ]);
    }
    expect(await (await apiAs(t.key, "/v1/secrets")).json()).toEqual({ secrets: [], next_cursor: null });
    expect((await apiAs(t.key, "/v1/secrets/PASTED_KEY", { method: "PUT", json: { value: key, interface: "openai" } })).status).toBe(201);
  });

  it("refuses an mcp token it could never send (no origins) or with limits it would not apply, storing nothing", async () => {
    const t = await createTenant();
    const put = (json: unknown) => apiAs(t.key, "/v1/secrets/MCP_TOKEN", { method: "PUT", json });
    const issues = async (res: Response) => ({ status: res.status, issues: ((await res.json()) as any).error?.issues });
    expect(await issues(await put({ value: "tok-abcdefgh", interface: "mcp" }))).toEqual({
      status: 400,
      issues: [
        {
          path: "origins",
          message: "an mcp token is sent only to MCP servers at its origins: list them (e.g. https://mcp.example.com)",
        },
      ],
    });
    expect(
      await issues(await put({ value: "tok-abcdefgh", interface: "mcp", origins: ["https://mcp.example.com"], limits: { rpm: 5 } })),
    ).toEqual({
      status: 400,
      issues: [{ path: "limits", message: "limits pace a provider key's model calls; an mcp token has none, so remove them" }],
    });
    expect(await (await apiAs(t.key, "/v1/secrets")).json()).toEqual({ secrets: [], next_cursor: null });
    expect((await put({ value: "tok-abcdefgh", interface: "mcp", origins: ["https://mcp.example.com"] })).status).toBe(201);
  });

  it("audits setting a secret as a first set or a replacement (a rotation), with its limits; never its value", async () => {
    const t = await createTenant();
    const put = (json: unknown) => apiAs(t.key, "/v1/secrets/AUDITED_KEY", { method: "PUT", json });
    expect((await put({ value: "sk-first-value", interface: "openai" })).status).toBe(201);
    expect((await put({ value: "sk-second-value", interface: "openai", limits: { rpm: 5 } })).status).toBe(200);
    const { entries } = (await (await apiAs(t.key, "/v1/audit?limit=2")).json()) as any;
    expect(entries.map((e: any) => [e.action, e.target, e.detail])).toEqual([
      ["secret.set", "AUDITED_KEY", { interface: "openai", origins: [], limits: { rpm: 5 }, replaced: true }],
      ["secret.set", "AUDITED_KEY", { interface: "openai", origins: [], limits: null, replaced: false }],
    ]);
    expect(JSON.stringify(entries)).not.toMatch(/sk-(first|second)-value/);
  });

  it("never quotes a key in a 400: a secret's value, or a key sent where a config names a secret", async () => {
    const t = await createTenant();
    const key = (n: number) => `sk-proj-${n}${crypto.randomUUID().replaceAll("-", "")}`;
    const [long, asName, inline, anthropic, mcp] = [`${key(0)}${"x".repeat(9000)}`, key(1), key(2), key(3), key(4)];
    const refusals = [
      await apiAs(t.key, "/v1/secrets/LONG_KEY", { method: "PUT", json: { value: long, interface: "openai" } }),
      await apiAs(t.key, "/v1/runs", {
        method: "POST",
        json: {
          dry_run: true,
          benchmark: { name: "b", questions: [{ id: "q", question: "Capital of France?", template: exactTemplate("Paris") }] },
          config: {
            answering_models: [{ id: "a", interface: "openai", model_name: "m", api_key_secret: asName, endpoint_api_key: inline }],
            parsing_models: [
              { id: "j", interface: "anthropic", model_name: "m", anthropic_api_key: anthropic, mcp_auth_secrets: { srv: mcp } },
            ],
          },
        },
      }),
    ];
    const [secret, run] = await Promise.all(refusals.map(async (r) => ({ status: r.status, text: await r.text() })));
    expect(secret!.status).toBe(400);
    expect(JSON.parse(secret!.text).error.issues).toEqual([
      { path: "value", message: "value must be at most 8,192 characters (got 9041 characters, not shown: this field may hold a key)" },
    ]);
    expect(run!.status).toBe(400);
    const paths = JSON.parse(run!.text).error.issues.map((i: { path: string }) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "config.answering_models[0].api_key_secret",
        "config.answering_models[0].endpoint_api_key",
        "config.parsing_models[0].anthropic_api_key",
        "config.parsing_models[0].mcp_auth_secrets.srv",
      ]),
    );
    // Not the key, nor the first part of it that a message cut to length would show.
    for (const k of [long, asName, inline, anthropic, mcp]) {
      expect(secret!.text + run!.text).not.toContain(k.slice(0, 16));
    }
  });
});
