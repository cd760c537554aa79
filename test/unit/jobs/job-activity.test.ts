import { describe, expect, it } from "vitest";
import { jobActivity } from "../../../src/jobs/job-activity";
import { rowBatcher } from "../../../src/jobs/row-batcher";

/** A job that runs until the test ends it. */
function openJob() {
  let end!: () => void;
  const ended = new Promise<void>((r) => {
    end = r;
  });
  return { ended, end };
}

const microtask = () => new Promise<void>((r) => queueMicrotask(r));

/** An activity of two job slots counting its flushes, and two open jobs a and b. */
function twoJobs() {
  const activity = jobActivity(2, 20);
  const count = { flushes: 0 };
  activity.onAllParked(() => count.flushes++);
  return { activity, count, a: openJob(), b: openJob() };
}

describe("jobActivity", () => {
  it("calls the flushes when every running job is parked, not before", async () => {
    const { activity, count, a, b } = twoJobs();
    void activity.run(() => a.ended);
    void activity.run(() => b.ended);
    const unparkA = activity.park();
    await microtask();
    expect(count.flushes).toBe(0); // b still runs: a result of b's may yet join the batch
    activity.park();
    expect(count.flushes).toBe(0); // checked once the synchronous part is over (jobs start in one loop)
    await microtask();
    expect(count.flushes).toBe(1);
    unparkA();
    unparkA(); // a second unpark of the same park counts once
    activity.park();
    await microtask();
    expect(count.flushes).toBe(2);
  });

  it("calls the flushes when the job that was not parked ends", async () => {
    const { activity, count, a, b } = twoJobs();
    void activity.run(() => a.ended);
    const bRun = activity.run(() => b.ended);
    activity.park();
    await microtask();
    expect(count.flushes).toBe(0);
    b.end();
    await bRun;
    await microtask();
    expect(count.flushes).toBe(1);
  });

  it("holds writes for the short window while jobs of the invocation wait to start", () => {
    const activity = jobActivity(2, 20);
    void activity.run(() => openJob().ended);
    expect(activity.holdMs(250)).toBe(20);
    void activity.run(() => openJob().ended);
    expect(activity.holdMs(250)).toBe(250);
    expect(activity.holdMs(10)).toBe(10);
  });

  it("lets a row batcher write at once once every job waits on it", async () => {
    const activity = jobActivity(2, 20);
    const writes: number[][] = [];
    const write = rowBatcher(async (rows: number[]) => void writes.push(rows), {
      windowMs: 60_000,
      maxRows: 50,
      setTimer: () => undefined, // the window never closes: only the activity can send the rows
      activity,
    });
    await Promise.all([activity.run(() => write(1)), activity.run(() => write(2))]);
    expect(writes).toEqual([[1, 2]]);
  });
});
