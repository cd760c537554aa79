/**
 * The model port: everything the platform-free core may ask of a model.
 *
 * The core (pipeline/, templates/, rubric/, judges/) sees only this file's types; adapters
 * (openai, anthropic, openai-compatible, manual) live beside it and are chosen at the edge.
 * Every method resolves to a `LlmResult` and never throws for a model-side failure, so a
 * caller cannot mistake "the judge failed" for "the answer is wrong".
 */
import type { z } from "zod";
import type { Message, Role, ToolCall } from "../schemas/message";

export type { Message, Role, ToolCall };

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  model: string;
  /** The response came from the run's response cache: no provider call was made. */
  cached?: boolean;
}

/**
 * Where in a job a call is made (stage, judge unit path, repeat index). Two calls with the same
 * request but different call sites are different votes: the response cache keys on it.
 */
export interface CallSite {
  call_site?: string;
}

export interface ChatRequest extends CallSite {
  messages: Message[];
  temperature?: number;
  max_tokens?: number;
}

export interface ChatResponse {
  text: string;
  usage: Usage;
}

export interface StructuredRequest<T> extends CallSite {
  messages: Message[];
  /** Name given to the schema on the wire (OpenAI json_schema name / Anthropic tool name). */
  schemaName: string;
  /** JSON Schema sent to the provider. */
  jsonSchema: Record<string, unknown>;
  /** What the output must satisfy; output that fails it is `invalid_output`, never a value. */
  schema: z.ZodType<T>;
  temperature?: number;
  max_tokens?: number;
}

export interface StructuredResponse<T> {
  value: T;
  /** The text (or tool input, serialised) the model produced, for traces. */
  raw: string;
  usage: Usage;
}

export interface EmbedRequest extends CallSite {
  inputs: string[];
  /** Embedding model; defaults to the adapter's model_name. */
  model?: string;
}

export interface EmbedResponse {
  vectors: number[][];
  usage: Usage;
}

export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ToolTurnRequest extends CallSite {
  messages: Message[];
  tools: ToolSpec[];
  temperature?: number;
  max_tokens?: number;
}

/** One model turn in a tool loop: either final text or tool calls to run. */
export interface ToolTurnResponse {
  text: string;
  tool_calls: ToolCall[];
  usage: Usage;
}

export interface LogprobsRequest extends CallSite {
  messages: Message[];
  top_logprobs: number;
  max_tokens?: number;
}

export interface TokenLogprob {
  token: string;
  logprob: number;
  top: { token: string; logprob: number }[];
}

export interface LogprobsResponse {
  text: string;
  tokens: TokenLogprob[];
  usage: Usage;
}

/**
 * The transient kinds, in Karenina's retry-class order: a later attempt may succeed. The one list
 * every other derives from (retry classes and their ledger, failure categories of the retry group).
 * rate_limit: 429; server_error: 5xx, 529 overloaded.
 */
export const TRANSIENT_KINDS = ["connection", "timeout", "rate_limit", "server_error"] as const;
export type TransientKind = (typeof TRANSIENT_KINDS)[number];

export const isTransientKind = (kind: string): kind is TransientKind => (TRANSIENT_KINDS as readonly string[]).includes(kind);

/**
 * Why a model call failed. Transient kinds may succeed on a later attempt; the queue consumer
 * decides whether to retry the job or record the failure (Karenina's retry group).
 */
export type LlmErrorKind =
  | TransientKind
  | "auth" // 401/403: a configuration problem, not transient
  | "bad_request" // 4xx other than the above
  | "invalid_output" // the model answered, but not in the requested shape
  | "unsupported"; // this adapter cannot do this operation

export interface LlmError {
  kind: LlmErrorKind;
  message: string;
  /** HTTP status when there was one. */
  status?: number;
  /** Provider's retry-after, in milliseconds. */
  retryAfterMs?: number;
  /** For invalid_output: what the model actually said (truncated). */
  raw?: string;
  /**
   * Set by the retry decorator when this error's class has used its whole retry budget: the job
   * must not be handed back to the queue for it again (Karenina's retry failure group).
   */
  exhausted?: boolean;
  /**
   * The call was never made: the key's shared limiter asked for a wait longer than a consumer
   * should hold. Handed back to the queue without spending a retry (no provider refused it).
   */
  deferred?: boolean;
  /** The call was never made because its run was cancelled (src/jobs/cancel-gate.ts): the job stops. */
  cancelled?: boolean;
}

export type LlmResult<T> = { ok: true; value: T } | { ok: false; error: LlmError };

export function isRetryable(error: LlmError): boolean {
  return isTransientKind(error.kind);
}

export interface ModelIdentityLike {
  interface: string;
  model_name: string;
}

export interface ModelPort {
  readonly identity: ModelIdentityLike;
  chat(req: ChatRequest): Promise<LlmResult<ChatResponse>>;
  structured<T>(req: StructuredRequest<T>): Promise<LlmResult<StructuredResponse<T>>>;
  embed(req: EmbedRequest): Promise<LlmResult<EmbedResponse>>;
  toolTurn(req: ToolTurnRequest): Promise<LlmResult<ToolTurnResponse>>;
  logprobs(req: LogprobsRequest): Promise<LlmResult<LogprobsResponse>>;
}

export const ok = <T>(value: T): LlmResult<T> => ({ ok: true, value });
export const fail = <T = never>(error: LlmError): LlmResult<T> => ({ ok: false, error });
export const unsupported = <T = never>(what: string): LlmResult<T> =>
  fail({ kind: "unsupported", message: `${what} is not supported by this adapter` });

/**
 * A port whose every operation runs through `run` (a decorator that does not look at the request:
 * retries, a deadline, scrubbing the result).
 */
export function wrapEveryCall(inner: ModelPort, run: <T>(call: () => Promise<LlmResult<T>>) => Promise<LlmResult<T>>): ModelPort {
  return {
    identity: inner.identity,
    chat: (req) => run(() => inner.chat(req)),
    structured: (req) => run(() => inner.structured(req)),
    embed: (req) => run(() => inner.embed(req)),
    toolTurn: (req) => run(() => inner.toolTurn(req)),
    logprobs: (req) => run(() => inner.logprobs(req)),
  };
}
