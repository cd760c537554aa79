// Factory rules (which secret, which URL, never throwing) and the shared error helpers, in Node
// with a capturing fetch: no server, no provider.
import { describe, expect, it } from "vitest";
import { httpError, kindForStatus, retryAfterMs, scrub } from "../../../src/llm/errors";
import { createModelPort, missingSecret, NO_KEY_PLACEHOLDER, type ResolvedModel } from "../../../src/llm/factory";

const OPENAI_OK = {
  id: "c1",
  object: "chat.completion",
  created: 0,
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", content: "hi", refusal: null }, finish_reason: "stop", logprobs: null }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
};
const ANTHROPIC_OK = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "m",
  content: [{ type: "text", text: "hi", citations: null }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
};

function capture(body: unknown, status = 200, headers: Record<string, string> = {}) {
  const seen: { url: string; headers: Headers }[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    seen.push({ url: String(input instanceof Request ? input.url : input), headers: new Headers(init?.headers) });
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
  }) as typeof fetch;
  return { seen, fetchImpl };
}

const model = (over: Partial<ResolvedModel>): ResolvedModel => ({ id: "x", interface: "openai", model_name: "m", ...over });
const secrets = (map: Record<string, string>) => (name: string) => map[name];

describe("missingSecret", () => {
  it("names the default or configured secret when it is not set", () => {
    expect(missingSecret(model({ interface: "openai" }), secrets({}))).toBe("OPENAI_API_KEY");
    expect(missingSecret(model({ interface: "anthropic" }), secrets({}))).toBe("ANTHROPIC_API_KEY");
    expect(missingSecret(model({ interface: "anthropic", api_key_secret: "TEAM_KEY" }), secrets({ ANTHROPIC_API_KEY: "k" }))).toBe(
      "TEAM_KEY",
    );
    expect(missingSecret(model({ interface: "openai" }), secrets({ OPENAI_API_KEY: "" }))).toBe("OPENAI_API_KEY");
  });

  it("needs nothing for manual models and key-less compatible servers", () => {
    expect(missingSecret(model({ interface: "manual" }), secrets({}))).toBeNull();
    expect(missingSecret(model({ interface: "openai_compatible" }), secrets({}))).toBeNull();
    expect(missingSecret(model({ interface: "openai_compatible", api_key_secret: "VLLM_KEY" }), secrets({}))).toBe("VLLM_KEY");
    expect(missingSecret(model({ interface: "openai" }), secrets({ OPENAI_API_KEY: "k" }))).toBeNull();
  });
});

describe("createModelPort", () => {
  it("uses base_url exactly as written, and the SDK default without it", async () => {
    const a = capture(OPENAI_OK);
    await createModelPort(model({ base_url: "http://llm.local:8000/custom" }), secrets({ OPENAI_API_KEY: "k1" }), {
      fetch: a.fetchImpl,
    }).chat({ messages: [] });
    expect(a.seen[0]!.url).toBe("http://llm.local:8000/custom/chat/completions");

    const b = capture(OPENAI_OK);
    await createModelPort(model({}), secrets({ OPENAI_API_KEY: "k1" }), { fetch: b.fetchImpl }).chat({ messages: [] });
    expect(b.seen[0]!.url).toBe("https://api.openai.com/v1/chat/completions");

    const c = capture(ANTHROPIC_OK);
    await createModelPort(model({ interface: "anthropic" }), secrets({ ANTHROPIC_API_KEY: "k2" }), { fetch: c.fetchImpl }).chat({
      messages: [],
    });
    expect(c.seen[0]!.url).toBe("https://api.anthropic.com/v1/messages");
    const h = c.seen[0]!.headers;
    expect(`${h.get("x-api-key") ?? ""} ${h.get("authorization") ?? ""}`).toContain("k2");
  });

  it("reads the key named by api_key_secret, and sends a placeholder to key-less compatible servers", async () => {
    const a = capture(OPENAI_OK);
    const p = createModelPort(model({ api_key_secret: "TEAM_KEY" }), secrets({ TEAM_KEY: "team-secret", OPENAI_API_KEY: "other" }), {
      fetch: a.fetchImpl,
    });
    expect((await p.chat({ messages: [] })).ok).toBe(true);
    expect(a.seen[0]!.headers.get("authorization")).toBe("Bearer team-secret");

    const b = capture(OPENAI_OK);
    await createModelPort(model({ interface: "openai_compatible", base_url: "http://vllm:8000/v1" }), secrets({}), {
      fetch: b.fetchImpl,
    }).chat({ messages: [] });
    expect(b.seen[0]!.headers.get("authorization")).toBe(`Bearer ${NO_KEY_PLACEHOLDER}`);
  });

  it("never throws: a missing key gives a port whose calls fail with auth, naming the secret only", async () => {
    const p = createModelPort(model({ interface: "anthropic" }), secrets({}));
    const r = await p.structured({ messages: [], schemaName: "s", jsonSchema: {}, schema: {} as never });
    expect(r).toMatchObject({ ok: false, error: { kind: "auth", message: expect.stringContaining("ANTHROPIC_API_KEY") } });
    expect(p.identity).toMatchObject({ interface: "anthropic", model_name: "m" });
  });

  it("keeps the key out of errors even when the provider echoes it", async () => {
    const key = "sk-very-secret-123456";
    const a = capture({ error: { message: `Incorrect API key provided: ${key}` } }, 401);
    const r = await createModelPort(model({}), secrets({ OPENAI_API_KEY: key }), { fetch: a.fetchImpl }).chat({ messages: [] });
    expect(r.ok).toBe(false);
    expect(JSON.stringify(r)).not.toContain(key);
    expect(r).toMatchObject({ error: { kind: "auth", status: 401 } });
  });

  it("gives manual models a port that answers unsupported to everything", async () => {
    const p = createModelPort(model({ interface: "manual" }), secrets({}));
    for (const r of [
      await p.chat({ messages: [] }),
      await p.embed({ inputs: ["a"] }),
      await p.toolTurn({ messages: [], tools: [] }),
      await p.logprobs({ messages: [], top_logprobs: 1 }),
    ]) {
      expect(r).toMatchObject({ ok: false, error: { kind: "unsupported" } });
    }
  });
});

describe("error helpers", () => {
  it("maps statuses to kinds", () => {
    expect([429, 401, 403, 408, 500, 503, 529, 400, 404, 422].map(kindForStatus)).toEqual([
      "rate_limit",
      "auth",
      "auth",
      "timeout",
      "server_error",
      "server_error",
      "server_error",
      "bad_request",
      "bad_request",
      "bad_request",
    ]);
  });

  it("takes OpenAI's insufficient_quota 429 for what it is: not a rate limit, so never retried", () => {
    const ctx = { secrets: [], now: 0 };
    expect(httpError(429, "You exceeded your current quota", new Headers({ "retry-after": "1" }), ctx, "insufficient_quota")).toMatchObject(
      { kind: "bad_request", status: 429 },
    );
    expect(httpError(429, "slow down", new Headers({ "retry-after": "1" }), ctx, "rate_limit_exceeded")).toMatchObject({
      kind: "rate_limit",
      retryAfterMs: 1000,
    });
  });

  it("reads retry-after-ms, retry-after seconds and retry-after dates", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "1.5" }), now)).toBe(1500);
    expect(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:03 GMT" }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });

  it("scrubs secrets and bounds the length", () => {
    expect(scrub("key abcd1234 leaked", ["abcd1234"])).toBe("key [redacted] leaked");
    expect(scrub("x".repeat(2000), []).length).toBeLessThan(600);
  });
});
