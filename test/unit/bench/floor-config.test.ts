// bench/floor measures against edgeval's local stack only if its job queue is split the same way.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error plain-Node module without types
import { queueMismatch } from "../../../bench/lib/floor-config.mjs";
// @ts-expect-error plain-Node module without types
import { LOCAL_JOB_QUEUE } from "../../../scripts/lib/job-queue-config.mjs";

const root = path.resolve(import.meta.dirname, "../../..");
const floorToml = fs.readFileSync(path.join(root, "bench/floor/wrangler.toml"), "utf8");

describe("bench/floor/wrangler.toml", () => {
  it("splits the job queue as npm start's LOCAL_JOB_QUEUE does", () => {
    expect(queueMismatch(floorToml, LOCAL_JOB_QUEUE)).toBeNull();
  });
});

describe("queueMismatch", () => {
  const want = { shards: 2, batchSize: 100, batchTimeoutS: 0.1 };
  const consumer = (q: string, size: number, timeout: number) =>
    `[[queues.consumers]]\nqueue = "${q}"\nmax_batch_size = ${size}\nmax_batch_timeout = ${timeout}\n`;

  it("accepts the same shards, batch size and timeout", () => {
    expect(queueMismatch(consumer("a", 100, 0.1) + consumer("b", 100, 0.1), want)).toBeNull();
  });

  it("names a shard count, batch size or timeout that differs", () => {
    expect(queueMismatch(consumer("a", 100, 0.1), want)).toMatch(/are 1 \(a 100\/0.1 s\), npm start's 2 × batches of 100\/0.1 s/);
    expect(queueMismatch(consumer("a", 100, 0.1) + consumer("b", 10, 0.1), want)).toMatch(/b 10\/0.1 s/);
    expect(queueMismatch(consumer("a", 100, 0.1) + consumer("b", 100, 1), want)).toMatch(/b 100\/1 s/);
  });
});
