import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import { jobQueues, sendJobs } from "../../../src/coordinator/job-queues";

/** A queue producer that keeps every sendBatch call. */
function fakeQueue() {
  const sends: { run_id: string; tenant_id?: string; job_id: string }[][] = [];
  const queue = {
    sendBatch: async (messages: { body: { run_id: string; tenant_id?: string; job_id: string } }[]) =>
      void sends.push(messages.map((m) => m.body)),
  };
  return { queue: queue as unknown as Queue<unknown>, sends };
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `job-${i}`);

describe("job queue shards", () => {
  it("without shards sends everything to JOBS, at most 100 messages per send", async () => {
    const jobs = fakeQueue();
    await sendJobs({ JOBS: jobs.queue } as unknown as Env, { run_id: "run-1", tenant_id: "acme" }, ids(250));
    expect(jobs.sends.map((s) => s.length)).toEqual([100, 100, 50]);
    expect(jobs.sends.flat().map((m) => m.job_id)).toEqual(ids(250));
    expect(jobs.sends.flat().every((m) => m.run_id === "run-1" && m.tenant_id === "acme")).toBe(true);
  });

  it("tells `accepted` each send's ids only after the queue took them; a failed send is never reported", async () => {
    const jobs = fakeQueue();
    let calls = 0;
    const failing = {
      sendBatch: async (m: unknown[]) => {
        if (++calls === 2) throw new Error("queue down");
        return jobs.queue.sendBatch(m as never);
      },
    } as unknown as Queue<unknown>;
    const accepted: string[][] = [];
    await expect(
      sendJobs({ JOBS: failing } as unknown as Env, { run_id: "run-3" }, ids(250), (got) => void accepted.push(got)),
    ).rejects.toThrow("queue down");
    expect(accepted).toEqual([ids(100)]);
  });

  it("spreads job i to shard i mod S, each job exactly once", async () => {
    const [a, b, c] = [fakeQueue(), fakeQueue(), fakeQueue()];
    const env = { JOBS: a.queue, JOBS_1: b.queue, JOBS_2: c.queue } as unknown as Env;
    expect(jobQueues(env)).toHaveLength(3);
    await sendJobs(env, { run_id: "run-2" }, ids(301));
    const per = [a, b, c].map((q) => q.sends.flat().map((m) => m.job_id));
    expect(per.map((p) => p.length)).toEqual([101, 100, 100]);
    per.forEach((p, s) => expect(p.every((id) => Number(id.slice(4)) % 3 === s)).toBe(true));
    expect(per.flat().sort()).toEqual(ids(301).sort());
    expect(Math.max(...[a, b, c].flatMap((q) => q.sends.map((x) => x.length)))).toBeLessThanOrEqual(100);
  });

  it("stops at the first missing shard number and ignores bindings that are not queues", () => {
    const [a, b, d] = [fakeQueue(), fakeQueue(), fakeQueue()];
    const env = { JOBS: a.queue, JOBS_1: b.queue, JOBS_3: d.queue, JOBS_2: "not a queue" } as unknown as Env;
    expect(jobQueues(env)).toEqual([a.queue, b.queue]);
  });
});
