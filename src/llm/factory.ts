/**
 * Choosing and building the adapter for a model, at the edge.
 *
 * - `base_url` is the SDK `baseURL` exactly as written (no /v1 appended); without it each SDK's
 *   default (api.openai.com/v1, api.anthropic.com).
 * - Keys come only from `secret(name)`: openai → `api_key_secret ?? "OPENAI_API_KEY"`,
 *   anthropic → `api_key_secret ?? "ANTHROPIC_API_KEY"`, openai_compatible → `api_key_secret` when
 *   given, else no key (a placeholder the SDK accepts is sent), manual and workers_ai → none
 *   (workers_ai needs the `AI` binding, passed as `opts.ai`).
 * - `createModelPort` never throws: a missing key or a client that cannot be configured gives a
 *   port whose every call fails (`auth` / `bad_request`). `missingSecret` lets the HTTP layer
 *   reject such a run up front with a 400.
 * - Keys never appear in errors, logs or returned values (adapters scrub SDK messages).
 */
import { AnthropicAdapter } from "./anthropic";
import { describeThrown, scrub } from "./errors";
import { ManualPort } from "./manual";
import { OpenAIAdapter } from "./openai";
import { WorkersAiAdapter, type AiBinding } from "./workers-ai";
import {
  fail,
  type ChatResponse,
  type EmbedResponse,
  type LlmError,
  type LlmResult,
  type LogprobsResponse,
  type ModelIdentityLike,
  type ModelPort,
  type StructuredResponse,
  type ToolTurnResponse,
} from "./port";

export type ModelInterface = "openai" | "anthropic" | "openai_compatible" | "manual" | "workers_ai";

/** A model config after normalisation (Karenina aliases resolved by the config schema). */
export type ResolvedModel = {
  id: string;
  interface: ModelInterface;
  model_name: string;
  base_url?: string;
  temperature?: number;
  max_tokens?: number;
  api_key_secret?: string;
};

export type SecretLookup = (name: string) => string | undefined;

export interface CreateModelPortOptions {
  /** Per-call timeout; default 120 s (Karenina's request_timeout). */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** The worker's `AI` binding, for `workers_ai` models. */
  ai?: AiBinding;
  /**
   * When given, a model whose key may not go where it points (the check returns why) gets a port
   * that fails with `auth` and never sends the key (src/llm/key-origins.ts, src/tenants/key-ring.ts).
   */
  keyDestination?: (model: ResolvedModel, secretName: string | null) => string | null;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
/** Sent as the key to OpenAI-compatible servers that need none (the SDK insists on one). */
export const NO_KEY_PLACEHOLDER = "no-key-required";

/** The secret this model needs, or null when it needs none. */
export function requiredSecretName(model: Pick<ResolvedModel, "interface" | "api_key_secret">): string | null {
  switch (model.interface) {
    case "openai":
      return model.api_key_secret ?? "OPENAI_API_KEY";
    case "anthropic":
      return model.api_key_secret ?? "ANTHROPIC_API_KEY";
    case "openai_compatible":
      return model.api_key_secret ?? null;
    case "manual":
    case "workers_ai":
      return null;
  }
}

/** The name of a secret this model requires that is not set (empty counts as unset), or null. */
export function missingSecret(model: Pick<ResolvedModel, "interface" | "api_key_secret">, secret: SecretLookup): string | null {
  const name = requiredSecretName(model);
  if (name === null) return null;
  return secret(name) ? null : name;
}

export function createModelPort(model: ResolvedModel, secret: SecretLookup, opts: CreateModelPortOptions = {}): ModelPort {
  const identity = { id: model.id, interface: model.interface, model_name: model.model_name };
  if (model.interface === "manual") return new ManualPort(model);
  if (model.interface === "workers_ai") {
    if (!opts.ai)
      return failingPort(identity, {
        kind: "bad_request",
        message: `model ${model.id} uses workers_ai, but the worker has no AI binding ([ai] binding = "AI" in wrangler.toml)`,
      });
    const { temperature, max_tokens } = model;
    return new WorkersAiAdapter({
      id: model.id,
      model_name: model.model_name,
      ai: opts.ai,
      temperature,
      max_tokens,
      timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
  }

  if (opts.keyDestination) {
    const issue = opts.keyDestination(model, requiredSecretName(model));
    if (issue) return failingPort(identity, { kind: "auth", message: `model ${model.id}: ${issue}` });
  }
  const name = requiredSecretName(model);
  const key = name === null ? NO_KEY_PLACEHOLDER : secret(name);
  if (!key) return failingPort(identity, { kind: "auth", message: `secret ${name} is not set for model ${model.id}` });

  const common = {
    id: model.id,
    model_name: model.model_name,
    apiKey: key,
    temperature: model.temperature,
    max_tokens: model.max_tokens,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(model.base_url !== undefined ? { baseURL: model.base_url } : {}),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  };
  try {
    return model.interface === "anthropic" ? new AnthropicAdapter(common) : new OpenAIAdapter({ ...common, interface: model.interface });
  } catch (e) {
    const message = scrub(`cannot configure the ${model.interface} client: ${describeThrown(e)}`, [key]);
    return failingPort(identity, { kind: "bad_request", message });
  }
}

/** A port whose every operation fails with `error` (a configuration problem found at build time). */
function failingPort(identity: ModelIdentityLike & { id: string }, error: LlmError): ModelPort {
  const f = async <T>(): Promise<LlmResult<T>> => fail(error);
  return {
    identity,
    chat: f<ChatResponse>,
    structured: <T>() => f<StructuredResponse<T>>(),
    embed: f<EmbedResponse>,
    toolTurn: f<ToolTurnResponse>,
    logprobs: f<LogprobsResponse>,
  };
}
