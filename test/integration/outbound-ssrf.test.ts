/**
 * Issue 16, SSRF: every URL of the corpus (test/fixtures/ssrf-corpus.ts), used as a judge's or a
 * run's model base_url and as the search URL, is refused in production mode (a 400 at submit, or
 * a refusal at fetch for what only the request shows) and a canary listening on loopback receives
 * nothing. In local mode the corpus's loopback entries do reach the canary, so these tests can
 * fail. Redirects are not followed, and the canary's error text never comes back to a caller.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createTavilySearch } from "../../src/adapters/search-tavily";
import { edgeConfig } from "../../src/config";
import type { Env } from "../../src/env";
import { buildApp } from "../../src/http/app";
import { guardedFetch } from "../../src/outbound/guarded-fetch";
import { ssrfCorpus } from "../fixtures/ssrf-corpus";
import { api, TOKEN } from "./helpers";
import { writeTestFigures } from "../reliability/scenario";

const PORT = env.CANARY_PORT;
const CANARY = `http://127.0.0.1:${PORT}`;
/** What the canary answers with; it must never appear in an answer of edgeval's (test/support/canary-server.mjs). */
const SECRET = "CANARY-SECRET-b7e1";

const hits = async (prefix: string): Promise<number> =>
  ((await (await fetch(`${CANARY}/_canary/hits?prefix=${encodeURIComponent(prefix)}`)).json()) as { hits: number }).hits;
const tag = () => `/t-${crypto.randomUUID().slice(0, 8)}`;

/** The test bindings without EDGEVAL_ENV: production mode. */
function production(extra: Record<string, string> = {}): Env {
  const { EDGEVAL_ENV: _local, ...rest } = env as unknown as Record<string, unknown>;
  return { ...rest, ...extra } as unknown as Env;
}

async function post(bindings: Env | null, path: string, json: unknown) {
  const init = {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(json),
  };
  const res = bindings ? await buildApp().fetch(new Request(`http://edgeval.test${path}`, init), bindings) : await api(path, init);
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as any };
}

/** Each entry as written and over https: production refuses http anyway, so only the https form shows the address check working. */
const bothSchemes = (port: string, T: string) =>
  ssrfCorpus(port, T).flatMap((e) => [
    e,
    ...(e.url.startsWith("http:") && !e.schemeOnly ? [{ ...e, url: e.url.replace(/^http:/, "https:"), what: `${e.what} (https)` }] : []),
  ]);

const provider = (base_url: string) => ({ id: "j", interface: "openai_compatible", model_name: "ssrf", base_url });
const judgeBody = (base_url: string) => ({ input: "q", output: "an answer", config: { provider: provider(base_url), type: "likert" } });
const runBody = (base_url: string) => ({
  benchmark: { name: "ssrf", questions: [{ id: "q1", question: "Q?", raw_answer: "A" }] },
  config: {
    answering_models: [{ ...provider(base_url), id: "a" }],
    parsing_models: [{ ...provider(base_url), id: "p" }],
    evaluation_mode: "template_only",
  },
});

describe("outbound URL policy against the SSRF corpus", () => {
  it("has at least 40 entries", () => {
    expect(ssrfCorpus(PORT, "/t").length).toBeGreaterThanOrEqual(40);
  });

  it("production: each corpus URL as a judge's base_url is a 400 at config.provider; the canary receives nothing", async () => {
    const T = tag();
    for (const { url, what } of bothSchemes(PORT, T)) {
      const { status, body, text } = await post(production(), "/v1/judge", judgeBody(url));
      expect(status, `${what}: ${url} → ${text}`).toBe(400);
      expect(body.error.issues[0].path, what).toMatch(/^config\.provider/);
    }
    expect(await hits(T)).toBe(0);
  });

  it("production: each corpus URL as a run's model base_url is a 400 at that base_url, and nothing is stored or called", async () => {
    const T = tag();
    const corpus = bothSchemes(PORT, T);
    let refused = 0;
    for (const { url, what } of corpus) {
      const { status, body, text } = await post(production(), "/v1/runs", runBody(url));
      expect(status, `${what}: ${url} → ${text}`).toBe(400);
      const paths = (body.error.issues as { path: string }[]).map((i) => i.path);
      expect(paths, what).toContain("config.answering_models[0].base_url");
      refused++;
    }
    const canary = await hits(T);
    expect(canary).toBe(0);
    // Scenario 9 of the reliability suite (test/reliability/README.md).
    await writeTestFigures({
      name: "s9-ssrf-corpus",
      scenario: "9 SSRF corpus as run base_url (production)",
      size: `${corpus.length} URLs`,
      faults_injected: corpus.length,
      invariants: {
        all_refused: { pass: refused === corpus.length, detail: `${refused} of ${corpus.length} refused 400 at the base_url` },
        canary_untouched: { pass: canary === 0, detail: `${canary} requests reached the canary` },
      },
    });
  });

  it("production: each corpus URL as the search URL fails at fetch, and the canary receives nothing", async () => {
    const T = tag();
    const guarded = guardedFetch(edgeConfig(production()).outbound);
    for (const { url, what } of bothSchemes(PORT, T)) {
      const r = await createTavilySearch({ apiKey: "tvly-test", baseUrl: url, fetch: guarded }).search("q");
      expect(r.ok, what).toBe(false);
      if (!r.ok) expect(r.error).not.toContain(SECRET);
    }
    expect(await hits(T)).toBe(0);
  });

  it("local mode: the corpus's loopback entries reach the canary (judge and search), and its error text never comes back", async () => {
    const ipv6 = env.CANARY_IPV6 === "true";
    const reaching = ssrfCorpus(PORT, "").filter((e) => e.loopback === "v4" || (ipv6 && e.loopback === "v6"));
    expect(reaching.length).toBeGreaterThanOrEqual(11);
    const guarded = guardedFetch(edgeConfig(env).outbound);
    for (const { what } of reaching) {
      const T = tag();
      const url = ssrfCorpus(PORT, T).find((e) => e.what === what)!.url;
      const judged = await post(null, "/v1/judge", judgeBody(url));
      expect(judged.status, `${what}: ${judged.text}`).toBe(200);
      expect(judged.body.pass, what).toBeNull();
      expect(judged.text, what).not.toContain(SECRET);
      const searched = await createTavilySearch({ apiKey: "tvly-test", baseUrl: url, fetch: guarded }).search("q");
      expect(searched.ok).toBe(false);
      if (!searched.ok) expect(searched.error, what).not.toContain(SECRET);
      expect(await hits(T), `${what}: ${url}`).toBeGreaterThanOrEqual(2);
    }
  });

  it("a 200 that is not JSON from a non-provider origin does not come back either", async () => {
    const T = tag();
    const judged = await post(null, "/v1/judge", judgeBody(`${CANARY}${T}/text/v1`));
    expect(await hits(T)).toBeGreaterThan(0);
    expect(judged.body.pass).toBeNull();
    expect(judged.text).not.toContain(SECRET);
    expect(judged.text).toContain("not JSON");
  });

  it("production: a redirect from an allowed origin is not followed (judge and search)", async () => {
    const T = tag();
    const bindings = production({ EDGEVAL_PRIVATE_ORIGINS: CANARY });
    const judged = await post(bindings, "/v1/judge", judgeBody(`${CANARY}${T}/redirect/v1`));
    expect(judged.status, judged.text).toBe(200);
    expect(judged.body.pass).toBeNull();
    expect(judged.text).toContain("does not follow");
    const searched = await createTavilySearch({
      apiKey: "tvly-test",
      baseUrl: `${CANARY}${T}/redirect`,
      fetch: guardedFetch(edgeConfig(bindings).outbound),
    }).search("q");
    expect(searched.ok).toBe(false);
    expect(await hits(`${T}/redirect`)).toBeGreaterThanOrEqual(2);
    expect(await hits(`${T}/after-redirect`)).toBe(0);
  });
});
