/**
 * What one queue invocation's jobs are doing, for the batchers that coalesce their writes
 * (row-batcher.ts, coordinator-batcher.ts). A batcher holds a write for a window so that results
 * finishing close together share one D1 or Durable Object call; the longer the window, the fewer
 * calls (bench/throughput: each D1 batch and each Durable Object call is a fixed cost of the
 * local workerd thread, larger than the rows it carries). Two rules keep a long window from
 * slowing the jobs down:
 *
 * - Once every running job waits on a batched write ("parked"), nothing more can join a batch:
 *   the batchers send at once (`onAllParked`), so the last results of a run, or of an invocation,
 *   never wait out a window. Checked in a microtask, not at once: the jobs of a batch start in one
 *   synchronous loop, and the first must not find itself alone and send its claim by itself.
 * - While some of the invocation's jobs wait for a free place to start (JOB_CONCURRENCY below the
 *   batch size, as deployed), a parked job holds a place that one of them could use: the batchers
 *   then hold writes only for `shortMs` (`holdMs`).
 *
 * One per invocation, never per isolate: workerd settles a promise only in the request that made it.
 */
export interface JobActivity {
  /** Runs one job, counted as running from its start to its end. */
  run<T>(job: () => Promise<T>): Promise<T>;
  /** A running job now waits on a batched write; the returned function says it no longer does. */
  park(): () => void;
  /** `flush` is called whenever every running job is parked. */
  onAllParked(flush: () => void): void;
  /** How long a batcher may hold a write whose own window is `windowMs`. */
  holdMs(windowMs: number): number;
}

export function jobActivity(jobs: number, shortMs: number): JobActivity {
  let started = 0;
  let running = 0;
  let parked = 0;
  const flushes: (() => void)[] = [];
  let checkQueued = false;
  const flushIfAllParked = () => {
    if (checkQueued) return;
    checkQueued = true;
    queueMicrotask(() => {
      checkQueued = false;
      if (running > 0 && parked >= running) for (const flush of flushes) flush();
    });
  };
  return {
    async run(job) {
      started += 1;
      running += 1;
      try {
        return await job();
      } finally {
        running -= 1;
        flushIfAllParked();
      }
    },
    park() {
      parked += 1;
      flushIfAllParked();
      let done = false;
      return () => {
        if (done) return;
        done = true;
        parked -= 1;
      };
    },
    onAllParked(flush) {
      flushes.push(flush);
    },
    holdMs: (windowMs) => (started < jobs ? Math.min(shortMs, windowMs) : windowMs),
  };
}
