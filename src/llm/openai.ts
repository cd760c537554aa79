/**
 * ModelPort over OpenAI's chat completions and embeddings endpoints, for `openai` and
 * `openai_compatible` (vLLM, Ollama, LM Studio…), called with plain fetch (openai-wire.ts: the SDK
 * cost more CPU per call than the fetch itself); the SDK's types describe the wire.
 *
 * - No retries here: the queue owns them. Every call has the adapter's `timeoutMs`.
 * - Structured output: `response_format: json_schema`, then JSON extraction from the content
 *   (servers that ignore the schema fence it or chat around it), then zod validation. A compatible
 *   server that refuses json_schema with a 400 gets the schema in the system message instead.
 * - Every failed call becomes an `LlmError` in `postOpenAI` (openai-wire.ts), as the SDK's error classes did.
 * - Config temperature / max_tokens are defaults; request values win. `openai` sends
 *   `max_completion_tokens` (required by its reasoning models), `openai_compatible` sends
 *   `max_tokens` (what most compatible servers read).
 */
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { CreateEmbeddingResponse } from "openai/resources/embeddings";
import { type OpenAIWire, postOpenAI } from "./openai-wire";
import {
  ok,
  unsupported,
  type ChatRequest,
  type ChatResponse,
  type EmbedRequest,
  type EmbedResponse,
  type LlmError,
  type LlmResult,
  type LogprobsRequest,
  type LogprobsResponse,
  type Message,
  type ModelIdentityLike,
  type ModelPort,
  type StructuredRequest,
  type StructuredResponse,
  type ToolCall,
  type ToolTurnRequest,
  type ToolTurnResponse,
  type Usage,
} from "./port";
import { invalidOutput, validateText, validateValue, wireName } from "./structured";
import { extractJson } from "../lib/json-extract";
import { dropAddedNulls, toStrictSchema } from "./strict-schema";

/** The SDK's own default, passed explicitly so that no OPENAI_BASE_URL in the environment can move it. */
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

export interface OpenAIAdapterOptions {
  interface: "openai" | "openai_compatible";
  id?: string;
  model_name: string;
  apiKey: string;
  /** Used exactly as written (no /v1 appended). */
  baseURL?: string;
  temperature?: number;
  max_tokens?: number;
  timeoutMs: number;
  fetch?: typeof fetch;
  now?: () => number;
}

type Sampling = Pick<ChatCompletionCreateParamsNonStreaming, "temperature" | "max_tokens" | "max_completion_tokens">;

export class OpenAIAdapter implements ModelPort {
  readonly identity: ModelIdentityLike & { id?: string };
  readonly #wire: OpenAIWire;
  readonly #opts: OpenAIAdapterOptions;
  /** Set once an OpenAI-compatible server has refused `response_format: json_schema`. */
  #schemaRefused = false;

  constructor(opts: OpenAIAdapterOptions) {
    this.#opts = opts;
    this.identity = { id: opts.id, interface: opts.interface, model_name: opts.model_name };
    this.#wire = {
      apiKey: opts.apiKey,
      baseURL: opts.baseURL ?? OPENAI_DEFAULT_BASE_URL,
      timeoutMs: opts.timeoutMs,
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
      ...(opts.now ? { now: opts.now } : {}),
    };
  }

  async chat(req: ChatRequest): Promise<LlmResult<ChatResponse>> {
    const r = await this.#complete({ messages: toOpenAIMessages(req.messages), ...this.#sampling(req) });
    if (!r.ok) return r;
    return ok({ text: r.value.message.content ?? "", usage: r.value.usage });
  }

  async structured<T>(req: StructuredRequest<T>): Promise<LlmResult<StructuredResponse<T>>> {
    // OpenAI itself gets strict mode (the output is guaranteed to parse); compatible servers vary in
    // what they accept, so they get the schema as written and the answer is extracted from text.
    const strict = this.#opts.interface === "openai" ? toStrictSchema(req.jsonSchema) : null;
    const json_schema = strict
      ? { name: wireName(req.schemaName), schema: strict, strict: true }
      : { name: wireName(req.schemaName), schema: req.jsonSchema };
    let r = this.#schemaRefused
      ? await this.#completeWithSchemaInPrompt(req)
      : await this.#complete({
          messages: toOpenAIMessages(req.messages),
          response_format: { type: "json_schema", json_schema },
          ...this.#sampling(req),
        });
    if (!r.ok && !strict && !this.#schemaRefused && refusesResponseFormat(r.error)) {
      // An OpenAI-compatible server without json_schema support: ask for the JSON in the prompt
      // instead, now and for this adapter's later calls (the answer is extracted from text anyway).
      this.#schemaRefused = true;
      r = await this.#completeWithSchemaInPrompt(req);
    }
    if (!r.ok) return r;
    const { message, usage } = r.value;
    if (message.refusal) return invalidOutput(`the model refused: ${message.refusal}`, message.refusal);
    const text = message.content ?? "";
    if (strict) {
      const extracted = extractJson(text);
      if (!extracted.ok) return invalidOutput(`no JSON in the model output (${extracted.error})`, text);
      const v = await validateValue(dropAddedNulls(extracted.value, req.jsonSchema), text, req.schema);
      return v.ok ? ok({ ...v.value, usage }) : v;
    }
    const v = await validateText(text, req.schema);
    return v.ok ? ok({ ...v.value, usage }) : v;
  }

  async toolTurn(req: ToolTurnRequest): Promise<LlmResult<ToolTurnResponse>> {
    const r = await this.#complete({
      messages: toOpenAIMessages(req.messages),
      tools: req.tools.map((t) => ({
        type: "function" as const,
        function: { name: t.name, description: t.description, parameters: t.parameters },
      })),
      ...this.#sampling(req),
    });
    if (!r.ok) return r;
    const { message, usage } = r.value;
    const calls: ToolCall[] = [];
    for (const c of message.tool_calls ?? []) {
      if (c.type !== "function") continue;
      const args = parseArguments(c.function.arguments);
      if (!args.ok) return invalidOutput(`tool call ${c.function.name}: arguments are not JSON`, c.function.arguments);
      calls.push({ id: c.id, name: c.function.name, arguments: args.value });
    }
    return ok({ text: message.content ?? "", tool_calls: calls, usage });
  }

  async logprobs(req: LogprobsRequest): Promise<LlmResult<LogprobsResponse>> {
    const r = await this.#complete({
      messages: toOpenAIMessages(req.messages),
      logprobs: true,
      top_logprobs: req.top_logprobs,
      ...this.#sampling(req),
    });
    if (!r.ok) return r;
    const content = r.value.choice.logprobs?.content;
    if (!content) return unsupported("logprobs (the server returned none)");
    return ok({
      text: r.value.message.content ?? "",
      tokens: content.map((t) => ({
        token: t.token,
        logprob: t.logprob,
        top: (t.top_logprobs ?? []).map((a) => ({ token: a.token, logprob: a.logprob })),
      })),
      usage: r.value.usage,
    });
  }

  async embed(req: EmbedRequest): Promise<LlmResult<EmbedResponse>> {
    const model = req.model ?? this.#opts.model_name;
    const r = await postOpenAI<CreateEmbeddingResponse>(this.#wire, "/embeddings", { model, input: req.inputs, encoding_format: "float" });
    if (!r.ok) return r;
    const data = [...r.value.data].sort((a, b) => a.index - b.index);
    if (data.length !== req.inputs.length) {
      return invalidOutput(`expected ${req.inputs.length} embeddings, got ${data.length}`, JSON.stringify(data.map((d) => d.index)));
    }
    const input = r.value.usage?.prompt_tokens ?? 0;
    return ok({
      vectors: data.map((d) => d.embedding),
      usage: { input_tokens: input, output_tokens: 0, total_tokens: r.value.usage?.total_tokens ?? input, model: r.value.model || model },
    });
  }

  /** A structured request without response_format: the schema goes into the system message. */
  #completeWithSchemaInPrompt<T>(req: StructuredRequest<T>) {
    const instruction = `Reply with only a JSON object that matches this JSON Schema:\n${JSON.stringify(req.jsonSchema)}`;
    const [first, ...rest] = req.messages;
    const messages: Message[] =
      first?.role === "system"
        ? [{ ...first, content: `${first.content}\n\n${instruction}` }, ...rest]
        : [{ role: "system", content: instruction }, ...req.messages];
    return this.#complete({ messages: toOpenAIMessages(messages), ...this.#sampling(req) });
  }

  /** One chat completion; the first choice, its message and mapped usage. */
  async #complete(body: Omit<ChatCompletionCreateParamsNonStreaming, "model">) {
    const r = await postOpenAI<ChatCompletion>(this.#wire, "/chat/completions", { ...body, model: this.#opts.model_name });
    if (!r.ok) return r;
    const choice = r.value.choices?.[0];
    if (!choice?.message) return invalidOutput<never>("the response has no choices", JSON.stringify(r.value));
    return ok({ choice, message: choice.message, usage: this.#usage(r.value) });
  }

  #sampling(req: { temperature?: number; max_tokens?: number }): Sampling {
    const temperature = req.temperature ?? this.#opts.temperature;
    const maxTokens = req.max_tokens ?? this.#opts.max_tokens;
    const out: Sampling = {};
    if (temperature !== undefined) out.temperature = temperature;
    if (maxTokens !== undefined) {
      if (this.#opts.interface === "openai") out.max_completion_tokens = maxTokens;
      else out.max_tokens = maxTokens;
    }
    return out;
  }

  #usage(c: ChatCompletion): Usage {
    const input = c.usage?.prompt_tokens ?? 0;
    const output = c.usage?.completion_tokens ?? 0;
    return {
      input_tokens: input,
      output_tokens: output,
      total_tokens: c.usage?.total_tokens ?? input + output,
      model: c.model || this.#opts.model_name,
    };
  }
}

function parseArguments(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

export function toOpenAIMessages(messages: readonly Message[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    switch (m.role) {
      case "system":
        return { role: "system", content: m.content };
      case "user":
        return { role: "user", content: m.content };
      case "tool":
        return { role: "tool", tool_call_id: m.tool_call_id ?? "", content: m.content };
      case "assistant": {
        const calls = m.tool_calls ?? [];
        if (calls.length === 0) return { role: "assistant", content: m.content };
        return {
          role: "assistant",
          content: m.content === "" ? null : m.content,
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: "function" as const,
            function: { name: c.name, arguments: JSON.stringify(c.arguments ?? {}) },
          })),
        };
      }
    }
  });
}

/** A 400 whose message says the server does not take the response_format / JSON schema it was sent. */
function refusesResponseFormat(error: LlmError): boolean {
  return error.kind === "bad_request" && /response_format|json_schema|guided|structured output/i.test(error.message);
}
