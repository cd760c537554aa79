// The official `openai` SDK as the oracle for src/llm/openai-wire.ts. The adapter left the SDK for
// a plain fetch (CPU per call, issue 19); the SDK is still what OpenAI users and servers know, so
// every request we send and every failure we word must be what the SDK would have sent and said.
// Both sides post to the same capturing fetch; nothing here is our own idea of the protocol.
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { describe, expect, it } from "vitest";
import { postOpenAI } from "../../../src/llm/openai-wire";

const BASE = "http://llm.test/v1";
const KEY = "sk-parity-7f3a";

interface Seen {
  url: string;
  method: string;
  authorization: string | null;
  contentType: string | null;
  body: unknown;
}

/** A fetch that records the request and answers with `reply` (or throws it when it is an Error). */
function capturing(reply: () => Response | Error | Promise<never>) {
  const seen: Seen[] = [];
  const f = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    seen.push({
      url: req.url,
      method: req.method,
      authorization: req.headers.get("authorization"),
      contentType: req.headers.get("content-type"),
      body: JSON.parse(await req.text()),
    });
    const r = reply();
    if (r instanceof Error) throw r;
    return r;
  }) as typeof fetch;
  return { f, seen };
}

const sdk = (f: typeof fetch, timeout = 1_000) => new OpenAI({ apiKey: KEY, baseURL: BASE, maxRetries: 0, timeout, fetch: f });
const wire = (f: typeof fetch, timeoutMs = 1_000) => ({ baseURL: BASE, apiKey: KEY, timeoutMs, fetch: f, now: () => 0 });
const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

const COMPLETION = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "m",
  choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "4", refusal: null } }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
};

// The request shapes the adapter sends (src/llm/openai.ts): plain chat, structured output, tools, logprobs.
const CHAT_BODIES = {
  chat: { model: "m", messages: [{ role: "user", content: "2+2?" }], max_completion_tokens: 64, temperature: 0 },
  structured: {
    model: "m",
    messages: [
      { role: "system", content: "answer" },
      { role: "user", content: "q" },
    ],
    response_format: { type: "json_schema", json_schema: { name: "Answer", schema: { type: "object" }, strict: true } },
  },
  tools: {
    model: "m",
    messages: [{ role: "user", content: "look it up" }],
    tools: [{ type: "function", function: { name: "search", parameters: { type: "object", properties: { q: { type: "string" } } } } }],
  },
  logprobs: { model: "m", messages: [{ role: "user", content: "yes or no" }], logprobs: true, top_logprobs: 5, max_tokens: 1 },
} as const;

describe("openai-wire against the official SDK", () => {
  it.each(Object.entries(CHAT_BODIES))(
    "sends what the SDK sends for a %s completion, and reads back what it reads",
    async (_kind, body) => {
      const viaSdk = capturing(json(200, COMPLETION));
      const viaWire = capturing(json(200, COMPLETION));
      const sdkAnswer = await sdk(viaSdk.f).chat.completions.create(body as never);
      const wireAnswer = await postOpenAI(wire(viaWire.f), "/chat/completions", body);
      expect(viaWire.seen).toEqual(viaSdk.seen);
      expect(wireAnswer).toEqual({ ok: true, value: JSON.parse(JSON.stringify(sdkAnswer)) });
    },
  );

  it("sends what the SDK sends for embeddings", async () => {
    const reply = json(200, { object: "list", data: [{ object: "embedding", index: 0, embedding: [0.5, 0.25] }], model: "e", usage: {} });
    const viaSdk = capturing(reply);
    const viaWire = capturing(reply);
    const body = { model: "e", input: ["a"], encoding_format: "float" as const };
    await sdk(viaSdk.f).embeddings.create(body);
    await postOpenAI(wire(viaWire.f), "/embeddings", body);
    expect(viaWire.seen).toEqual(viaSdk.seen);
  });

  // Failures providers send; each must carry the SDK's status, message and error code.
  const FAILURES: Array<[string, () => Response]> = [
    [
      "400 with an error object and code",
      json(400, { error: { message: "bad schema", type: "invalid_request_error", code: "bad_schema" } }),
    ],
    ["401 with a type only", json(401, { error: { message: "no such key", type: "invalid_api_key" } })],
    ["404 model not found", json(404, { error: { message: "model m not found", code: "model_not_found" } })],
    ["429 with retry-after", json(429, { error: { message: "slow down", type: "rate_limit" } }, { "retry-after": "3" })],
    ["429 insufficient_quota", json(429, { error: { message: "no credit", code: "insufficient_quota" } })],
    ["500 with an empty object", json(500, {})],
    ["500 whose error is not an object", json(500, { error: "boom" })],
    ["502 plain text", () => new Response("upstream down", { status: 502, headers: { "content-type": "text/plain" } })],
    ["503 with no body", () => new Response(null, { status: 503 })],
    ["529 overloaded", json(529, { error: { message: "overloaded", type: "overloaded_error" } })],
  ];

  it.each(FAILURES)("words a %s as the SDK does", async (_name, reply) => {
    const sdkError = await sdk(capturing(reply).f)
      .chat.completions.create(CHAT_BODIES.chat as never)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(sdkError).toBeInstanceOf(APIError);
    const e = sdkError as APIError;
    const r = await postOpenAI(wire(capturing(reply).f), "/chat/completions", CHAT_BODIES.chat);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.status).toBe(e.status);
    // a spent quota gets advice in front of the provider's words (retrying will not help)
    if (e.code === "insufficient_quota")
      expect(r.error).toMatchObject({ kind: "bad_request", message: expect.stringMatching(/: 429 no credit$/) });
    else expect(r.error.message).toBe(e.message);
    if (e.status === 429 && e.code !== "insufficient_quota") expect(r.error).toMatchObject({ kind: "rate_limit", retryAfterMs: 3_000 });
  });

  it("a lost connection and a timeout are what the SDK calls them", async () => {
    const lost = () => new TypeError("Network connection lost.");
    const sdkLost = await sdk(capturing(lost).f)
      .chat.completions.create(CHAT_BODIES.chat as never)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(sdkLost).toBeInstanceOf(APIConnectionError);
    expect(sdkLost).not.toBeInstanceOf(APIConnectionTimeoutError);
    const wireLost = await postOpenAI(wire(capturing(lost).f), "/chat/completions", CHAT_BODIES.chat);
    expect(wireLost.ok ? null : wireLost.error.kind).toBe("connection");

    const hang = (_input: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(new DOMException("The operation was aborted.", "AbortError"))),
      );
    const sdkSlow = await new OpenAI({
      apiKey: KEY,
      baseURL: BASE,
      maxRetries: 0,
      timeout: 20,
      fetch: hang as typeof fetch,
    }).chat.completions
      .create(CHAT_BODIES.chat as never)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(sdkSlow).toBeInstanceOf(APIConnectionTimeoutError);
    const wireSlow = await postOpenAI(wire(hang as typeof fetch, 20), "/chat/completions", CHAT_BODIES.chat);
    expect(wireSlow.ok ? null : wireSlow.error.kind).toBe("timeout");
  });
});
