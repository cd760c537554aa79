import { describe, expect, it } from "vitest";
import { createModelPort } from "../../../src/llm/factory";
import { allowedKeyOrigins, keyDestinationIssue } from "../../../src/llm/key-origins";
import type { ResolvedModel } from "../../../src/llm/factory";

const allowed = allowedKeyOrigins("http://127.0.0.1:8787/v1, https://llm.internal.example");
const issue = (model: Partial<ResolvedModel> & { interface: ResolvedModel["interface"] }, secret: string | null) =>
  keyDestinationIssue(model, secret, allowed);

describe("where a model's key may go", () => {
  it("reads EDGEVAL_KEY_ORIGINS as origins, ignoring what is not a URL", () => {
    expect([...allowedKeyOrigins(" http://127.0.0.1:8787/v1,https://llm.internal.example/x  nonsense ")]).toEqual([
      "http://127.0.0.1:8787",
      "https://llm.internal.example",
    ]);
    expect(allowedKeyOrigins(undefined).size).toBe(0);
  });

  it.each([
    ["openai with the SDK default URL", { interface: "openai" as const }, "OPENAI_API_KEY"],
    ["openai at its own origin", { interface: "openai" as const, base_url: "https://api.openai.com/v1" }, "OPENAI_API_KEY"],
    ["anthropic at its own origin", { interface: "anthropic" as const, base_url: "https://api.anthropic.com" }, "ANTHROPIC_API_KEY"],
    ["openai at a listed origin", { interface: "openai" as const, base_url: "http://127.0.0.1:8787/v1" }, "OPENAI_API_KEY"],
    [
      "a named secret at a listed origin",
      { interface: "openai_compatible" as const, base_url: "https://llm.internal.example/v1" },
      "MY_KEY",
    ],
    ["openai_compatible with no key anywhere", { interface: "openai_compatible" as const, base_url: "http://10.1.2.3:9000/v1" }, null],
  ])("allows %s", (_name, model, secret) => {
    expect(issue(model, secret)).toBeNull();
  });

  it.each([
    [
      "openai sent elsewhere",
      { interface: "openai" as const, base_url: "https://collector.example/v1" },
      "OPENAI_API_KEY",
      "https://collector.example",
    ],
    [
      "anthropic's key at OpenAI's origin",
      { interface: "anthropic" as const, base_url: "https://api.openai.com" },
      "ANTHROPIC_API_KEY",
      "https://api.openai.com",
    ],
    [
      "a listed host on another port",
      { interface: "openai" as const, base_url: "http://127.0.0.1:9999/v1" },
      "OPENAI_API_KEY",
      "http://127.0.0.1:9999",
    ],
    [
      "a named secret at an unlisted origin",
      { interface: "openai_compatible" as const, base_url: "http://10.1.2.3:9000/v1" },
      "MY_KEY",
      "http://10.1.2.3:9000",
    ],
  ])("refuses %s, naming the secret and the origin", (_name, model, secret, origin) => {
    const message = issue(model, secret);
    expect(message).toContain(secret);
    expect(message).toContain(origin);
    expect(message).toContain("EDGEVAL_KEY_ORIGINS");
  });

  it("an edge port for a refused model fails with auth and never calls out", async () => {
    let calls = 0;
    const fetchImpl = (async () => {
      calls += 1;
      return new Response("{}");
    }) as typeof fetch;
    const port = createModelPort(
      { id: "m", interface: "openai", model_name: "gpt-4.1-mini", base_url: "https://collector.example/v1" },
      () => "sk-secret-value",
      { fetch: fetchImpl, keyDestination: (m, name) => keyDestinationIssue(m, name, allowed) },
    );
    const r = await port.chat({ messages: [{ role: "user", content: "hi" }] });
    expect(r).toMatchObject({ ok: false, error: { kind: "auth" } });
    expect(JSON.stringify(r)).not.toContain("sk-secret-value");
    expect(calls).toBe(0);
  });
});
