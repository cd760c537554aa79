// The local stack with the job queue split into shards (as bench/throughput runs it): each local
// queue delivers one batch at a time, so more jobs in flight than one batch holds shows that the
// shards' batches ran side by side, and the run still ends with every result exactly once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { startLocalStack } from "../../scripts/lib/local-stack.mjs";
// @ts-expect-error plain-Node module without types
import { apiClient } from "../../scripts/lib/runs.mjs";
// @ts-expect-error plain-Node module without types
import { startFakeLlm } from "../fake-llm/server.mjs";

const BATCH = 4;
const JOBS = 24;

describe("local stack with a sharded job queue", () => {
  let fake: { url: string; stats: () => { total: number; peak_in_flight: number }; close: () => Promise<void> };
  let stack: { url: string; token: string; stop: () => Promise<void> };
  beforeAll(async () => {
    fake = await startFakeLlm({ latencyMs: 300 });
    stack = await startLocalStack({
      vars: { JOB_CONCURRENCY: String(BATCH) },
      jobQueue: { shards: 3, batchSize: BATCH, batchTimeoutS: 0.1 },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await fake?.close();
  });

  it("runs batches of different shards side by side and records each result once", async () => {
    const model = (id: string) => ({ id, interface: "openai_compatible", model_name: "shard-model", base_url: `${fake.url}/v1` });
    const questions = Array.from({ length: JOBS }, (_, i) => ({
      id: `q${i}`,
      question: `Question ${i}?`,
      template: { fields: [{ name: "ok", type: "bool", description: "ok", ground_truth: true, verify_with: { type: "BooleanMatch" } }] },
    }));
    const api = apiClient(stack.url, stack.token);
    const { run_id } = await api.submit({
      benchmark: { name: "shards", questions },
      config: { answering_models: [model("a")], parsing_models: [model("p")] },
    });
    const run = await api.waitForRun(run_id, { timeoutMs: 90_000, intervalMs: 250 });
    expect(run).toMatchObject({ status: "completed", progress: { total: JOBS, done: JOBS } });
    const results = await api.allResults(run_id);
    expect(new Set(results.map((r: { metadata: { result_id: string } }) => r.metadata.result_id)).size).toBe(JOBS);
    expect(fake.stats().total).toBe(JOBS * 2);
    // One queue delivering batches of 4 could never have more than 4 calls in flight.
    expect(fake.stats().peak_in_flight).toBeGreaterThan(BATCH);
  }, 120_000);
});
