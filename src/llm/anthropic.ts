/**
 * ModelPort over the Anthropic SDK.
 *
 * - `maxRetries: 0`: the queue owns retries. Every call has the adapter's `timeoutMs`.
 * - Structured output: a forced tool (`tool_choice: {type: "tool", name}`) whose input schema is
 *   the request's JSON schema; if the model answers in text instead, JSON is extracted from the
 *   text blocks. Either way the value must pass the zod schema.
 * - Embeddings and logprobs: `unsupported` (Anthropic offers neither).
 * - Every SDK error becomes an `LlmError` in `anthropicError`, the one place that knows its classes.
 * - System messages go to the top-level `system`; tool results become `tool_result` blocks in a
 *   user turn; consecutive turns of one role are merged (the API wants alternation).
 * - Usage: input_tokens counts cache reads and writes too (all tokens the request consumed).
 */
import Anthropic, { AnthropicError, APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import type {
  ContentBlockParam,
  Message as AnthropicMessage,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages";
import { connectionMessage, describeThrown, httpError, scrub } from "./errors";
import {
  fail,
  ok,
  unsupported,
  type ChatRequest,
  type ChatResponse,
  type EmbedResponse,
  type LlmError,
  type LlmResult,
  type LogprobsResponse,
  type Message,
  type ModelIdentityLike,
  type ModelPort,
  type StructuredRequest,
  type StructuredResponse,
  type ToolTurnRequest,
  type ToolTurnResponse,
  type Usage,
} from "./port";
import { validateText, validateValue, wireName } from "./structured";

/** The SDK's own default, passed explicitly so that no ANTHROPIC_BASE_URL in the environment can move it. */
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
/** Anthropic requires max_tokens on every request; used when neither config nor request sets it. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

export interface AnthropicAdapterOptions {
  id?: string;
  model_name: string;
  apiKey: string;
  /** Used exactly as written (the SDK appends /v1/messages). */
  baseURL?: string;
  temperature?: number;
  max_tokens?: number;
  timeoutMs: number;
  fetch?: typeof fetch;
  now?: () => number;
}

type Body = Omit<MessageCreateParamsNonStreaming, "model" | "max_tokens" | "messages">;

export class AnthropicAdapter implements ModelPort {
  readonly identity: ModelIdentityLike & { id?: string };
  readonly #client: Anthropic;
  readonly #opts: AnthropicAdapterOptions;

  constructor(opts: AnthropicAdapterOptions) {
    this.#opts = opts;
    this.identity = { id: opts.id, interface: "anthropic", model_name: opts.model_name };
    this.#client = new Anthropic({
      apiKey: opts.apiKey,
      baseURL: opts.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL,
      maxRetries: 0,
      timeout: opts.timeoutMs,
      logLevel: "warn",
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
    });
  }

  async chat(req: ChatRequest): Promise<LlmResult<ChatResponse>> {
    const r = await this.#create(req.messages, req, {});
    if (!r.ok) return r;
    return ok({ text: textOf(r.value.message), usage: r.value.usage });
  }

  async structured<T>(req: StructuredRequest<T>): Promise<LlmResult<StructuredResponse<T>>> {
    const name = wireName(req.schemaName);
    const tool: Tool = {
      name,
      description: `Record the answer. Call this tool exactly once with input matching the ${req.schemaName} schema.`,
      input_schema: req.jsonSchema as Tool.InputSchema,
    };
    const r = await this.#create(req.messages, req, { tools: [tool], tool_choice: { type: "tool", name } });
    if (!r.ok) return r;
    const { message, usage } = r.value;
    const use = message.content.find((b) => b.type === "tool_use" && b.name === name);
    const v =
      use && use.type === "tool_use"
        ? await validateValue(use.input, JSON.stringify(use.input), req.schema)
        : await validateText(textOf(message), req.schema);
    return v.ok ? ok({ ...v.value, usage }) : v;
  }

  async toolTurn(req: ToolTurnRequest): Promise<LlmResult<ToolTurnResponse>> {
    const tools: Tool[] = req.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters as Tool.InputSchema,
    }));
    const r = await this.#create(req.messages, req, { tools });
    if (!r.ok) return r;
    const { message, usage } = r.value;
    const tool_calls = message.content.flatMap((b) => (b.type === "tool_use" ? [{ id: b.id, name: b.name, arguments: b.input }] : []));
    return ok({ text: textOf(message), tool_calls, usage });
  }

  async embed(): Promise<LlmResult<EmbedResponse>> {
    return unsupported("embeddings (Anthropic has no embeddings API)");
  }

  async logprobs(): Promise<LlmResult<LogprobsResponse>> {
    return unsupported("logprobs (Anthropic does not return them)");
  }

  async #create(messages: readonly Message[], req: { temperature?: number; max_tokens?: number }, extra: Body) {
    const { system, messages: turns } = toAnthropicMessages(messages);
    const temperature = req.temperature ?? this.#opts.temperature;
    const params: MessageCreateParamsNonStreaming = {
      model: this.#opts.model_name,
      max_tokens: req.max_tokens ?? this.#opts.max_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      messages: turns,
      ...(system ? { system } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...extra,
    };
    try {
      const message = await this.#client.messages.create(params);
      return ok({ message, usage: this.#usage(message) });
    } catch (e) {
      return fail<never>(
        anthropicError(e, { secrets: [this.#opts.apiKey], now: (this.#opts.now ?? Date.now)(), url: this.#client.baseURL }),
      );
    }
  }

  #usage(m: AnthropicMessage): Usage {
    const u = m.usage;
    const input = (u?.input_tokens ?? 0) + (u?.cache_creation_input_tokens ?? 0) + (u?.cache_read_input_tokens ?? 0);
    const output = u?.output_tokens ?? 0;
    return { input_tokens: input, output_tokens: output, total_tokens: input + output, model: m.model || this.#opts.model_name };
  }
}

/** The one place Anthropic SDK errors become `LlmError`s. 529 (overloaded) is a 5xx: server_error. */
/** `ctx.url`: the base URL the call went to, named in connection errors so a wrong base_url or port shows. */
export function anthropicError(e: unknown, ctx: { secrets: readonly string[]; now: number; url?: string }): LlmError {
  if (e instanceof APIConnectionTimeoutError) return { kind: "timeout", message: "request timed out" };
  if (e instanceof APIUserAbortError) return { kind: "timeout", message: "request aborted" };
  if (e instanceof APIConnectionError) return { kind: "connection", message: scrub(connectionMessage(e, ctx.url), ctx.secrets) };
  if (e instanceof APIError && typeof e.status === "number") return httpError(e.status, e.message, e.headers, ctx);
  if (e instanceof AnthropicError) return { kind: "bad_request", message: scrub(e.message, ctx.secrets) };
  return { kind: "server_error", message: scrub(`unexpected error: ${describeThrown(e)}`, ctx.secrets) };
}

function textOf(m: AnthropicMessage): string {
  return m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
}

export function toAnthropicMessages(messages: readonly Message[]): { system: string; messages: MessageParam[] } {
  const system: string[] = [];
  const turns: { role: "user" | "assistant"; content: ContentBlockParam[] }[] = [];
  for (const m of messages) {
    if (m.role === "system") {
      if (m.content) system.push(m.content);
      continue;
    }
    const role = m.role === "assistant" ? "assistant" : "user";
    const blocks: ContentBlockParam[] = [];
    if (m.role === "tool") {
      blocks.push({ type: "tool_result", tool_use_id: m.tool_call_id ?? "", content: m.content });
    } else {
      if (m.content) blocks.push({ type: "text", text: m.content });
      for (const c of m.tool_calls ?? []) blocks.push({ type: "tool_use", id: c.id, name: c.name, input: c.arguments ?? {} });
    }
    if (blocks.length === 0) continue; // the API rejects empty text blocks
    const last = turns.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  }
  return { system: system.join("\n\n"), messages: turns };
}
