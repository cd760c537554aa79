/**
 * Coalesces one queue invocation's calls to a run's coordinator: claims made in the same turn of
 * the event loop, and answer checkpoints and results recorded within a short window, go to the
 * Durable Object as one `applyBatch` call. A batch of 40 jobs that used to make ~120 calls to the
 * object makes a handful (bench/throughput: calls into Durable Objects were the largest share of
 * the worker's CPU). Each caller still waits for its own operation, and gets its own answer or
 * error; a batch that cannot be delivered fails every caller in it, and each job retries as before.
 *
 * With the invocation's `activity` (job-activity.ts), a claim or a result that its job waits on
 * counts the job as parked: once every running job is, the batch goes at once. An answer
 * checkpoint does not (its job carries on with its judge call meanwhile).
 *
 * One batcher per invocation and run, never per isolate: workerd settles a promise only in the
 * request that made it.
 */
import type { CoordinatorOp, CoordinatorOpResult } from "../coordinator/batch-ops";
import type { Claim, RecordedResult } from "../coordinator/rpc-types";
import type { JobActivity } from "./job-activity";

/** The coordinator as the batcher sees it (the Durable Object stub at the edge). */
export interface BatchTarget {
  applyBatch(ops: CoordinatorOp[]): Promise<CoordinatorOpResult[]>;
  release(jobId: string): Promise<void>;
  completeJob(jobId: string): Promise<void>;
}

export interface CoordinatorBatcherOptions {
  /**
   * How long a checkpoint or a result may wait for others. Claims never wait beyond the current
   * turn: a job's start is on the path to its first model call, while these are not.
   */
  windowMs: number;
  /** Send at once when this many operations wait, or when the answers waiting hold this many characters. */
  maxOps: number;
  maxChars: number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  /** Told, after each batch, whether the run was cancelled as of when the batch was sent (src/jobs/cancel-gate.ts). */
  onRunState?: (cancelled: boolean, asOf: number) => void;
  activity?: JobActivity;
}

/**
 * bench/throughput (N 400, C 64): a 20 ms window made 246 calls for 400 jobs' 1,200 operations, a
 * 100 ms one 72. With the invocation's activity the window costs a job nothing once every job waits.
 */
export const DEFAULT_COORDINATOR_BATCHING: CoordinatorBatcherOptions = { windowMs: 100, maxOps: 100, maxChars: 4_000_000 };

interface Pending {
  op: CoordinatorOp;
  settle: (r: CoordinatorOpResult | { transport: unknown }) => void;
}

export function coordinatorBatcher(target: BatchTarget, opts: CoordinatorBatcherOptions = DEFAULT_COORDINATOR_BATCHING) {
  const setTimer = opts.setTimer ?? ((fn: () => void, ms: number) => setTimeout(fn, ms));
  let pending: Pending[] = [];
  let chars = 0;
  let turnTimer = false;
  let windowTimer = false;

  const flush = () => {
    const batch = pending;
    pending = [];
    chars = 0;
    if (batch.length === 0) return;
    const sentAt = Date.now();
    target.applyBatch(batch.map((p) => p.op)).then(
      (results) => {
        opts.onRunState?.(
          results.some((r) => r.ok && r.cancelled === true),
          sentAt,
        );
        batch.forEach((p, i) => p.settle(results[i] ?? { ok: false, error: "the coordinator returned no result for this operation" }));
      },
      (err: unknown) => batch.forEach((p) => p.settle({ transport: err })),
    );
  };

  opts.activity?.onAllParked(flush);

  /** `parks`: the job waits on this operation before it does anything else. */
  const enqueue = (op: CoordinatorOp, waitMs: number, parks = true) =>
    new Promise<CoordinatorOpResult & { ok: true }>((resolve, reject) => {
      let unpark = () => undefined as void;
      pending.push({
        op,
        settle: (r) => {
          unpark();
          if ("transport" in r) reject(r.transport ?? new Error("coordinator batch failed"));
          else if (!r.ok) reject(new Error(r.error));
          else resolve(r);
        },
      });
      if (op.op === "saveAnswer") chars += op.answer.length;
      if (pending.length >= opts.maxOps || chars >= opts.maxChars) flush();
      else if (waitMs === 0 && !turnTimer) {
        turnTimer = true;
        setTimer(() => {
          turnTimer = false;
          flush();
        }, 0);
      } else if (waitMs > 0 && !windowTimer) {
        windowTimer = true;
        setTimer(() => {
          windowTimer = false;
          flush();
        }, opts.activity?.holdMs(waitMs) ?? waitMs);
      }
      // Last: parking may find every job parked, and then this operation goes with the others at once.
      if (parks && opts.activity) unpark = opts.activity.park();
    });

  return {
    async claim(jobId: string): Promise<Claim> {
      const r = await enqueue({ op: "claim", job_id: jobId }, 0);
      if (!r.claim) throw new Error("the coordinator answered a claim without a claim");
      return r.claim;
    },
    async saveAnswer(jobId: string, answer: string): Promise<void> {
      await enqueue({ op: "saveAnswer", job_id: jobId, answer }, opts.windowMs, false);
    },
    async record(result: RecordedResult, o: { completesJob?: boolean } = {}): Promise<void> {
      await enqueue({ op: "record", result, completesJob: o.completesJob ?? false }, opts.windowMs);
    },
    release: (jobId: string) => target.release(jobId),
    completeJob: (jobId: string) => target.completeJob(jobId),
  };
}
