/**
 * Issue 16: `api_key_secret` named any secret. An openai_compatible model at an allowed origin
 * (here the fake, listed in EDGEVAL_KEY_ORIGINS) received the Anthropic key and the Tavily key, and
 * `{interface: "anthropic", api_key_secret: "OPENAI_API_KEY"}` passed validation. The deployment's
 * provider keys are now bound to their interface: such a model is a 400 and nothing is sent.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/app";
import { fakeModel, TOKEN, uniqueModel } from "./helpers";

const keys = { OPENAI_API_KEY: "sk-openai-canary-1234", ANTHROPIC_API_KEY: "sk-ant-canary-5678", TAVILY_API_KEY: "tvly-canary-9012" };

async function judgeWith(model: Record<string, unknown>) {
  const res = await buildApp().fetch(
    new Request("http://edgeval.test/v1/judge", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ input: "q", output: "a", config: { provider: model, type: "likert" } }),
    }),
    { ...env, ...keys },
  );
  return { status: res.status, text: await res.text() };
}

async function credentialsSeen(model: string): Promise<(string | null)[]> {
  const res = await fetch(`${env.FAKE_LLM_URL}/_admin/requests?model=${encodeURIComponent(model)}`);
  return ((await res.json()) as { requests: { credential: string | null }[] }).requests.map((r) => r.credential);
}

describe("deployment keys are bound to their interface", () => {
  it.each([
    ["openai_compatible", "ANTHROPIC_API_KEY"],
    ["openai_compatible", "TAVILY_API_KEY"],
    ["openai_compatible", "OPENAI_API_KEY"],
    ["anthropic", "OPENAI_API_KEY"],
    ["openai", "ANTHROPIC_API_KEY"],
    ["anthropic", "TAVILY_API_KEY"],
  ])("a %s model naming %s is a 400, and the key goes nowhere", async (iface, secret) => {
    const name = uniqueModel("bound-key");
    const { status, text } = await judgeWith(fakeModel("j", name, { interface: iface, api_key_secret: secret }));
    expect(status, text).toBe(400);
    expect(text).toContain(`the deployment secret ${secret} serves`);
    for (const value of Object.values(keys)) expect(text).not.toContain(value);
    expect(await credentialsSeen(name)).toEqual([]);
  });

  it("a key's own interface at an allowed origin still works (the fake, listed in EDGEVAL_KEY_ORIGINS)", async () => {
    const name = uniqueModel("bound-key-ok");
    const { status } = await judgeWith(
      fakeModel("j", name, { interface: "anthropic", base_url: env.FAKE_LLM_URL, api_key_secret: "ANTHROPIC_API_KEY" }),
    );
    expect(status).toBe(200);
    expect(await credentialsSeen(name)).toContain(keys.ANTHROPIC_API_KEY);
  });
});
