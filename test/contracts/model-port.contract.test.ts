// One contract for every model adapter: the real SDKs run inside workerd against the shared fake
// LLM server (env.FAKE_LLM_URL). Each test scripts the server for its own unique model name, so
// tests and files never see each other's rules; the server is never reset from here.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createModelPort, type ModelInterface, type ResolvedModel } from "../../src/llm/factory";
import { isRetryable, type LlmResult, type Message } from "../../src/llm/port";

const FAKE = env.FAKE_LLM_URL;
const SECRETS: Record<string, string> = {
  OPENAI_API_KEY: "sk-contract-openai-5f2a9c",
  ANTHROPIC_API_KEY: "sk-ant-contract-7d41e0",
};
const secret = (name: string) => SECRETS[name];

interface AdapterCase {
  interface: Exclude<ModelInterface, "manual">;
  base_url: string;
  endpoint: "openai.chat" | "anthropic.messages";
  embeddings: boolean;
  logprobs: boolean;
  /** where the adapter puts max_tokens on the wire */
  maxTokensField: "max_tokens" | "max_completion_tokens";
}

const ADAPTERS: AdapterCase[] = [
  {
    interface: "openai",
    base_url: `${FAKE}/v1`,
    endpoint: "openai.chat",
    embeddings: true,
    logprobs: true,
    maxTokensField: "max_completion_tokens",
  },
  {
    interface: "anthropic",
    base_url: FAKE,
    endpoint: "anthropic.messages",
    embeddings: false,
    logprobs: false,
    maxTokensField: "max_tokens",
  },
  // no /v1: base_url is used exactly as written, and the fake serves the unprefixed routes
  {
    interface: "openai_compatible",
    base_url: FAKE,
    endpoint: "openai.chat",
    embeddings: true,
    logprobs: true,
    maxTokensField: "max_tokens",
  },
];

type Rule = { match?: Record<string, unknown>; reply: Record<string, unknown>; times?: number };

async function addRules(rules: Rule[]) {
  const res = await fetch(`${FAKE}/_admin/rules`, { method: "POST", body: JSON.stringify({ rules }) });
  expect(res.status, await res.clone().text()).toBe(200);
}
async function stats(model: string) {
  const res = await fetch(`${FAKE}/stats?model=${encodeURIComponent(model)}`);
  return res.json<{ total: number; by_endpoint: Record<string, number>; in_flight: number }>();
}
async function requestsFor(model: string) {
  const res = await fetch(`${FAKE}/_admin/requests?model=${encodeURIComponent(model)}`);
  return (await res.json<{ requests: { body: Record<string, unknown> }[] }>()).requests;
}

const user = (content: string): Message[] => [
  { role: "system", content: "You are a careful grader." },
  { role: "user", content },
];

const Verdict = z.object({ correct: z.boolean(), score: z.number() });
const verdictJsonSchema = {
  type: "object",
  properties: { correct: { type: "boolean" }, score: { type: "number" } },
  required: ["correct", "score"],
  additionalProperties: false,
};
const structuredReq = (content = "Is Paris the capital of France?") => ({
  messages: user(content),
  schemaName: "verdict",
  jsonSchema: verdictJsonSchema,
  schema: Verdict,
});

function errorOf<T>(r: LlmResult<T>) {
  expect(r.ok, r.ok ? "expected a failure, got a value" : "").toBe(false);
  if (r.ok) throw new Error("unreachable");
  return r.error;
}
function valueOf<T>(r: LlmResult<T>): T {
  if (!r.ok) throw new Error(`expected a value, got ${r.error.kind}: ${r.error.message}`);
  return r.value;
}

describe.each(ADAPTERS)("$interface adapter", (a) => {
  const modelName = (label: string) => `contract-${a.interface}-${label}-${crypto.randomUUID().slice(0, 8)}`;
  const port = (model_name: string, extra: Partial<ResolvedModel> = {}, timeoutMs = 5_000) =>
    createModelPort({ id: `m-${model_name}`, interface: a.interface, model_name, base_url: a.base_url, ...extra }, secret, { timeoutMs });

  it("chat returns the text with usage, and the call is counted for its model", async () => {
    const m = modelName("chat");
    await addRules([{ match: { model: m }, reply: { text: "Paris." } }]);
    const res = valueOf(await port(m).chat({ messages: user("Capital of France?") }));
    expect(res.text).toBe("Paris.");
    expect(res.usage.model).toBe(m);
    expect(res.usage.input_tokens).toBeGreaterThan(0);
    expect(res.usage.output_tokens).toBeGreaterThan(0);
    expect(res.usage.total_tokens).toBe(res.usage.input_tokens + res.usage.output_tokens);
    expect(await stats(m)).toMatchObject({ total: 1, by_endpoint: { [a.endpoint]: 1 } });
  });

  it("chat without a rule gets the fake's default answer to the last user message", async () => {
    const m = modelName("default");
    const res = valueOf(await port(m).chat({ messages: user("What is 2+2?") }));
    expect(res.text).toBe("fake answer to: What is 2+2?");
  });

  it("structured output returns a value that passes the zod schema", async () => {
    const m = modelName("structured");
    await addRules([{ match: { model: m, kind: "structured" }, reply: { json: { correct: false, score: 3 } } }]);
    const res = valueOf(await port(m).structured(structuredReq()));
    expect(res.value).toEqual({ correct: false, score: 3 });
    expect(JSON.parse(res.raw)).toEqual({ correct: false, score: 3 });
    expect(res.usage.total_tokens).toBeGreaterThan(0);
  });

  it("structured output without a rule is generated from the JSON schema", async () => {
    const res = valueOf(await port(modelName("schema-default")).structured(structuredReq()));
    expect(res.value).toEqual({ correct: true, score: 0 });
  });

  it("structured output is extracted from fenced, chatty text (servers that ignore the schema)", async () => {
    const m = modelName("fenced");
    const text = 'Sure! Here is my verdict:\n```json\n{"correct": true, "score": 0.75}\n```\nHope that helps.';
    await addRules([{ match: { model: m }, reply: { text } }]);
    const res = valueOf(await port(m).structured(structuredReq()));
    expect(res.value).toEqual({ correct: true, score: 0.75 });
  });

  it("structured output that does not validate is invalid_output with the raw text, never a value", async () => {
    const m = modelName("invalid");
    await addRules([{ match: { model: m }, reply: { json: { correct: "yes", score: 1 } } }]);
    const err = errorOf(await port(m).structured(structuredReq()));
    expect(err.kind).toBe("invalid_output");
    expect(err.raw).toContain('"yes"');
    expect(isRetryable(err)).toBe(false);
  });

  it("a malformed answer is invalid_output", async () => {
    const m = modelName("malformed");
    await addRules([{ match: { model: m }, reply: { fault: "malformed" } }]);
    const err = errorOf(await port(m).structured(structuredReq()));
    expect(err.kind).toBe("invalid_output");
    expect(err.raw).toContain("{oops");
  });

  it("429 is rate_limit with retryAfterMs from retry-after", async () => {
    const m = modelName("429");
    await addRules([{ match: { model: m }, reply: { fault: "429", retry_after_s: 2 } }]);
    const err = errorOf(await port(m).chat({ messages: user("q") }));
    expect(err).toMatchObject({ kind: "rate_limit", status: 429, retryAfterMs: 2_000 });
    expect(await stats(m)).toMatchObject({ total: 1 }); // maxRetries: 0 — the queue owns retries
  });

  it.each(["500", "529"])("%s is server_error", async (fault) => {
    const m = modelName(fault);
    await addRules([{ match: { model: m }, reply: { fault } }]);
    const err = errorOf(await port(m).structured(structuredReq()));
    expect(err).toMatchObject({ kind: "server_error", status: Number(fault) });
    expect(isRetryable(err)).toBe(true);
    expect(await stats(m)).toMatchObject({ total: 1 });
  });

  it("fails once, then succeeds on the next call (rules with times)", async () => {
    const m = modelName("flaky");
    await addRules([
      { match: { model: m }, reply: { fault: "500" }, times: 1 },
      { match: { model: m }, reply: { text: "recovered" } },
    ]);
    const p = port(m);
    expect(errorOf(await p.chat({ messages: user("q") })).kind).toBe("server_error");
    expect(valueOf(await p.chat({ messages: user("q") })).text).toBe("recovered");
  });

  it("401 is auth, 400 is bad_request, and the key never shows in the error", async () => {
    const m = modelName("auth");
    await addRules([
      { match: { model: m, kind: "chat" }, reply: { fault: "401" } },
      { match: { model: m, kind: "structured" }, reply: { fault: "400" } },
    ]);
    const p = port(m);
    const auth = errorOf(await p.chat({ messages: user("q") }));
    expect(auth).toMatchObject({ kind: "auth", status: 401 });
    expect(errorOf(await p.structured(structuredReq()))).toMatchObject({ kind: "bad_request", status: 400 });
    for (const key of Object.values(SECRETS)) expect(JSON.stringify(auth)).not.toContain(key);
  });

  it("a hanging server is a timeout after timeoutMs", async () => {
    const m = modelName("hang");
    await addRules([{ match: { model: m }, reply: { fault: "hang" } }]);
    const t0 = Date.now();
    const err = errorOf(await port(m, {}, 300).chat({ messages: user("q") }));
    expect(err.kind).toBe("timeout");
    expect(Date.now() - t0).toBeLessThan(3_000);
    await expect.poll(async () => (await stats(m)).in_flight, { timeout: 3_000 }).toBe(0);
  });

  it("a network failure is connection", async () => {
    // a fetch that fails like a dropped socket (a real refused port makes workerd log noise)
    const brokenFetch = (async () => {
      throw new TypeError("Network connection lost.");
    }) as unknown as typeof fetch;
    const dead = createModelPort({ id: "dead", interface: a.interface, model_name: modelName("dead"), base_url: a.base_url }, secret, {
      timeoutMs: 2_000,
      fetch: brokenFetch,
    });
    const err = errorOf(await dead.chat({ messages: user("q") }));
    expect(err.kind).toBe("connection");
    expect(isRetryable(err)).toBe(true);
    // Issue 15 item 1: the message names the URL, so a wrong base_url or port shows at once.
    expect(err.message).toContain(`could not connect to ${a.base_url}`);
    expect(err.message).toContain("Network connection lost.");
  });

  it(a.embeddings ? "embeds texts deterministically, one vector per input" : "declares embeddings unsupported", async () => {
    const m = modelName("embed");
    const r = await port(m).embed({ inputs: ["the cat sat", "the cat sat", "quantum flux"] });
    if (!a.embeddings) {
      expect(errorOf(r).kind).toBe("unsupported");
      expect((await stats(m)).total).toBe(0);
      return;
    }
    const { vectors, usage } = valueOf(r);
    expect(vectors).toHaveLength(3);
    expect(vectors[0]).toHaveLength(64);
    expect(vectors[0]).toEqual(vectors[1]);
    expect(vectors[0]).not.toEqual(vectors[2]);
    expect(usage.input_tokens).toBeGreaterThan(0);
    expect(await stats(m)).toMatchObject({ total: 1, by_endpoint: { "openai.embeddings": 1 } });
  });

  it("runs a tool turn, then answers once the tool result is sent back", async () => {
    const m = modelName("tools");
    await addRules([
      { match: { model: m, contains: "RESULT-42" }, reply: { text: "The answer is 42." } },
      { match: { model: m, kind: "tools" }, reply: { tool_calls: [{ name: "lookup", arguments: { q: "answer" } }] } },
    ]);
    const tools = [
      { name: "lookup", description: "Look a fact up", parameters: { type: "object", properties: { q: { type: "string" } } } },
    ];
    const p = port(m);
    const messages = user("What is the answer?");
    const first = valueOf(await p.toolTurn({ messages, tools }));
    expect(first.tool_calls).toEqual([{ id: expect.any(String), name: "lookup", arguments: { q: "answer" } }]);
    const call = first.tool_calls[0]!;
    const second = valueOf(
      await p.toolTurn({
        messages: [
          ...messages,
          { role: "assistant", content: first.text, tool_calls: first.tool_calls },
          { role: "tool", content: "RESULT-42", tool_call_id: call.id },
        ],
        tools,
      }),
    );
    expect(second).toMatchObject({ text: "The answer is 42.", tool_calls: [] });
  });

  it(a.logprobs ? "returns logprobs with top alternatives" : "declares logprobs unsupported", async () => {
    const m = modelName("logprobs");
    await addRules([{ match: { model: m }, reply: { text: "YES it is" } }]);
    const r = await port(m).logprobs({ messages: user("Is it?"), top_logprobs: 3 });
    if (!a.logprobs) {
      expect(errorOf(r).kind).toBe("unsupported");
      return;
    }
    const res = valueOf(r);
    expect(res.text).toBe("YES it is");
    expect(res.tokens.map((t) => t.token).join("")).toBe("YES it is");
    expect(res.tokens[0]!.top).toHaveLength(3);
    expect(res.tokens[0]!.logprob).toBeLessThan(0);
  });

  it("uses config temperature/max_tokens as defaults and lets the request override them", async () => {
    const m = modelName("sampling");
    const p = port(m, { temperature: 0.2, max_tokens: 111 });
    await p.chat({ messages: user("defaults") });
    await p.chat({ messages: user("override"), temperature: 0.9, max_tokens: 222 });
    const [first, second] = (await requestsFor(m)).map((r) => r.body);
    expect(first).toMatchObject({ temperature: 0.2, [a.maxTokensField]: 111 });
    expect(second).toMatchObject({ temperature: 0.9, [a.maxTokensField]: 222 });
  });
});
