/**
 * `workers_ai`: models served by Cloudflare Workers AI through the `AI` binding
 * (`env.AI.run(model, inputs)`), no key and no HTTP client of ours.
 *
 * - chat: `{messages, max_tokens, temperature}` → `{response, usage}`.
 * - structured: JSON mode (`response_format: {type: "json_schema", json_schema}`); the reply's
 *   `response` is an object (validated as is) or text (JSON extracted from it, then validated).
 * - embed: `{text: [...]}` → `{data: number[][]}` (bge models). The binding reports no usage for
 *   embeddings, so it is estimated at ~4 characters a token for cost accounting.
 * - toolTurn, logprobs: `unsupported`.
 * Errors are thrown by the binding with Workers AI's internal code in the message
 * ("3040: Capacity temporarily exceeded"); `workersAiErrorKind` maps the documented codes and
 * falls back to words for messages without one. The binding is never given a timeout, so the
 * adapter races each call against `timeoutMs` itself.
 */
import { describeThrown, truncate, MESSAGE_LIMIT } from "./errors";
import {
  fail,
  ok,
  unsupported,
  type ChatRequest,
  type ChatResponse,
  type EmbedRequest,
  type EmbedResponse,
  type LlmErrorKind,
  type LlmResult,
  type LogprobsResponse,
  type Message,
  type ModelIdentityLike,
  type ModelPort,
  type StructuredRequest,
  type StructuredResponse,
  type ToolTurnResponse,
  type Usage,
} from "./port";
import { validateText, validateValue } from "./structured";

/** The part of the `AI` binding the adapter uses (a fake in tests implements just this). */
export interface AiBinding {
  run(model: string, inputs: Record<string, unknown>): Promise<unknown>;
}

export interface WorkersAiOptions {
  id: string;
  model_name: string;
  ai: AiBinding;
  temperature?: number;
  max_tokens?: number;
  timeoutMs: number;
}

/** Workers AI internal codes (developers.cloudflare.com/workers-ai/platform/errors). */
const CODE_KINDS: Record<string, LlmErrorKind> = {
  "3036": "rate_limit", // account limited (daily allocation used up)
  "3040": "rate_limit", // out of capacity
  "3007": "timeout",
  "3008": "connection", // aborted
  "3023": "auth",
  "3041": "auth",
  "5016": "auth",
  "5018": "auth",
  "3003": "bad_request",
  "3006": "bad_request",
  "3039": "bad_request",
  "3042": "bad_request",
  "5004": "bad_request",
  "5005": "bad_request",
  "5007": "bad_request",
  "5019": "bad_request",
};

/** What local workerd's AI binding throws: Workers AI exists only on Cloudflare. */
const REMOTE_ONLY = /needs to be run remotely/i;

export function workersAiErrorKind(message: string): LlmErrorKind {
  if (REMOTE_ONLY.test(message)) return "bad_request"; // no retry can fix where the worker runs
  const code = /\b([35]\d{3})\b/.exec(message)?.[1];
  if (code && CODE_KINDS[code]) return CODE_KINDS[code];
  if (/\b429\b|rate.?limit|capacity/i.test(message)) return "rate_limit";
  if (/timed? ?out|timeout/i.test(message)) return "timeout";
  if (/network|connection|fetch failed/i.test(message)) return "connection";
  if (/\b40[13]\b|unauthori[sz]ed|forbidden/i.test(message)) return "auth";
  if (/\b4\d\d\b|invalid|bad request/i.test(message)) return "bad_request";
  return "server_error"; // an inference error with no code: the service failed
}

const estimate = (s: string) => Math.max(1, Math.ceil(s.length / 4));

export class WorkersAiAdapter implements ModelPort {
  readonly identity: ModelIdentityLike & { id: string };

  constructor(private readonly o: WorkersAiOptions) {
    this.identity = { id: o.id, interface: "workers_ai", model_name: o.model_name };
  }

  async chat(req: ChatRequest): Promise<LlmResult<ChatResponse>> {
    const res = await this.run(this.o.model_name, this.textInputs(req.messages, req));
    if (!res.ok) return res;
    const text = typeof res.value.response === "string" ? res.value.response : JSON.stringify(res.value.response ?? "");
    return ok({ text, usage: this.usage(res.value, req.messages, text) });
  }

  async structured<T>(req: StructuredRequest<T>): Promise<LlmResult<StructuredResponse<T>>> {
    const inputs = { ...this.textInputs(req.messages, req), response_format: { type: "json_schema", json_schema: req.jsonSchema } };
    const res = await this.run(this.o.model_name, inputs);
    if (!res.ok) return res;
    const out = res.value.response;
    const raw = typeof out === "string" ? out : JSON.stringify(out ?? null);
    const validated =
      typeof out === "object" && out !== null ? await validateValue(out, raw, req.schema) : await validateText(raw, req.schema);
    if (!validated.ok) return validated;
    return ok({ value: validated.value.value, raw, usage: this.usage(res.value, req.messages, raw) });
  }

  async embed(req: EmbedRequest): Promise<LlmResult<EmbedResponse>> {
    const model = req.model ?? this.o.model_name;
    const res = await this.run(model, { text: req.inputs });
    if (!res.ok) return res;
    const data = res.value.data;
    if (
      !Array.isArray(data) ||
      data.length !== req.inputs.length ||
      !data.every((v) => Array.isArray(v) && v.every((x) => typeof x === "number"))
    ) {
      return fail({
        kind: "invalid_output",
        message: `Workers AI returned no embedding per input (expected ${req.inputs.length})`,
        raw: truncate(JSON.stringify(data ?? null), 2_000),
      });
    }
    const input_tokens = estimate(req.inputs.join("\n"));
    return ok({ vectors: data as number[][], usage: { input_tokens, output_tokens: 0, total_tokens: input_tokens, model } });
  }

  async toolTurn(): Promise<LlmResult<ToolTurnResponse>> {
    return unsupported("tool turns on Workers AI");
  }

  async logprobs(): Promise<LlmResult<LogprobsResponse>> {
    return unsupported("logprobs on Workers AI");
  }

  private textInputs(messages: Message[], req: { temperature?: number; max_tokens?: number }) {
    const temperature = req.temperature ?? this.o.temperature;
    const max_tokens = req.max_tokens ?? this.o.max_tokens;
    return {
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(max_tokens !== undefined ? { max_tokens } : {}),
    };
  }

  /** Reported usage when the model gives it, else estimated from the texts. */
  private usage(reply: Reply, messages: Message[], output: string): Usage {
    const u = reply.usage;
    const input_tokens = typeof u?.prompt_tokens === "number" ? u.prompt_tokens : estimate(messages.map((m) => m.content).join("\n"));
    const output_tokens = typeof u?.completion_tokens === "number" ? u.completion_tokens : estimate(output);
    return { input_tokens, output_tokens, total_tokens: input_tokens + output_tokens, model: this.o.model_name };
  }

  private async run(model: string, inputs: Record<string, unknown>): Promise<LlmResult<Reply>> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), this.o.timeoutMs)));
    try {
      const out = await Promise.race([this.o.ai.run(model, inputs), timeout]);
      if (out === "timeout") return fail({ kind: "timeout", message: `Workers AI ${model} gave no answer within ${this.o.timeoutMs} ms` });
      if (out === null || typeof out !== "object")
        return fail({ kind: "server_error", message: `Workers AI ${model} returned ${typeof out}, not an object` });
      return ok(out as Reply);
    } catch (e) {
      const message = truncate(describeThrown(e), MESSAGE_LIMIT);
      const hint = REMOTE_ONLY.test(message) ? " (Workers AI runs only on Cloudflare: deploy, or use `wrangler dev --remote`)" : "";
      return fail({ kind: workersAiErrorKind(message), message: `Workers AI ${model}: ${message}${hint}` });
    } finally {
      clearTimeout(timer);
    }
  }
}

interface Reply {
  response?: unknown;
  data?: unknown;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}
