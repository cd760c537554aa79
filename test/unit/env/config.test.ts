// The worker's vars are parsed once into a typed config (src/config.ts); absent or invalid values
// take the defaults the edge used before, where each var was read with its own helper.
import { afterEach, describe, expect, it, vi } from "vitest";
import { edgeConfig } from "../../../src/config";
import type { Env } from "../../../src/env";

const env = (vars: Record<string, string>) => vars as unknown as Env;

describe("edgeConfig", () => {
  it("takes the defaults when no var is set", () => {
    expect(edgeConfig(env({}))).toEqual({
      jobMaxAttempts: 4,
      jobRetryBaseDelaySeconds: 2,
      jobConcurrency: 4,
      jobMaxDeferrals: 20,
      // A run of more jobs has coordinator shards (src/coordinator/shards.ts).
      coordinatorShardJobs: 5_000,
      // The ceiling over every request_timeout (a call holds a 150 s limiter lease); calls default to 120 s.
      modelTimeoutMs: 140_000,
      retryDelayScale: 1,
      tavilyBaseUrl: undefined,
      embeddingBaseUrl: undefined,
      webhookRetryScale: 1,
      // Production: no private origins; error text from the built-in providers only (src/outbound).
      outbound: {
        local: false,
        privateOrigins: new Set(),
        providerOrigins: new Set(["https://api.openai.com", "https://api.anthropic.com", "https://api.tavily.com"]),
      },
      providerLimits: new Map(),
      // Links use the origin each request came in on (src/webhooks/links.ts).
      publicOrigin: undefined,
    });
  });

  it("reads set vars, as the workers test config sets them", () => {
    const c = edgeConfig(
      env({
        JOB_MAX_ATTEMPTS: "3",
        JOB_RETRY_BASE_DELAY_SECONDS: "0",
        RETRY_DELAY_SCALE: "0.01",
        MODEL_TIMEOUT_MS: "5000",
        JOB_CONCURRENCY: "100",
        JOB_MAX_DEFERRALS: "7",
        COORDINATOR_SHARD_JOBS: "100",
        TAVILY_BASE_URL: "http://127.0.0.1:9/t",
        WEBHOOK_RETRY_SCALE: "0.0001",
      }),
    );
    expect(c).toEqual({
      jobMaxAttempts: 3,
      jobRetryBaseDelaySeconds: 0,
      jobConcurrency: 100,
      jobMaxDeferrals: 7,
      coordinatorShardJobs: 100,
      modelTimeoutMs: 5000,
      retryDelayScale: 0.01,
      tavilyBaseUrl: "http://127.0.0.1:9/t",
      embeddingBaseUrl: undefined,
      webhookRetryScale: 0.0001,
      outbound: expect.anything(),
      providerLimits: new Map(),
      publicOrigin: undefined,
    });
  });

  it("builds the outbound policy from EDGEVAL_ENV, EDGEVAL_PRIVATE_ORIGINS and EDGEVAL_KEY_ORIGINS", () => {
    const c = edgeConfig(
      env({
        EDGEVAL_ENV: "local",
        EDGEVAL_PRIVATE_ORIGINS: "http://10.0.0.5:8000/v1, not a url",
        EDGEVAL_KEY_ORIGINS: "https://llm.example.com/v1",
      }),
    );
    expect(c.outbound.local).toBe(true);
    expect([...c.outbound.privateOrigins]).toEqual(["http://10.0.0.5:8000"]);
    expect(c.outbound.providerOrigins).toEqual(
      new Set([
        "https://api.openai.com",
        "https://api.anthropic.com",
        "https://api.tavily.com",
        "https://llm.example.com",
        "http://10.0.0.5:8000",
      ]),
    );
  });

  it("falls back on values that are not valid: not a number, fractional counts, below the minimum", () => {
    const c = edgeConfig(
      env({
        JOB_MAX_ATTEMPTS: "0",
        JOB_RETRY_BASE_DELAY_SECONDS: "-1",
        JOB_CONCURRENCY: "2.5",
        COORDINATOR_SHARD_JOBS: "0",
        MODEL_TIMEOUT_MS: "soon",
        RETRY_DELAY_SCALE: "-3",
        WEBHOOK_RETRY_SCALE: "0",
      }),
    );
    expect(c).toMatchObject({
      jobMaxAttempts: 4,
      jobRetryBaseDelaySeconds: 2,
      jobConcurrency: 4,
      coordinatorShardJobs: 5_000,
      modelTimeoutMs: 140_000,
      retryDelayScale: 1,
      webhookRetryScale: 1,
    });
  });

  it("reads EDGEVAL_PROVIDER_LIMITS by interface or origin; what is not a limit is ignored", () => {
    const raw = JSON.stringify({
      openai: { rpm: 100 },
      "http://10.0.0.5:8000/v1": { concurrency: 4 },
      anthropic: { rpm: -1 },
      "bad://": {},
    });
    const c = edgeConfig(env({ EDGEVAL_PROVIDER_LIMITS: raw }));
    expect(c.providerLimits.get("openai")).toEqual({ rpm: 100 });
    expect(c.providerLimits.get("http://10.0.0.5:8000")).toEqual({ concurrency: 4 });
    expect(c.providerLimits.get("anthropic")).toEqual({});
    expect(edgeConfig(env({ EDGEVAL_PROVIDER_LIMITS: "not json" })).providerLimits.size).toBe(0);
  });

  it("reads EDGEVAL_PUBLIC_ORIGIN as an origin; one with a path, a query or another scheme is not used", () => {
    expect(edgeConfig(env({ EDGEVAL_PUBLIC_ORIGIN: "https://Evals.Example.com" })).publicOrigin).toBe("https://evals.example.com");
    expect(edgeConfig(env({ EDGEVAL_PUBLIC_ORIGIN: "https://evals.example.com/" })).publicOrigin).toBe("https://evals.example.com");
    expect(edgeConfig(env({ EDGEVAL_PUBLIC_ORIGIN: "http://127.0.0.1:8787" })).publicOrigin).toBe("http://127.0.0.1:8787");
    for (const unusable of [
      "https://evals.example.com/v1",
      "https://evals.example.com?x=1",
      "ftp://evals.example.com",
      "evals.example.com",
      "https://u:p@evals.example.com",
    ]) {
      expect(edgeConfig(env({ EDGEVAL_PUBLIC_ORIGIN: unusable })).publicOrigin, unusable).toBeUndefined();
    }
  });

  describe("a var set to what edgeval cannot use", () => {
    afterEach(() => vi.restoreAllMocks());
    // Each test is a fresh isolate: the module, and what it has already reported, loaded anew.
    const fresh = async () => {
      vi.resetModules();
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      const logged = () => warn.mock.calls.map(([line]) => JSON.parse(String(line)) as { event: string; var: string; why: string });
      return { edgeConfig: (await import("../../../src/config")).edgeConfig, logged };
    };

    it("is named in one warning per isolate, with what was wrong and never the value", async () => {
      const { edgeConfig, logged } = await fresh();
      const vars = {
        JOB_CONCURRENCY: "six-secret-looking",
        EDGEVAL_KEY_ORIGINS: "https://llm.example.com/v1, llm.internal",
        EDGEVAL_PROVIDER_LIMITS: JSON.stringify({
          openia: { rpm: 10 },
          anthropic: { rpm: -1 },
          "bad://": {},
          // a URL's credentials are not logged, wherever they are
          "not a url https://user:tok3n@llm.internal": {},
          openai: { rpm: 5 },
        }),
      };
      const c = edgeConfig(env(vars));
      expect(c.jobConcurrency).toBe(4);
      expect(c.providerLimits).toEqual(
        new Map([
          ["anthropic", {}],
          ["openai", { rpm: 5 }],
        ]),
      );
      expect(logged()).toEqual([
        { level: "warn", event: "config_var_unusable", var: "JOB_CONCURRENCY", why: "not a valid value: its default 4 applies" },
        { level: "warn", event: "config_var_unusable", var: "EDGEVAL_KEY_ORIGINS", why: "entry 2 of 2 is not a URL: it allows nothing" },
        expect.objectContaining({
          var: "EDGEVAL_PROVIDER_LIMITS",
          why: expect.stringMatching(/^"openia" is neither an interface \(openai, /),
        }),
        expect.objectContaining({ var: "EDGEVAL_PROVIDER_LIMITS", why: expect.stringMatching(/^the limits under "anthropic" are not/) }),
        expect.objectContaining({ var: "EDGEVAL_PROVIDER_LIMITS", why: expect.stringMatching(/^key 3 of 5 is neither/) }),
        expect.objectContaining({ var: "EDGEVAL_PROVIDER_LIMITS", why: expect.stringMatching(/^key 4 of 5 is neither/) }),
      ]);
      expect(JSON.stringify(logged())).not.toContain("six-secret-looking");
      expect(JSON.stringify(logged())).not.toContain("tok3n");
      // The runtime may hand each request a new env object: the isolate has said it already.
      edgeConfig(env({ ...vars }));
      expect(logged()).toHaveLength(6);
    });

    it("covers EDGEVAL_PROVIDER_LIMITS that is not JSON, and says nothing of vars that are fine or absent", async () => {
      const { edgeConfig, logged } = await fresh();
      edgeConfig(env({ EDGEVAL_PROVIDER_LIMITS: "rpm=10", JOB_MAX_ATTEMPTS: "3", EDGEVAL_PRIVATE_ORIGINS: "http://10.0.0.5:8000" }));
      expect(logged()).toEqual([
        { level: "warn", event: "config_var_unusable", var: "EDGEVAL_PROVIDER_LIMITS", why: "not JSON: no operator limits apply" },
      ]);
    });
  });

  it("parses an env object once", () => {
    const e = env({ JOB_MAX_ATTEMPTS: "5" });
    expect(edgeConfig(e)).toBe(edgeConfig(e));
  });
});
