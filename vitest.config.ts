import os from "node:os";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// The platform-free core runs in plain Node; everything that touches a binding (D1, R2, Queues,
// Durable Objects, the SDK adapters over fetch) runs inside workerd ("workers", and a few suites
// again with every run sharded: "workers-sharded"; the suites that measure workerd's memory alone,
// last: "workers-alone"); "e2e" runs npm start as a subprocess.

/**
 * Suites that measure workerd's memory: the report sink sums the RSS of every workerd this vitest
 * run started (test/reliability/report-sink.mjs), so they run alone, after every other file (a
 * project of one worker runs in vitest's last, sequential group). Beside another file, its workerd
 * counted too and the soak's memory_flat failed (396 MB in the first half, 580 in the second).
 */
const MEMORY_SUITES = ["test/reliability/s8-soak.test.ts", "test/reliability/guards.test.ts"];

/** Integration suites run a second time with every run sharded (the workers-sharded project). */
const SHARDED_SUITES = [
  "test/integration/budget.test.ts",
  "test/integration/tenant-usage.test.ts",
  "test/integration/run-cancel.test.ts",
  "test/integration/tenant-disabled-runs.test.ts",
  "test/integration/dead-letter.test.ts",
  "test/integration/stall-watch.test.ts",
];

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  /** A project running `include` inside workerd, with `bindings` added to the test stack's. */
  const workersProject = (
    name: string,
    include: string[],
    bindings: Record<string, string> = {},
    more: { exclude?: string[]; maxWorkers?: number } = {},
  ) => ({
    plugins: [
      cloudflareTest(({ inject }) => ({
        wrangler: { configPath: "./wrangler.toml" },
        // No remote proxy session (there is no Cloudflare account here): the AI binding in
        // wrangler.toml stays local and refuses calls; adapter tests pass a fake binding.
        remoteBindings: false,
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            FAKE_LLM_URL: `http://127.0.0.1:${inject("fakeLlmPort")}`,
            EDGEVAL_API_TOKEN: "test-token",
            ...bindings,
            // The tests run as a local stack (src/env.ts isLocalMode); a test of production
            // behaviour passes an env without it.
            EDGEVAL_ENV: "local",
            EDGEVAL_ADMIN_TOKEN: "test-admin-token",
            EDGEVAL_KEY_PEPPER: "test-key-pepper",
            EDGEVAL_SECRETS_KEK: "test-secrets-kek",
            JOB_MAX_ATTEMPTS: "3",
            JOB_RETRY_BASE_DELAY_SECONDS: "0",
            // Retry backoffs at 1 % (Karenina's 1-30 s become 10-300 ms); retry-after is never scaled.
            RETRY_DELAY_SCALE: "0.01",
            // Hangs injected by the fault tests end in 5 s, not Karenina's 120 s.
            MODEL_TIMEOUT_MS: "5000",
            // A key for models whose interface needs one (anthropic) when they point at the fake.
            FAKE_PROVIDER_KEY: "fake-provider-key",
            // The embedding check's default model (all-MiniLM-L6-v2 → all-minilm) is served by the fake locally.
            EDGEVAL_EMBEDDING_BASE_URL: `http://127.0.0.1:${inject("fakeLlmPort")}/v1`,
            // Keys may go to the fake (src/llm/key-origins.ts); any other non-provider origin is refused.
            EDGEVAL_KEY_ORIGINS: `http://127.0.0.1:${inject("fakeLlmPort")}`,
            // The webhook receiver (test/webhook-receiver/server.mjs) and a schedule at 1/10,000:
            // 0 s, 0.5 ms, 30 ms, 180 ms, 0.72 s, 1.8 s, 3.6 s, 3.6 s.
            WEBHOOK_RECEIVER_URL: `http://127.0.0.1:${inject("webhookReceiverPort")}`,
            WEBHOOK_RETRY_SCALE: "0.0001",
            // A loopback listener production mode must never reach (test/support/canary-server.mjs).
            CANARY_PORT: String(inject("canaryPort")),
            CANARY_IPV6: String(inject("canaryIpv6")),
            // The reliability suite (test/reliability): where reports go, and the scenario sizes
            // ("fast" in npm test; npm run reliability sets RELIABILITY_SIZE=full).
            RELIABILITY_REPORT_URL: `http://127.0.0.1:${inject("reportSinkPort")}/reports`,
            RELIABILITY_SIZE: process.env.RELIABILITY_SIZE === "full" ? "full" : "fast",
            // The MCP server of the answering-agent tests (test/mcp-server/server.mjs).
            MCP_SERVER_URL: `http://127.0.0.1:${inject("mcpServerPort")}`,
          },
          // An entry here REPLACES the wrangler.toml consumer settings for that queue.
          queueConsumers: {
            "edgeval-jobs": {
              maxBatchSize: 10,
              maxBatchTimeout: 0.05,
              maxRetries: 6,
              retryDelay: 0,
              deadLetterQueue: "edgeval-jobs-dlq",
            },
            "edgeval-jobs-dlq": { maxBatchSize: 10, maxBatchTimeout: 0.05 },
            "edgeval-exports": { maxBatchSize: 1, maxBatchTimeout: 0.05, maxRetries: 5, retryDelay: 0 },
          },
        },
      })),
    ],
    // vite's pre-bundles (below) land under cacheDir; vitest processes started side by side on a cold
    // cache (npm run reliability's lanes) each rewrite them and fail the others' files ("There is a
    // new version of the pre-bundle for …hono.js"), so the reliability runner gives each lane its own.
    ...(process.env.EDGEVAL_VITE_CACHE_DIR ? { cacheDir: process.env.EDGEVAL_VITE_CACHE_DIR } : {}),
    test: {
      name,
      include,
      ...more,
      setupFiles: ["./test/integration/apply-migrations.ts"],
      testTimeout: 30_000,
      // The plugin inlines every dependency; pre-bundling the big ones halves start-up. "hono/route"
      // is bundled with "hono": it reads the request's match through a module-private Symbol, which
      // a second copy of hono (the unbundled one) would not find (src/http/undeclared-query.ts).
      deps: {
        optimizer: {
          ssr: { enabled: true, include: ["openai", "@anthropic-ai/sdk", "hono", "hono/route", "zod"] },
        },
      },
    },
  });
  return {
    test: {
      // Two test files at a time even on two cores. vitest's default (cores − 1) runs one file at a
      // time there, and a workerd test file spends much of its wall waiting on its own runtime's start
      // and module loading: the full suite took 18 min 5 s with one worker and 11 min 52 s with two on
      // this 2-core machine (6 Dec); three were no faster than two (20 integration files, 93 s and 100 s).
      maxWorkers: Math.max(2, os.availableParallelism() - 1),
      globalSetup: ["./test/global-setup.ts"],
      projects: [
        {
          test: {
            name: "core",
            environment: "node",
            include: ["test/unit/**/*.test.ts", "test/fake-llm/**/*.test.ts"],
          },
        },
        workersProject(
          "workers",
          ["test/integration/**/*.test.ts", "test/contracts/**/*.test.ts", "test/reliability/**/*.test.ts"],
          {},
          { exclude: MEMORY_SUITES },
        ),
        workersProject("workers-alone", MEMORY_SUITES, {}, { maxWorkers: 1 }),
        // The suites whose promises sharding must keep (budget and quota, cancel, dead letters, the
        // stall watch), again with every run of more than one job sharded: one coordinator shard per job
        // (src/coordinator/shards.ts). Each run's coordinator name and tables are found through
        // test/integration/shard-helpers.ts, so the same tests hold either way.
        workersProject("workers-sharded", SHARDED_SUITES, { COORDINATOR_SHARD_JOBS: "1" }),
        {
          // npm start as a subprocess (offline, and against a fake behind the openai/anthropic
          // interfaces): each case starts wrangler dev, so the timeouts are long.
          test: {
            name: "e2e",
            environment: "node",
            include: ["test/e2e/**/*.test.ts"],
            testTimeout: 150_000,
            hookTimeout: 60_000,
          },
        },
      ],
    },
  };
});
