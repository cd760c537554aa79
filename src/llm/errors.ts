/**
 * What the provider adapters share when turning a failed call into an `LlmError`: the HTTP status →
 * kind table, `retry-after` parsing, and scrubbing (keys out, length bounded). Each adapter maps its
 * failures in exactly one function (`postOpenAI` in openai-wire.ts, `anthropicError`), which defers
 * to `httpError` here for anything with a status.
 */
import type { LlmError, LlmErrorKind } from "./port";

/** Longest error message we pass on. */
export const MESSAGE_LIMIT = 500;
/** Longest error text from a provider's answer (issue 16: the target's own words, bounded tighter). */
export const PROVIDER_TEXT_LIMIT = 300;
/** Longest model output kept on an `invalid_output` error. */
export const RAW_LIMIT = 2_000;

/**
 * 429 → rate_limit · 401/403 → auth · 408 → timeout (the server gave up waiting; retryable) ·
 * 5xx and 529 → server_error · other 4xx → bad_request.
 */
export function kindForStatus(status: number): LlmErrorKind {
  if (status === 429) return "rate_limit";
  if (status === 401 || status === 403) return "auth";
  if (status === 408) return "timeout";
  if (status >= 500) return "server_error";
  if (status >= 400) return "bad_request";
  return "server_error"; // an error without an error status: the provider misbehaved
}

/**
 * Milliseconds to wait, from `retry-after-ms` (OpenAI), or `retry-after` in seconds or as an
 * HTTP date (relative to `now`). Undefined when absent or unreadable.
 */
export function retryAfterMs(headers: Headers | null | undefined, now: number): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Math.round(Number(ms));
  const ra = headers.get("retry-after");
  if (ra === null || ra.trim() === "") return undefined;
  const seconds = Number(ra);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}… [${s.length - max} more chars]`;
}

/** Removes every secret from `text` and bounds its length. */
export function scrub(text: string, secrets: readonly string[], max = MESSAGE_LIMIT): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join("[redacted]");
  return truncate(out, max);
}

/**
 * OpenAI's answer when the account has no credit left: a 429 whose error code is
 * `insufficient_quota`. No retry or wait cures it, so it is not a rate limit.
 */
export const QUOTA_CODE = "insufficient_quota";

/** An error that came with an HTTP status; `code` is the provider's error code when it gave one. */
export function httpError(
  status: number,
  message: string,
  headers: Headers | null | undefined,
  ctx: { secrets: readonly string[]; now: number },
  code?: string | null,
): LlmError {
  if (status === 429 && code === QUOTA_CODE) {
    return {
      kind: "bad_request",
      status,
      message: scrub(
        `the provider account's quota is spent (${QUOTA_CODE}); retrying will not help: ${message}`,
        ctx.secrets,
        PROVIDER_TEXT_LIMIT,
      ),
    };
  }
  const kind = kindForStatus(status);
  const error: LlmError = { kind, status, message: scrub(message, ctx.secrets, PROVIDER_TEXT_LIMIT) };
  const wait = retryAfterMs(headers, ctx.now);
  if (wait !== undefined && (kind === "rate_limit" || kind === "server_error")) error.retryAfterMs = wait;
  return error;
}

/** Message of an unknown thrown value, with its cause when it has one (connection errors hide it there). */
/**
 * A connection failure names where it tried to connect: "Network connection lost." alone does
 * not show that a base_url points at the wrong host or port. The URL is a base URL from the
 * model config (never a key); the caller still scrubs secrets from the result.
 */
export function connectionMessage(e: unknown, url: string | undefined): string {
  return url ? `could not connect to ${url}: ${describeThrown(e)}` : describeThrown(e);
}

export function describeThrown(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as { cause?: unknown }).cause;
  const causeText = cause instanceof Error ? `: ${cause.message}` : "";
  return `${e.message}${causeText}`;
}
