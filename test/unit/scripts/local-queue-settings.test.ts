// Issue 19 item 1: the local stack (npm start, npm run dev, bench/throughput with no flags) runs the
// job queue settings chosen for the local runtime, and the shipped wrangler.toml keeps production's.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { LOCAL_JOB_QUEUE, writeShardedConfig } from "../../../scripts/lib/job-queue-config.mjs";
// @ts-expect-error plain-Node module without types
import { REPO_ROOT } from "../../../scripts/lib/repo-root.mjs";

/** Each [[queues.consumers]] block of a wrangler.toml for the job queue: its queue and settings (the export queue, src/exports/, is apart). */
function consumers(toml: string): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const block of toml.split("[[queues.consumers]]").slice(1)) {
    const body = block.split(/\n\[/)[0]!;
    const fields = Object.fromEntries([...body.matchAll(/^(\w+) = (.+)$/gm)].map((m) => [m[1]!, m[2]!.replace(/^"|"$/g, "")]));
    if (fields.queue!.startsWith("edgeval-jobs")) out[fields.queue!] = fields;
  }
  return out;
}

describe("local and deployed job queue settings", () => {
  it("the local stack splits the job queue into shards of large batches, every shard with the same consumer and dead-letter queue", () => {
    expect(LOCAL_JOB_QUEUE.shards).toBeGreaterThan(1);
    // All of a batch side by side: a local queue delivers its next batch only when this one ends.
    expect(LOCAL_JOB_QUEUE.jobConcurrency).toBeGreaterThanOrEqual(LOCAL_JOB_QUEUE.batchSize);
    const file = writeShardedConfig(LOCAL_JOB_QUEUE);
    try {
      const text = fs.readFileSync(file, "utf8");
      const c = consumers(text);
      const jobQueues = ["edgeval-jobs", ...Array.from({ length: LOCAL_JOB_QUEUE.shards - 1 }, (_, i) => `edgeval-jobs-${i + 1}`)];
      expect(Object.keys(c).sort()).toEqual([...jobQueues, "edgeval-jobs-dlq"].sort());
      for (const q of jobQueues) {
        expect(c[q]).toMatchObject({
          max_batch_size: String(LOCAL_JOB_QUEUE.batchSize),
          max_batch_timeout: String(LOCAL_JOB_QUEUE.batchTimeoutS),
          dead_letter_queue: "edgeval-jobs-dlq",
        });
      }
      for (let i = 1; i < LOCAL_JOB_QUEUE.shards; i++) expect(text).toContain(`binding = "JOBS_${i}"\nqueue = "edgeval-jobs-${i}"`);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it("the shipped wrangler.toml runs one job queue, consumers scaled out, JOB_CONCURRENCY within an invocation's 6 connections", () => {
    const text = fs.readFileSync(path.join(REPO_ROOT, "wrangler.toml"), "utf8");
    const c = consumers(text);
    expect(Object.keys(c).sort()).toEqual(["edgeval-jobs", "edgeval-jobs-dlq"]);
    expect(Number(c["edgeval-jobs"]!.max_concurrency)).toBeGreaterThan(1);
    const jobConcurrency = Number(text.match(/^JOB_CONCURRENCY = "(\d+)"$/m)?.[1]);
    expect(jobConcurrency).toBeGreaterThanOrEqual(1);
    expect(jobConcurrency).toBeLessThanOrEqual(6);
  });
});
