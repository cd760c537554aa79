/**
 * A fetch that applies the outbound policy to every request, whoever built its URL (the SDKs
 * append paths to a base URL): given to every model adapter and to search. It
 *
 * - refuses a URL the policy refuses, with no request sent;
 * - follows no redirect (`redirect: "manual"`): a 3xx becomes a refusal, so a public server
 *   cannot bounce a request into a private network or to another origin;
 * - passes on an error body only from a provider origin (policy.providerOrigins): from any other
 *   origin the caller sees the status and where it came from, never the target's text (a listener
 *   inside a network must not be readable through edgeval); the same for a 2xx that is not JSON.
 *
 * A refusal is an answer of its own making (400, JSON `{error: {message}}`), so the SDKs map it
 * to a `bad_request` (not retried) with the message, as they would a provider's 400.
 */
import { type OutboundPolicy, outboundUrlIssue, type UrlUse } from "./url-policy";

/** Headers of an error answer that still reach the SDK: rate-limit signals the limiter learns from. */
const KEPT_HEADERS = /^(retry-after|retry-after-ms|x-ratelimit-.*|anthropic-ratelimit-.*)$/i;

/**
 * `use`: "base" (the default) for URLs built by appending a path to a base URL — the model SDKs
 * and search never send a query, so one in the final URL is a trick (`…/v1?x=/search`);
 * "endpoint" for a URL used as given (a webhook), whose query is its own.
 */
export interface GuardOptions {
  /**
   * A 2xx answer from a non-provider origin that may be passed on besides JSON (default none):
   * MCP servers answer with an event stream or a bodiless 202 (src/mcp).
   */
  alsoAccept?: (res: Response) => boolean;
}

export function guardedFetch(
  policy: OutboundPolicy,
  use: UrlUse = "base",
  inner: typeof fetch = (input, init) => fetch(input, init),
  opts: GuardOptions = {},
): typeof fetch {
  // The verdict on a URL depends on the URL and the policy alone, and a model's calls repeat one
  // URL: checked once per fetch made here, not per call (bench/throughput: parsing and classifying
  // the URL was ~1 % of the local workerd's CPU per result).
  const checked = new Map<string, { issue: string | null; origin: string | null }>();
  const check = (url: string) => {
    let verdict = checked.get(url);
    if (!verdict) {
      const issue = outboundUrlIssue(url, policy, use);
      verdict = { issue, origin: issue ? null : new URL(url).origin };
      if (checked.size >= MAX_CHECKED_URLS) checked.clear();
      checked.set(url, verdict);
    }
    return verdict;
  };
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const { issue, origin } = check(url);
    if (issue || origin === null) return refusal(400, `edgeval refused to send the request: ${issue}`);
    const res = await inner(input, { ...init, redirect: "manual" });
    if (res.status >= 300 && res.status < 400) {
      await discard(res);
      return refusal(400, `${origin} answered ${res.status} with a redirect, which edgeval does not follow: give the final URL`);
    }
    if (policy.providerOrigins.has(origin)) return res;
    if (!res.ok) {
      await discard(res);
      return refusal(
        res.status,
        `${origin} answered HTTP ${res.status} (its error text is passed on only from provider origins)`,
        res.headers,
      );
    }
    const type = res.headers.get("content-type") ?? "";
    if (!/json/i.test(type) && !opts.alsoAccept?.(res)) {
      await discard(res);
      return refusal(502, `${origin} answered HTTP ${res.status} with content-type ${JSON.stringify(type)}, not JSON`);
    }
    return res;
  };
}

/** URLs a guarded fetch remembers its verdict on (a model's calls use one or two). */
const MAX_CHECKED_URLS = 64;

function refusal(status: number, message: string, from?: Headers): Response {
  const headers = new Headers({ "content-type": "application/json" });
  from?.forEach((value, name) => {
    if (KEPT_HEADERS.test(name)) headers.set(name, value);
  });
  return new Response(JSON.stringify({ error: { message, type: "edgeval_outbound" } }), { status, headers });
}

/** Releases the connection of an answer whose body is not read. */
async function discard(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => {});
}
