// The worker's vars are parsed once into a typed config (src/config.ts); absent or invalid values
// take the defaults the edge used before, where each var was read with its own helper.
import { describe, expect, it } from "vitest";
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

  it("parses an env object once", () => {
    const e = env({ JOB_MAX_ATTEMPTS: "5" });
    expect(edgeConfig(e)).toBe(edgeConfig(e));
  });
});
