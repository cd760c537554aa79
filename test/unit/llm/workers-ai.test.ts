// The Workers AI adapter against a fake `AI` binding (an object with run(model, inputs)), with the
// model-port contract cases that apply to it (no HTTP: errors arrive as thrown messages with codes).
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createModelPort } from "../../../src/llm/factory";
import { isRetryable, type LlmResult, type Message } from "../../../src/llm/port";
import { workersAiErrorKind, type AiBinding } from "../../../src/llm/workers-ai";

type Call = { model: string; inputs: Record<string, any> };
function fakeAi(reply: (c: Call) => unknown): AiBinding & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    async run(model, inputs) {
      const c = { model, inputs };
      calls.push(c);
      const r = reply(c);
      if (r instanceof Error) throw r;
      return r;
    },
  };
}
const model = {
  id: "wai",
  interface: "workers_ai" as const,
  model_name: "@cf/meta/llama-3.1-8b-instruct",
  temperature: 0.1,
  max_tokens: 256,
};
const port = (ai: AiBinding | undefined, timeoutMs = 1_000) => createModelPort(model, () => undefined, { ai, timeoutMs });
const msgs: Message[] = [
  { role: "system", content: "You are a careful grader." },
  { role: "user", content: "Is Paris the capital of France?" },
];
const Verdict = z.object({ correct: z.boolean(), score: z.number() });
const structuredReq = {
  messages: msgs,
  schemaName: "verdict",
  jsonSchema: { type: "object", properties: { correct: { type: "boolean" }, score: { type: "number" } } },
  schema: Verdict,
};

function errorOf<T>(r: LlmResult<T>) {
  if (r.ok) throw new Error("expected a failure, got a value");
  return r.error;
}
function valueOf<T>(r: LlmResult<T>): T {
  if (!r.ok) throw new Error(`expected a value, got ${r.error.kind}: ${r.error.message}`);
  return r.value;
}

describe("workers_ai adapter", () => {
  it("chat sends the messages with config temperature and max_tokens, and returns the text with reported usage", async () => {
    const ai = fakeAi(() => ({ response: "Yes.", usage: { prompt_tokens: 21, completion_tokens: 2, total_tokens: 23 } }));
    const res = valueOf(await port(ai).chat({ messages: msgs }));
    expect(res).toEqual({ text: "Yes.", usage: { input_tokens: 21, output_tokens: 2, total_tokens: 23, model: model.model_name } });
    expect(ai.calls).toEqual([{ model: model.model_name, inputs: { messages: msgs, temperature: 0.1, max_tokens: 256 } }]);
  });

  it("request values win over config defaults", async () => {
    const ai = fakeAi(() => ({ response: "ok" }));
    await port(ai).chat({ messages: msgs, temperature: 0.7, max_tokens: 9 });
    expect(ai.calls[0]!.inputs).toMatchObject({ temperature: 0.7, max_tokens: 9 });
  });

  it("without reported usage, tokens are estimated (~4 characters a token) so cost accounting still sees the call", async () => {
    const res = valueOf(await port(fakeAi(() => ({ response: "12345678" }))).chat({ messages: msgs }));
    expect(res.usage.output_tokens).toBe(2);
    expect(res.usage.input_tokens).toBe(Math.ceil(msgs.map((m) => m.content).join("\n").length / 4));
  });

  it("structured output asks for JSON mode with the schema and validates an object reply", async () => {
    const ai = fakeAi(() => ({ response: { correct: true, score: 0.9 } }));
    const res = valueOf(await port(ai).structured(structuredReq));
    expect(res.value).toEqual({ correct: true, score: 0.9 });
    expect(ai.calls[0]!.inputs.response_format).toEqual({ type: "json_schema", json_schema: structuredReq.jsonSchema });
  });

  it("structured output is extracted from fenced, chatty text (models that ignore JSON mode)", async () => {
    const ai = fakeAi(() => ({ response: 'Sure:\n```json\n{"correct": false, "score": 0}\n```' }));
    expect(valueOf(await port(ai).structured(structuredReq)).value).toEqual({ correct: false, score: 0 });
  });

  it("structured output that does not validate, or is not JSON, is invalid_output with the raw text, never a value", async () => {
    const wrong = errorOf(await port(fakeAi(() => ({ response: { correct: "yes" } }))).structured(structuredReq));
    expect(wrong.kind).toBe("invalid_output");
    expect(wrong.raw).toContain('"correct":"yes"');
    const malformed = errorOf(await port(fakeAi(() => ({ response: "Sure! Here is what I found: {oops" }))).structured(structuredReq));
    expect(malformed.kind).toBe("invalid_output");
  });

  it("embeddings send the texts and return one vector per input, to the request's model when given", async () => {
    const ai = fakeAi((c) => ({ shape: [2, 3], data: (c.inputs.text as string[]).map((_, i) => [i, 1, 0]) }));
    const res = valueOf(await port(ai).embed({ inputs: ["a", "b"], model: "@cf/baai/bge-base-en-v1.5" }));
    expect(res.vectors).toEqual([
      [0, 1, 0],
      [1, 1, 0],
    ]);
    expect(res.usage).toMatchObject({ input_tokens: 1, output_tokens: 0, model: "@cf/baai/bge-base-en-v1.5" });
    expect(ai.calls[0]).toEqual({ model: "@cf/baai/bge-base-en-v1.5", inputs: { text: ["a", "b"] } });
  });

  it("an embedding reply without a vector per input is invalid_output", async () => {
    expect(errorOf(await port(fakeAi(() => ({ data: [[1]] }))).embed({ inputs: ["a", "b"] })).kind).toBe("invalid_output");
  });

  it("tool turns and logprobs are unsupported", async () => {
    const p = port(fakeAi(() => ({})));
    expect(errorOf(await p.toolTurn({ messages: msgs, tools: [] })).kind).toBe("unsupported");
    expect(errorOf(await p.logprobs({ messages: msgs, top_logprobs: 2 })).kind).toBe("unsupported");
  });

  it.each([
    ["3040: Capacity temporarily exceeded, please try again.", "rate_limit", true],
    ["AiError: 3036: You have used up your daily free allocation of 10,000 neurons", "rate_limit", true],
    ["3007: Request timeout", "timeout", true],
    ["InferenceUpstreamError: internal error", "server_error", true],
    ["5007: No such model @cf/nope or task", "bad_request", false],
    ["5016: User has not agreed to Llama3.2 model terms", "auth", false],
  ] as const)("a thrown %j is %s (retryable: %s), never a throw", async (message, kind, retryable) => {
    const err = errorOf(await port(fakeAi(() => new Error(message))).chat({ messages: msgs }));
    expect(err.kind).toBe(kind);
    expect(isRetryable(err)).toBe(retryable);
    expect(err.message).toContain(message);
  });

  it("a binding that never answers is a timeout after timeoutMs", async () => {
    const hang: AiBinding = { run: () => new Promise(() => undefined) };
    const t0 = Date.now();
    expect(errorOf(await port(hang, 50).chat({ messages: msgs })).kind).toBe("timeout");
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it("a worker without the AI binding gets a port whose calls fail as bad_request naming the missing binding", async () => {
    const err = errorOf(await port(undefined).chat({ messages: msgs }));
    expect(err.kind).toBe("bad_request");
    expect(err.message).toContain("AI binding");
  });

  it("local workerd's binding (Workers AI runs only remotely) fails as bad_request that says how to get it", async () => {
    const local: AiBinding = { run: () => Promise.reject(new Error("Binding AI needs to be run remotely")) };
    const err = errorOf(await port(local).chat({ messages: msgs }));
    expect(err.kind).toBe("bad_request");
    expect(err.message).toContain("wrangler dev --remote");
  });

  it("error kinds: words are read when the message has no code", () => {
    expect(workersAiErrorKind("429 Too Many Requests")).toBe("rate_limit");
    expect(workersAiErrorKind("network connection lost")).toBe("connection");
    expect(workersAiErrorKind("something odd")).toBe("server_error");
  });
});

describe("workers_ai model configs", () => {
  it("are accepted with a model name and need no key or base_url", async () => {
    const { ModelConfig } = await import("../../../src/schemas/model-config");
    const { missingSecret } = await import("../../../src/llm/factory");
    const parsed = ModelConfig.parse({ id: "llama", interface: "workers_ai", model_name: "@cf/meta/llama-3.1-8b-instruct" });
    expect(parsed).toMatchObject({ interface: "workers_ai", model_name: "@cf/meta/llama-3.1-8b-instruct" });
    expect(missingSecret(parsed, () => undefined)).toBeNull();
  });
});
