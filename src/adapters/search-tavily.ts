/**
 * The search port for deep judgment's hallucination check, over a Tavily-compatible HTTP API
 * (`POST {base}/search` with `{query, max_results}` → `{results: [{title, url, content}]}`).
 * Edge code: the key comes from the worker secret TAVILY_API_KEY and never leaves this file
 * except in the Authorization header; errors are scrubbed of it.
 */
import type { SearchPort } from "../core-shared/evidence";
import { TAVILY_ORIGIN } from "../outbound/provider-origins";

export const TAVILY_SECRET = "TAVILY_API_KEY";
export const TAVILY_DEFAULT_URL = TAVILY_ORIGIN;

export interface TavilyOptions {
  apiKey: string;
  baseUrl?: string;
  maxResults?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

interface TavilyResponse {
  results?: { title?: string; url?: string; content?: string }[];
}

export function createTavilySearch(opts: TavilyOptions): SearchPort {
  const doFetch = opts.fetch ?? fetch;
  const base = (opts.baseUrl ?? TAVILY_DEFAULT_URL).replace(/\/+$/, "");
  const scrub = (text: string) => text.split(opts.apiKey).join("[redacted]");
  return {
    async search(query) {
      try {
        const res = await doFetch(`${base}/search`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${opts.apiKey}` },
          body: JSON.stringify({ query, max_results: opts.maxResults ?? 3 }),
          signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
        });
        if (!res.ok) return { ok: false, error: scrub(`search HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`) };
        const body = (await res.json()) as TavilyResponse;
        const results = body.results ?? [];
        if (results.length === 0) return { ok: true, text: "(no search results)" };
        return { ok: true, text: results.map((r, i) => `[${i + 1}] ${r.title ?? ""} (${r.url ?? ""})\n${r.content ?? ""}`).join("\n\n") };
      } catch (err) {
        return { ok: false, error: scrub(`search failed: ${err instanceof Error ? err.message : String(err)}`) };
      }
    },
  };
}
