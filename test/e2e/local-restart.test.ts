// A local runtime stopped mid-run and started again on the same state (npm run dev restarted, or
// live-reloaded): the local queue kept its messages in memory and lost them, and the consumers
// died mid-job. The run must still end, each result recorded once (src/coordinator/volatile-queue.ts),
// once something looks at it: here the status poll.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { startLocalStack } from "../../scripts/lib/local-stack.mjs";
// @ts-expect-error plain-Node module without types
import { apiClient } from "../../scripts/lib/runs.mjs";
// @ts-expect-error plain-Node module without types
import { startFakeLlm } from "../fake-llm/server.mjs";

const JOBS = 40;
const BATCH = 4;

type Stack = { url: string; token: string; stop: () => Promise<void> };

// Unsharded, and split over coordinator shards of 10 jobs (whose root wakes them), each woken by
// a status poll; and unsharded with nobody asking about the run, woken by the local Cron Trigger's
// first tick after the restart (the test reads only the run list, which is D1's and wakes nothing).
describe.each([
  ["unsharded", "polled", {}],
  ["sharded", "polled", { COORDINATOR_SHARD_JOBS: "10" }],
  ["unsharded", "unwatched", {}],
] as const)("a local runtime restarted mid-run (%s, %s)", (_name, watch, shardVars: Record<string, string>) => {
  const persistTo = fs.mkdtempSync(path.join(os.tmpdir(), "edgeval-restart-"));
  const token = `ev_local_restart_${crypto.randomUUID().replaceAll("-", "")}`;
  let fake: { url: string; close: () => Promise<void> } | undefined;
  let stack: Stack | undefined;
  // One queue delivering batches of 4 at a time: the run takes ~10 batches of two 400 ms calls,
  // so stopping it after a few leaves jobs claimed, jobs queued and jobs done.
  const start = (): Promise<Stack> =>
    startLocalStack({
      persistTo,
      secrets: { EDGEVAL_API_TOKEN: token },
      vars: { JOB_CONCURRENCY: String(BATCH), ...shardVars },
      jobQueue: { shards: 1, batchSize: BATCH, batchTimeoutS: 0.1 },
    });
  afterAll(async () => {
    await stack?.stop();
    await fake?.close();
    fs.rmSync(persistTo, { recursive: true, force: true });
  });

  it("resumes the run's lost jobs, and records each result once", async () => {
    fake = await startFakeLlm({ latencyMs: 400 });
    const model = (id: string) => ({ id, interface: "openai_compatible", model_name: "restart-model", base_url: `${fake!.url}/v1` });
    const questions = Array.from({ length: JOBS }, (_, i) => ({
      id: `q${i}`,
      question: `Question ${i}?`,
      template: { fields: [{ name: "ok", type: "bool", description: "ok", ground_truth: true, verify_with: { type: "BooleanMatch" } }] },
    }));
    stack = await start();
    const { run_id } = await apiClient(stack.url, token).submit({
      benchmark: { name: "restart", questions },
      config: { answering_models: [model("a")], parsing_models: [model("p")] },
    });
    let before = 0;
    for (const t0 = Date.now(); Date.now() - t0 < 60_000; await new Promise((r) => setTimeout(r, 100))) {
      before = (await apiClient(stack.url, token).getRun(run_id)).progress.done;
      if (before >= BATCH * 2) break;
    }
    expect(before).toBeGreaterThanOrEqual(BATCH * 2);
    await stack.stop();
    stack = await start();

    if (watch === "unwatched") await listedAsEnded(stack, run_id, 150_000);
    const run = await apiClient(stack.url, token).waitForRun(run_id, { timeoutMs: 60_000, intervalMs: 500 });
    expect(before).toBeLessThan(JOBS);
    expect(run).toMatchObject({ status: "completed", progress: { total: JOBS, done: JOBS } });
    const results = await apiClient(stack.url, token).allResults(run_id);
    expect(results).toHaveLength(JOBS);
    expect(new Set(results.map((r: { metadata: { result_id: string } }) => r.metadata.result_id)).size).toBe(JOBS);
  }, 360_000);

  /** Waits for the run list (D1's rows; it constructs no coordinator) to show the run ended. */
  async function listedAsEnded(on: Stack, runId: string, timeoutMs: number): Promise<void> {
    for (const t0 = Date.now(); Date.now() - t0 < timeoutMs; await new Promise((r) => setTimeout(r, 1000))) {
      const res = await fetch(`${on.url}/v1/runs?limit=10`, { headers: { authorization: `Bearer ${token}` } });
      const { runs } = (await res.json()) as { runs: { run_id: string; status: string }[] };
      if (runs.find((r) => r.run_id === runId)?.status === "completed") return;
    }
    throw new Error(`run ${runId} not listed as completed within ${timeoutMs / 1000} s of the restart, with nobody asking about it`);
  }
});
