/**
 * The two OpenAI endpoints edgeval calls (`/chat/completions`, `/embeddings`), as one plain fetch
 * each. The OpenAI SDK spent ~190 µs of workerd CPU per call on top of the fetch itself (~110 µs;
 * bench/binding-costs `openai-sdk` against `fetch`): request options, header merging, debug
 * formatting and retry plumbing we never use (`maxRetries: 0`, the queue owns retries). A job
 * makes two calls per result, so that was the largest share of a result's CPU left in the worker.
 *
 * What the SDK did that callers rely on is kept here, and only that: the base URL used exactly as
 * written (a trailing slash allowed), a bearer key, the call's timeout, and its error classes as
 * `LlmError`s — a status error carries the SDK's message (`"<status> <error.message>"`, or
 * `"<status> status code (no body)"`) and the body's `error.code` / `error.type`; a fetch that throws
 * is `connection` (naming the base URL); the timeout is `timeout`; a 2xx that is not JSON is the
 * provider misbehaving (`server_error`). Secrets are scrubbed from every message.
 */
import { connectionMessage, describeThrown, httpError, scrub } from "./errors";
import { fail, ok, type LlmResult } from "./port";

export interface OpenAIWire {
  baseURL: string;
  apiKey: string;
  timeoutMs: number;
  fetch?: typeof fetch;
  now?: () => number;
}

/** POSTs `body` as JSON to `path` under the base URL; the parsed JSON answer, or the call's `LlmError`. */
export async function postOpenAI<T>(wire: OpenAIWire, path: string, body: unknown): Promise<LlmResult<T>> {
  const url = wire.baseURL.endsWith("/") ? `${wire.baseURL}${path.slice(1)}` : `${wire.baseURL}${path}`;
  const secrets = [wire.apiKey];
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, wire.timeoutMs);
  try {
    let res: Response;
    try {
      res = await (wire.fetch ?? fetch)(url, {
        method: "POST",
        headers: { accept: "application/json", "content-type": "application/json", authorization: `Bearer ${wire.apiKey}` },
        body: JSON.stringify(body),
        signal: controller.signal,
      });
    } catch (e) {
      if (timedOut) return fail({ kind: "timeout", message: "request timed out" });
      return fail({ kind: "connection", message: scrub(connectionMessage(e, wire.baseURL), secrets) });
    }
    const text = await res.text();
    if (!res.ok) {
      const parsed = safeJson(text) as { error?: unknown } | undefined;
      // As the SDK's makeStatusError: a JSON body without an `error` member is the error itself.
      const error = (parsed && typeof parsed === "object" && parsed.error == null ? parsed : parsed?.error) as
        | { message?: unknown; code?: unknown; type?: unknown }
        | undefined;
      const code = typeof error?.code === "string" ? error.code : typeof error?.type === "string" ? error.type : null;
      const message = statusMessage(res.status, error, parsed === undefined ? text : undefined);
      return fail(httpError(res.status, message, res.headers, { secrets, now: (wire.now ?? Date.now)() }, code));
    }
    const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim();
    if (!type.includes("application/json") && !type.endsWith("+json")) return ok(text as T);
    return ok(JSON.parse(text) as T);
  } catch (e) {
    if (timedOut) return fail({ kind: "timeout", message: "request timed out" });
    // e.g. a 200 whose body is not JSON, or a body cut off: the provider misbehaved
    return fail({ kind: "server_error", message: scrub(`unexpected error: ${describeThrown(e)}`, secrets) });
  } finally {
    clearTimeout(timer);
  }
}

/** The OpenAI SDK's status error message (APIError.makeMessage), which error texts and tests have always read. */
function statusMessage(status: number, error: { message?: unknown } | undefined, text: string | undefined): string {
  const msg = error?.message
    ? typeof error.message === "string"
      ? error.message
      : JSON.stringify(error.message)
    : error
      ? JSON.stringify(error)
      : text || undefined;
  return msg ? `${status} ${msg}` : `${status} status code (no body)`;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
