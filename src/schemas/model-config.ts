/**
 * Model configs: edgeval's shape, plus Karenina's `ModelConfig` spellings (`extra="forbid"`).
 *
 * Input accepted:
 *   interface   openai | anthropic | openai_compatible | manual, or Karenina's
 *               `langchain` (the default when absent; resolved by `model_provider`:
 *               openai → openai, anthropic → anthropic, anything else is an error) and
 *               `openai_endpoint` (→ openai_compatible).
 *   base_url    or Karenina's `endpoint_base_url`.
 *   workers_ai  Cloudflare Workers AI through the worker's `AI` binding (model_name like
 *               "@cf/meta/llama-3.1-8b-instruct"; no key).
 *   max_retries accepted and unused (Karenina uses it for template generation only).
 *   MCP    mcp_urls_dict (+ mcp_tool_filter, mcp_tool_description_overrides, mcp_http_timeout,
 *          mcp_sse_read_timeout, agent_timeout, agent_middleware.limits, and edgeval's own
 *          mcp_auth_secrets) make the answering model a tool-using agent (src/pipeline/agent).
 *   Karenina fields edgeval does not implement (agent runtimes, per-model keys, …) are accepted
 *   only when null. `endpoint_api_key` / `anthropic_api_key` in particular can never carry a
 *   value: keys come from worker secrets, named by `api_key_secret`.
 * Output: the normalised `ModelConfig` below, with Karenina's defaults (temperature 0.1,
 * max_tokens 16384; a manual model is id "manual", model_name "manual" unless given).
 */
import { z } from "zod";
import { mayHoldKey, WIRE_PARSE, wireIssues } from "../lib/wire-issues";
import { RequestTimeout, RetryPolicyConfig } from "./retry-policy";
import { TraceMessage } from "./trace-message";
import type { Message as TraceMessageOut } from "./message";

export const INTERFACES = ["openai", "anthropic", "openai_compatible", "manual", "workers_ai"] as const;
export type Interface = (typeof INTERFACES)[number];
const ACCEPTED_INTERFACES = [...INTERFACES, "langchain", "openai_endpoint"] as const;

export const DEFAULT_TEMPERATURE = 0.1;
export const DEFAULT_MAX_TOKENS = 16384;

export const Message = z.strictObject({
  role: z.enum(["system", "user", "assistant", "tool"], { error: 'role is "system", "user", "assistant" or "tool"' }),
  content: z.string({ error: "content must be a string" }),
});
export type Message = z.output<typeof Message>;

/**
 * A recorded answer: the final text, or a trace of messages in edgeval's, OpenAI's, LangChain's or
 * Karenina's message shape (normalised by `TraceMessage`).
 */
export const ManualAnswer = z.unknown().transform((value, ctx): string | TraceMessageOut[] => {
  if (typeof value === "string") return value;
  // Not a z.union: a union would hide which message and which key of a trace is wrong.
  if (!Array.isArray(value)) {
    ctx.addIssue({
      code: "custom",
      message: "a manual answer is a string or a list of messages ({role, content} or LangChain {type, content})",
    });
    return z.NEVER;
  }
  const trace = z.array(TraceMessage).min(1, { error: "a trace needs at least one message" }).safeParse(value, WIRE_PARSE);
  if (trace.success) return trace.data;
  for (const issue of trace.error.issues) {
    for (const i of wireIssues(issue)) ctx.addIssue({ code: "custom", message: i.message, path: i.path as (string | number)[] });
  }
  return z.NEVER;
});

const UNSUPPORTED_KARENINA_FIELDS = [
  "endpoint_api_key",
  "anthropic_base_url",
  "anthropic_api_key",
  "agent_runtime",
  "extra_kwargs",
  "max_context_tokens",
  "manual_traces",
] as const;

function nullOnly(field: string) {
  if (field === "endpoint_api_key" || field === "anthropic_api_key") {
    const message = `${field} is not supported: API keys are never accepted in a config; store the key as a secret (PUT /v1/secrets/NAME) and name it in api_key_secret; leave it null or omit it`;
    return z.null({ error: mayHoldKey(message) }).optional();
  }
  return z.null({ error: `${field} is not supported: edgeval does not support it yet; leave it null or omit it` }).optional();
}

type UnsupportedField = (typeof UNSUPPORTED_KARENINA_FIELDS)[number];
const unsupportedShape = Object.fromEntries(UNSUPPORTED_KARENINA_FIELDS.map((f) => [f, nullOnly(f)])) as {
  [K in UnsupportedField]: ReturnType<typeof nullOnly>;
};

const SECRET_NAME = /^[A-Z][A-Z0-9_]*$/;
const ApiKeySecret = z
  .string()
  // The key itself is a common mistake here: the message names what to do and never quotes it.
  .regex(SECRET_NAME, {
    error: mayHoldKey(
      "api_key_secret must be the name of a worker secret, like OPENAI_API_KEY (A-Z, 0-9, _); a key itself goes in PUT /v1/secrets/NAME, and NAME here",
    ),
  })
  .refine((s) => s !== "EDGEVAL_API_TOKEN", {
    error: "api_key_secret must not be EDGEVAL_API_TOKEN: that secret guards edgeval's own API",
  });

const HttpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });
const seconds = (field: string) =>
  z.number({ error: `${field} must be a number of seconds` }).positive({ error: `${field} must be > 0 seconds` });
const callLimit = (field: string) =>
  z
    .number()
    .int({ error: `${field} must be an integer ≥ 1` })
    .min(1, { error: `${field} must be an integer ≥ 1` });

/**
 * Karenina's agent_middleware: only its `limits` part is honoured (model and tool call limits;
 * exit_behavior "end", the only one edgeval has: the run ends and stage 3 fails it). The other
 * parts (retries, summarisation, prompt caching) tune LangChain middleware edgeval does not run.
 */
const AgentMiddleware = z.strictObject(
  {
    limits: z
      .strictObject({
        model_call_limit: callLimit("agent_middleware.limits.model_call_limit").nullish(),
        tool_call_limit: callLimit("agent_middleware.limits.tool_call_limit").nullish(),
        exit_behavior: z.literal("end", { error: 'agent_middleware.limits.exit_behavior: only "end" is supported' }).nullish(),
      })
      .nullish(),
    model_retry: z.null({ error: "agent_middleware.model_retry is not supported: model calls use the model's retry_policy" }).nullish(),
    tool_retry: z.null({ error: "agent_middleware.tool_retry is not supported: a failing tool call is reported to the agent" }).nullish(),
    summarization: z.null({ error: "agent_middleware.summarization is not supported yet" }).nullish(),
    prompt_caching: z.null({ error: "agent_middleware.prompt_caching is not supported yet" }).nullish(),
  },
  { error: "agent_middleware is an object with limits: {model_call_limit, tool_call_limit}" },
);

/** The answering agent's MCP servers and limits, normalised (src/pipeline/agent, src/mcp). */
export interface McpConfig {
  /** Server name → streamable-HTTP URL (Karenina's mcp_urls_dict). */
  servers: Record<string, string>;
  tool_filter?: string[];
  description_overrides?: Record<string, string>;
  /** Seconds per HTTP request to a server (Karenina's default 30). */
  http_timeout_s?: number;
  /** Seconds to wait for an event-stream answer to finish (Karenina's default 300). */
  sse_read_timeout_s?: number;
  /** Server name → tenant secret sent as `Authorization: Bearer …` (edgeval's own field; never the value inline). */
  auth_secrets?: Record<string, string>;
}

export interface AgentConfig {
  model_call_limit?: number;
  tool_call_limit?: number;
  timeout_s?: number;
}

const ModelConfigInput = z.strictObject({
  id: z.string().min(1, { error: "id must not be empty" }).nullish(),
  interface: z.string().optional(),
  model_provider: z.string().nullish(),
  model_name: z.string().min(1, { error: "model_name must not be empty" }).nullish(),
  base_url: HttpUrl.nullish(),
  endpoint_base_url: HttpUrl.nullish(),
  temperature: z
    .number({ error: "temperature must be a number" })
    .min(0, { error: "temperature must be ≥ 0" })
    .default(DEFAULT_TEMPERATURE),
  max_tokens: z
    .number()
    .int({ error: "max_tokens must be an integer" })
    .positive({ error: "max_tokens must be > 0" })
    .default(DEFAULT_MAX_TOKENS),
  system_prompt: z.string().nullish(),
  api_key_secret: ApiKeySecret.nullish(),
  manual_answers: z.record(z.string(), ManualAnswer, { error: "manual_answers maps question ids to answers" }).nullish(),
  max_retries: z.number().int().min(0, { error: "max_retries must be an integer ≥ 0" }).nullish(),
  /** Seconds one call to this model may take; unset: the run's request_timeout, else the deployment's. */
  request_timeout: RequestTimeout.nullish(),
  /** Karenina's per-class retry budgets and backoff for this model; unset: the run's, else Karenina's defaults. */
  retry_policy: RetryPolicyConfig.nullish(),
  mcp_urls_dict: z
    .record(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { error: "an MCP server name is 1-64 of A-Z a-z 0-9 _ -" }), HttpUrl, {
      error: "mcp_urls_dict maps server names to http(s) URLs",
    })
    .nullish(),
  mcp_tool_filter: z.array(z.string(), { error: "mcp_tool_filter is a list of tool names" }).nullish(),
  mcp_tool_description_overrides: z
    .record(z.string(), z.string(), { error: "mcp_tool_description_overrides maps tool names to descriptions" })
    .nullish(),
  mcp_http_timeout: seconds("mcp_http_timeout").nullish(),
  mcp_sse_read_timeout: seconds("mcp_sse_read_timeout").nullish(),
  /** edgeval's own: MCP server name → tenant secret name, sent as a bearer token. */
  mcp_auth_secrets: z
    .record(
      z.string(),
      z.string().regex(SECRET_NAME, {
        error: mayHoldKey(
          "must be the name of a secret, like MCP_TOKEN (A-Z, 0-9, _); a token itself goes in PUT /v1/secrets/NAME, and NAME here",
        ),
      }),
    )
    .nullish(),
  agent_timeout: seconds("agent_timeout").nullish(),
  agent_middleware: AgentMiddleware.nullish(),
  ...unsupportedShape,
});
type RawModelConfig = Omit<z.output<typeof ModelConfigInput>, "temperature"> & { temperature?: number };

export interface ModelConfig {
  id: string;
  interface: Interface;
  model_name: string;
  base_url?: string;
  /** Absent only for a compound judge's model given without one: the provider's own default applies. */
  temperature?: number;
  max_tokens: number;
  system_prompt?: string;
  api_key_secret?: string;
  manual_answers?: Record<string, string | Message[]>;
  request_timeout?: number;
  retry_policy?: RetryPolicyConfig;
  /** MCP servers (Karenina's fields, kept as given): the answering model runs as a tool-using agent; read through `mcpConfig`. */
  mcp_urls_dict?: Record<string, string>;
  mcp_tool_filter?: string[];
  mcp_tool_description_overrides?: Record<string, string>;
  mcp_http_timeout?: number;
  mcp_sse_read_timeout?: number;
  mcp_auth_secrets?: Record<string, string>;
  /** The agent's limits; read through `agentConfig`. */
  agent_timeout?: number;
  agent_middleware?: z.output<typeof AgentMiddleware>;
}

type Issue = { path: string; message: string };

/** Karenina's interface aliases → edgeval's interface, or what is wrong. */
function resolveInterface(raw: RawModelConfig): Interface | Issue {
  const name = raw.interface ?? "langchain";
  const provider = raw.model_provider ?? undefined;
  if (!(ACCEPTED_INTERFACES as readonly string[]).includes(name)) {
    return {
      path: "interface",
      message: `interface "${name}" is not supported; use one of ${INTERFACES.join(", ")} (or Karenina's langchain / openai_endpoint)`,
    };
  }
  if (name === "langchain") {
    if (provider === "openai" || provider === "anthropic") return provider;
    const got = provider === undefined ? "no model_provider" : `model_provider "${provider}"`;
    return {
      path: "model_provider",
      message: `interface "langchain" (Karenina's default) is resolved by model_provider, which must be "openai" or "anthropic"; got ${got}. For another OpenAI-compatible server use interface "openai_compatible" with base_url`,
    };
  }
  const resolved: Interface = name === "openai_endpoint" ? "openai_compatible" : (name as Interface);
  if ((resolved === "openai" || resolved === "anthropic") && provider !== undefined && provider !== resolved) {
    return { path: "model_provider", message: `model_provider "${provider}" contradicts interface "${resolved}"` };
  }
  return resolved;
}

function crossFieldIssues(raw: RawModelConfig, iface: Interface): Issue[] {
  const issues: Issue[] = [];
  const baseUrl = raw.base_url ?? raw.endpoint_base_url;
  if (raw.base_url && raw.endpoint_base_url && raw.base_url !== raw.endpoint_base_url) {
    issues.push({ path: "endpoint_base_url", message: "give base_url or endpoint_base_url, not two different URLs" });
  }
  if (iface === "openai_compatible" && !baseUrl) {
    issues.push({ path: "base_url", message: 'interface "openai_compatible" needs base_url (Karenina: endpoint_base_url)' });
  }
  if (iface === "manual") {
    if (!raw.manual_answers)
      issues.push({ path: "manual_answers", message: 'interface "manual" needs manual_answers: {question id: answer}' });
  } else {
    if (!raw.id) issues.push({ path: "id", message: "id is required (it names the model in results)" });
    if (!raw.model_name) issues.push({ path: "model_name", message: `model_name is required for interface "${iface}"` });
    if (raw.manual_answers) issues.push({ path: "manual_answers", message: 'manual_answers only applies to interface "manual"' });
  }
  issues.push(...mcpIssues(raw, iface));
  return issues;
}

const MCP_DEPENDENT = [
  "mcp_tool_filter",
  "mcp_tool_description_overrides",
  "mcp_http_timeout",
  "mcp_sse_read_timeout",
  "mcp_auth_secrets",
  "agent_timeout",
  "agent_middleware",
] as const;

function mcpIssues(raw: RawModelConfig, iface: Interface): Issue[] {
  const servers = raw.mcp_urls_dict;
  if (!servers) {
    return MCP_DEPENDENT.filter((f) => raw[f] != null).map((f) => ({
      path: f,
      message: `${f} applies to an MCP agent: it needs mcp_urls_dict`,
    }));
  }
  const issues: Issue[] = [];
  if (Object.keys(servers).length === 0)
    issues.push({ path: "mcp_urls_dict", message: "mcp_urls_dict needs at least one server (or leave it null)" });
  if (iface === "manual" || iface === "workers_ai")
    issues.push({ path: "mcp_urls_dict", message: `an MCP agent needs a tool-calling model; interface "${iface}" has none` });
  for (const name of Object.keys(raw.mcp_auth_secrets ?? {})) {
    if (!(name in servers))
      issues.push({ path: "mcp_auth_secrets", message: `mcp_auth_secrets names server "${name}", which is not in mcp_urls_dict` });
  }
  return issues;
}

/** The Karenina MCP fields a normalised config keeps (as given: a stored spec is parsed again by this schema). */
function mcpFieldsOf(raw: RawModelConfig): Partial<ModelConfig> {
  if (!raw.mcp_urls_dict) return {};
  const keep = ["mcp_urls_dict", ...MCP_DEPENDENT] as const;
  return Object.fromEntries(keep.filter((f) => raw[f] != null).map((f) => [f, raw[f]])) as Partial<ModelConfig>;
}

/** An answering agent's MCP servers and options, or null for a plain model. */
export function mcpConfig(model: ModelConfig): McpConfig | null {
  if (!model.mcp_urls_dict) return null;
  return {
    servers: model.mcp_urls_dict,
    ...(model.mcp_tool_filter ? { tool_filter: model.mcp_tool_filter } : {}),
    ...(model.mcp_tool_description_overrides ? { description_overrides: model.mcp_tool_description_overrides } : {}),
    ...(model.mcp_http_timeout != null ? { http_timeout_s: model.mcp_http_timeout } : {}),
    ...(model.mcp_sse_read_timeout != null ? { sse_read_timeout_s: model.mcp_sse_read_timeout } : {}),
    ...(model.mcp_auth_secrets ? { auth_secrets: model.mcp_auth_secrets } : {}),
  };
}

/** The agent's limits the config sets (Karenina's agent_timeout and agent_middleware.limits). */
export function agentConfig(model: ModelConfig): AgentConfig {
  const limits = model.agent_middleware?.limits;
  return {
    ...(limits?.model_call_limit != null ? { model_call_limit: limits.model_call_limit } : {}),
    ...(limits?.tool_call_limit != null ? { tool_call_limit: limits.tool_call_limit } : {}),
    ...(model.agent_timeout != null ? { timeout_s: model.agent_timeout } : {}),
  };
}

function normalise(raw: RawModelConfig, ctx: z.RefinementCtx<unknown>): ModelConfig {
  const iface = resolveInterface(raw);
  const issues = typeof iface === "string" ? crossFieldIssues(raw, iface) : [iface];
  if (issues.length > 0 || typeof iface !== "string") {
    for (const i of issues) ctx.issues.push({ code: "custom", path: [i.path], message: i.message, input: raw });
    return z.NEVER;
  }
  const baseUrl = raw.base_url ?? raw.endpoint_base_url;
  return {
    id: raw.id ?? "manual",
    interface: iface,
    model_name: raw.model_name ?? "manual",
    ...(baseUrl ? { base_url: baseUrl } : {}),
    ...(raw.temperature !== undefined ? { temperature: raw.temperature } : {}),
    max_tokens: raw.max_tokens,
    ...(raw.system_prompt != null ? { system_prompt: raw.system_prompt } : {}),
    ...(raw.api_key_secret ? { api_key_secret: raw.api_key_secret } : {}),
    ...(raw.manual_answers ? { manual_answers: raw.manual_answers } : {}),
    ...(raw.request_timeout != null ? { request_timeout: raw.request_timeout } : {}),
    ...(raw.retry_policy != null ? { retry_policy: raw.retry_policy } : {}),
    ...mcpFieldsOf(raw),
  };
}

export const ModelConfig = ModelConfigInput.transform(normalise);
export type ModelConfigInput = z.input<typeof ModelConfig>;

/**
 * A compound judge's model (schemas/judge.ts): the same fields, but no temperature unless given,
 * so the provider's own default applies — Verdict's `.via(model)` sends none, and an ensemble at
 * Karenina's parsing default 0.1 would sample near-copies instead of votes.
 */
export const JudgeModelConfig = ModelConfigInput.extend({
  temperature: z.number({ error: "temperature must be a number" }).min(0, { error: "temperature must be ≥ 0" }).optional(),
}).transform(normalise);
