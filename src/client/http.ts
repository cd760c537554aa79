/**
 * The client's one way to the server: bearer auth, JSON in and out, and every non-2xx turned into
 * an EdgevalApiError carrying the server's error code, message, field issues and request id.
 */
import type { ApiErrorBody } from "./types.ts";

export interface ClientOptions {
  /** The deployment's origin, e.g. http://127.0.0.1:8787 (a trailing /v1 is accepted). */
  url: string;
  /** An API key (ev_…) or the deployment's EDGEVAL_API_TOKEN. */
  token: string;
  /** Defaults to the global fetch; tests pass one that records or routes requests. */
  fetch?: typeof fetch;
  /** Per request; default 120 s. */
  timeoutMs?: number;
}

type ErrorDetail = ApiErrorBody["error"];

export class EdgevalApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly issues: NonNullable<ErrorDetail["issues"]>;
  readonly requestId: string | undefined;
  /** The server's own message (what to do), without the method and path. */
  readonly serverMessage: string;
  // Declared fields, not parameter properties: Node's type stripping runs only erasable syntax.
  readonly method: string;
  readonly path: string;
  /** The server's Retry-After (a 429, a 503), in milliseconds; undefined when it sent none. */
  readonly retryAfterMs: number | undefined;
  constructor(method: string, path: string, status: number, detail: Partial<ErrorDetail> | undefined, fallback: string, headers?: Headers) {
    const issues = detail?.issues ?? [];
    const listed = issues.length > 1 ? `\n${issues.map((i) => `  ${i.path}: ${i.message}`).join("\n")}` : "";
    super(`${method} ${path} → ${status} ${detail?.code ?? "error"}: ${detail?.message ?? fallback}${listed}`);
    this.name = "EdgevalApiError";
    this.method = method;
    this.path = path;
    this.status = status;
    this.code = detail?.code ?? "unknown";
    this.issues = issues;
    this.requestId = detail?.request_id;
    this.serverMessage = detail?.message ?? fallback;
    this.retryAfterMs = retryAfterMs(headers?.get("retry-after"), Date.now());
  }

  /** The server has no such route (as opposed to no such resource): a feature it does not have yet. */
  get routeMissing(): boolean {
    return this.status === 404 && this.code === "not_found" && this.serverMessage.startsWith("no route ");
  }
}

/**
 * A request that got no answer: the connection was refused or reset, or the request's own timeout
 * passed. The message names the URL and asks whether the server runs there.
 */
export class EdgevalConnectionError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = "EdgevalConnectionError";
  }
}

/**
 * Retry-After in milliseconds: delay-seconds, or an HTTP date relative to `now`. Written here, not
 * imported from src/llm/errors.ts, because the client loads nothing of the server at run time.
 */
function retryAfterMs(value: string | null | undefined, now: number): number | undefined {
  if (!value?.trim()) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

interface JsonInit {
  body?: unknown;
  headers?: Record<string, string>;
  contentType?: string;
  /** The caller's overall bound; the request's own timeout (timeoutMs) still applies within it. */
  signal?: AbortSignal;
}

export interface Transport {
  json<T>(method: string, path: string, init?: JsonInit): Promise<T>;
  text(method: string, path: string, headers?: Record<string, string>): Promise<{ text: string; headers: Headers }>;
  raw(method: string, path: string, headers?: Record<string, string>, signal?: AbortSignal): Promise<Response>;
  readonly base: string;
}

/** Why `base` cannot be the server's address (said before any request), or null. */
function badBase(base: string): string | null {
  const url = URL.canParse(base) ? new URL(base) : null;
  // "localhost:8787" parses as a URL of scheme "localhost:", and fetch would fail as if no server ran there.
  if (url?.protocol !== "http:" && url?.protocol !== "https:") {
    return `${base} is not an http:// or https:// URL: give the server as e.g. http://${base} (--url, EDGEVAL_URL)`;
  }
  // fetch refuses a URL with credentials, and its error would print them: name the URL without them.
  if (url.username || url.password) {
    const path = url.pathname.replace(/\/+$/, "");
    return `${url.protocol}//***:***@${url.host}${path} holds a user name and password, which fetch refuses to send: give the server as ${url.protocol}//${url.host}${path} and the API key as the token (--token, EDGEVAL_TOKEN)`;
  }
  return null;
}

export function transport(opts: ClientOptions): Transport {
  const base = opts.url.replace(/\/+$/, "").replace(/\/v1$/, "");
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const badUrl = badBase(base);

  /**
   * One request, within the caller's `signal` if any and the request's own timeout (timeoutMs).
   * That timeout bounds a `bounded` request (JSON) to its end, but a stream (an export, the event
   * stream) only until its answer begins: a file of a huge run may take longer than it to arrive,
   * and a body that stalls is fetch's own bodyTimeout's.
   */
  async function raw(
    method: string,
    path: string,
    o: { headers?: Record<string, string>; body?: string; signal?: AbortSignal; bounded?: boolean } = {},
  ): Promise<{ res: Response; done: () => void }> {
    if (badUrl) throw new Error(badUrl);
    const own = new AbortController();
    const timer = setTimeout(() => own.abort(new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError")), timeoutMs);
    const signal = o.signal ? AbortSignal.any([o.signal, own.signal]) : own.signal;
    let res: Response;
    let text: string;
    try {
      res = await doFetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${opts.token}`, ...o.headers },
        body: o.body,
        signal,
      });
      if (!o.bounded) clearTimeout(timer);
      // A bounded request's caller reads the body, then calls done.
      if (res.ok) return { res, done: () => clearTimeout(timer) };
      text = await res.text();
      clearTimeout(timer);
    } catch (err) {
      clearTimeout(timer);
      throw noAnswer(method, path, err, o.signal);
    }
    let detail: Partial<ErrorDetail> | undefined;
    try {
      // edgeval's errors always carry a code and a message; an OpenAI-style {error: {message, type}} is another server's.
      const error = (JSON.parse(text) as ApiErrorBody).error;
      detail = typeof error?.code === "string" && typeof error.message === "string" ? error : undefined;
    } catch {
      detail = undefined;
    }
    throw new EdgevalApiError(method, path, res.status, detail, detail ? res.statusText : notEdgeval(res, text, base), res.headers);
  }

  /** Why a request got no answer; the caller's own abort is rethrown as its reason, not as a server problem. */
  function noAnswer(method: string, path: string, err: unknown, signal?: AbortSignal): unknown {
    if (signal?.aborted) return signal.reason;
    // The request's own timeout: the server is there but slow or stuck; fetch says only "aborted due to timeout".
    if ((err as Error).name === "TimeoutError") {
      return new EdgevalConnectionError(
        `${method} ${base}${path}: no answer within ${timeoutMs / 1000} s (the client's timeoutMs) — is the server at ${base} overloaded or stuck?`,
        err,
      );
    }
    // The code of a socket error (ECONNREFUSED), else the reason fetch refused before connecting ("bad port").
    const reason = (err as { cause?: { code?: string; message?: string } }).cause;
    const cause = reason?.code ?? reason?.message;
    return new EdgevalConnectionError(
      `${method} ${base}${path}: ${(err as Error).message}${cause ? ` (${cause})` : ""} — is the server running at ${base}? (set --url or EDGEVAL_URL)`,
      err,
    );
  }

  return {
    base,
    raw: async (method, path, headers, signal) => (await raw(method, path, { headers, signal })).res,
    async json<T>(method: string, path: string, init: JsonInit = {}): Promise<T> {
      const hasBody = init.body !== undefined;
      const body = hasBody ? (typeof init.body === "string" ? init.body : JSON.stringify(init.body)) : undefined;
      const headers = { ...(hasBody ? { "content-type": init.contentType ?? "application/json" } : {}), ...init.headers };
      const { res, done } = await raw(method, path, { headers, body, signal: init.signal, bounded: true });
      let text: string;
      try {
        text = await res.text();
      } catch (err) {
        // The connection broke (or the timeout passed) mid-body: no answer either.
        throw noAnswer(method, path, err, init.signal);
      } finally {
        done();
      }
      try {
        return JSON.parse(text) as T;
      } catch {
        // A 2xx that is not JSON is not edgeval's (a sign-in page, a web server at --url): say where it came from.
        throw new Error(`${method} ${path} → ${res.status}: ${notEdgeval(res, text, base)}`);
      }
    },
    async text(method, path, headers) {
      const { res, done } = await raw(method, path, { headers, bounded: true });
      try {
        return { text: await res.text(), headers: res.headers };
      } finally {
        done();
      }
    },
  };
}

/**
 * The message for an error answer without edgeval's `{error: {code, message}}`: a proxy's or a
 * gateway's page, or another server at --url. Its gist (an HTML page's title, or the text's
 * start on one line) rather than the page itself, and what to check.
 */
function notEdgeval(res: Response, text: string, base: string): string {
  const type = res.headers.get("content-type")?.split(";")[0]?.trim();
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
  const gist = (title ?? text).replace(/\s+/g, " ").trim().slice(0, 160) || res.statusText;
  const said = gist ? `${type ? `${type}: ` : ""}"${gist}"` : (type ?? "an empty body");
  return `not an edgeval answer (${said}); is ${base} the edgeval server (--url, EDGEVAL_URL), with no proxy failing in between?`;
}

export const enc = encodeURIComponent;
