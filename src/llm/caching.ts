/**
 * The response cache, as a decorator around any `ModelPort` (opt-in per run).
 *
 * Key = SHA-256 of (model identity and parameters, operation, messages, schema/tools, and the
 * call site). The call site is the job's scope (question, answering model, replicate) plus the
 * request's own `call_site` (stage, judge unit path, repeat index): two replicates, or two
 * repeats of a judge unit, ask the same thing on purpose and must stay independent votes, so they
 * get different keys. A re-run of an identical spec has identical keys and makes no call.
 *
 * Only successes are stored. A structured hit is validated against the request's schema again,
 * so a stale entry can never become a value the schema refuses. Hits carry `usage.cached: true`.
 */
import { sha256Hex } from "../lib/sha256";
import type { ChatResponse, EmbedResponse, LlmResult, LogprobsResponse, ModelPort, ToolTurnResponse, Usage } from "./port";
import { validateValue } from "./structured";

/** Where cached responses live (R2 at the edge); `ttlSeconds` bounds how long an entry is served. */
export interface ResponseStore {
  get(key: string): Promise<unknown | null>;
  put(key: string, value: unknown, ttlSeconds: number): Promise<void>;
}

export interface CacheScope {
  /** What of the model config changes the answer (interface, model, base URL, temperature, …). */
  model: Record<string, unknown>;
  /** The job's part of the call site: question, answering model, replicate. */
  job: string;
  ttlSeconds: number;
}

/** Canonical JSON: object keys sorted, so equal requests hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

export async function cacheKey(scope: CacheScope, op: string, request: Record<string, unknown>): Promise<string> {
  const { call_site, ...rest } = request;
  const text = canonicalJson({ v: 1, model: scope.model, op, site: [scope.job, call_site ?? ""], request: rest });
  return sha256Hex(text);
}

const markCached = (usage: Usage): Usage => ({ ...usage, cached: true });

async function cached<T extends { usage: Usage }>(
  store: ResponseStore,
  scope: CacheScope,
  op: string,
  request: Record<string, unknown>,
  call: () => Promise<LlmResult<T>>,
): Promise<LlmResult<T>> {
  const key = await cacheKey(scope, op, request);
  const hit = (await store.get(key).catch(() => null)) as T | null;
  if (hit) return { ok: true, value: { ...hit, usage: markCached(hit.usage) } };
  const result = await call();
  // A store that cannot write costs a future call, never this result.
  if (result.ok) await store.put(key, result.value, scope.ttlSeconds).catch(() => undefined);
  return result;
}

export function cachingPort(inner: ModelPort, store: ResponseStore, scope: CacheScope): ModelPort {
  return {
    identity: inner.identity,
    chat: (req) => cached<ChatResponse>(store, scope, "chat", { ...req }, () => inner.chat(req)),
    embed: (req) => cached<EmbedResponse>(store, scope, "embed", { ...req }, () => inner.embed(req)),
    toolTurn: (req) => cached<ToolTurnResponse>(store, scope, "tool_turn", { ...req }, () => inner.toolTurn(req)),
    logprobs: (req) => cached<LogprobsResponse>(store, scope, "logprobs", { ...req }, () => inner.logprobs(req)),
    structured: async (req) => {
      const { schema, ...wire } = req;
      void schema; // the zod schema is not data; jsonSchema + schemaName stand for it in the key
      const key = await cacheKey(scope, "structured", wire);
      const hit = (await store.get(key).catch(() => null)) as { value: unknown; raw: string; usage: Usage } | null;
      if (hit) {
        const checked = await validateValue(hit.value, hit.raw, req.schema);
        if (checked.ok) return { ok: true, value: { ...checked.value, usage: markCached(hit.usage) } };
      }
      const result = await inner.structured(req);
      if (result.ok) await store.put(key, result.value, scope.ttlSeconds).catch(() => undefined);
      return result;
    },
  };
}
