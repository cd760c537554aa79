/**
 * Where job messages go. `JOBS` is the job queue; a deployment may add shards `JOBS_1`, `JOBS_2`,
 * … (same consumer, same dead-letter queue) and jobs are then spread over them round-robin.
 *
 * One queue is enough in production, where a backlog scales the consumer out to parallel
 * invocations. Locally a queue delivers one batch at a time, so shards are how the local stack
 * runs batches side by side, as production's invocations do (bench/throughput uses them).
 */
import { bindingByName, type Env } from "../env";
import type { JobMessage } from "../schemas/queue";
import type { RunRef } from "../storage/r2-keys";

/** Whose jobs: the run, and the coordinator shard they belong to (shards.ts) if the run has shards. */
export type JobRoute = RunRef & { shard?: number };

/** Queues take at most 100 messages per sendBatch. */
const SEND_BATCH = 100;

export function jobQueues(env: Env): Queue<unknown>[] {
  const queues = [env.JOBS];
  for (let i = 1; ; i++) {
    const shard = bindingByName(env, `JOBS_${i}`) as Queue<unknown> | undefined;
    if (!shard || typeof shard.sendBatch !== "function") return queues;
    queues.push(shard);
  }
}

/**
 * Sends one message per job, job i to shard i mod S, at most 100 per send. `accepted` is told each
 * send's ids once the queue has taken them (the coordinator's stall watch re-sends only the others).
 */
export async function sendJobs(
  env: Env,
  run: JobRoute,
  jobIds: readonly string[],
  accepted?: (ids: string[]) => void | Promise<void>,
): Promise<void> {
  const queues = jobQueues(env);
  const perShard = queues.map((): JobMessage[] => []);
  jobIds.forEach((job_id, i) =>
    perShard[i % queues.length]!.push({
      run_id: run.run_id,
      ...(run.tenant_id ? { tenant_id: run.tenant_id } : {}),
      job_id,
      ...(run.shard !== undefined ? { shard: run.shard } : {}),
    }),
  );
  await Promise.all(
    queues.map(async (queue, s) => {
      const bodies = perShard[s]!;
      for (let i = 0; i < bodies.length; i += SEND_BATCH) {
        const sent = bodies.slice(i, i + SEND_BATCH);
        await queue.sendBatch(sent.map((body) => ({ body })));
        await accepted?.(sent.map((b) => b.job_id));
      }
    }),
  );
}
