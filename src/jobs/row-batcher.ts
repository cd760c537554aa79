/**
 * Coalesces the D1 result rows of one queue invocation. Each caller still waits until its own row
 * is written (a result reaches D1 before the coordinator hears of it), but rows that arrive within
 * `windowMs` of the first go in one multi-row write: one D1 round trip instead of one per result.
 * With the invocation's `activity` (job-activity.ts) the rows go at once when every running job
 * waits on a batched write, and the window shortens while jobs wait for a place to start.
 *
 * One batcher per invocation, never per isolate: workerd settles a promise only in the request
 * that made it. A failed write fails every caller of that batch; each retries its job as before.
 */
import type { JobActivity } from "./job-activity";

export interface RowBatcherOptions {
  windowMs: number;
  /** Flush at once when this many rows wait. */
  maxRows: number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  activity?: JobActivity;
}

export function rowBatcher<T>(write: (rows: T[]) => Promise<void>, opts: RowBatcherOptions): (row: T) => Promise<void> {
  const setTimer = opts.setTimer ?? ((fn: () => void, ms: number) => setTimeout(fn, ms));
  let pending: { row: T; done: (err?: unknown) => void }[] = [];
  let timerSet = false;

  const flush = () => {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    write(batch.map((p) => p.row)).then(
      () => batch.forEach((p) => p.done()),
      (err: unknown) => batch.forEach((p) => p.done(err ?? new Error("row write failed"))),
    );
  };
  opts.activity?.onAllParked(flush);

  return (row) =>
    new Promise<void>((resolve, reject) => {
      let unpark = () => undefined as void;
      pending.push({
        row,
        done: (err) => {
          unpark();
          if (err === undefined) resolve();
          else reject(err);
        },
      });
      if (pending.length >= opts.maxRows) flush();
      else if (!timerSet) {
        timerSet = true;
        setTimer(() => {
          timerSet = false;
          flush();
        }, opts.activity?.holdMs(opts.windowMs) ?? opts.windowMs);
      }
      // Last: parking may find every job parked, and then this row goes with the others at once.
      if (opts.activity) unpark = opts.activity.park();
    });
}
