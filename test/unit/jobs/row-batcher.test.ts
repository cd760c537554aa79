import { describe, expect, it } from "vitest";
import { rowBatcher } from "../../../src/jobs/row-batcher";

/** Timers that fire only when the test says so. */
function manualTimers() {
  const due: (() => void)[] = [];
  return { setTimer: (fn: () => void) => void due.push(fn), fire: () => due.splice(0).forEach((f) => f()) };
}

const settled = <T>(p: Promise<T>) =>
  p.then(
    () => "resolved",
    () => "rejected",
  );
const flushMicrotasks = () => new Promise((r) => setTimeout(r, 0));

describe("rowBatcher", () => {
  it("writes rows that arrive within the window together, and each caller waits for its row", async () => {
    const writes: number[][] = [];
    const timers = manualTimers();
    const write = rowBatcher(async (rows: number[]) => void writes.push(rows), { windowMs: 25, maxRows: 50, setTimer: timers.setTimer });
    const state: string[] = [];
    const saves = [1, 2, 3].map((n) => write(n).then(() => state.push(`saved ${n}`)));
    await flushMicrotasks();
    expect(writes).toEqual([]); // nothing written before the window closes
    expect(state).toEqual([]);
    timers.fire();
    await Promise.all(saves);
    expect(writes).toEqual([[1, 2, 3]]);
    expect(state).toEqual(["saved 1", "saved 2", "saved 3"]);

    const later = write(4);
    timers.fire();
    await later;
    expect(writes).toEqual([[1, 2, 3], [4]]);
  });

  it("flushes at once when maxRows wait", async () => {
    const writes: number[][] = [];
    const timers = manualTimers();
    const write = rowBatcher(async (rows: number[]) => void writes.push(rows), { windowMs: 25, maxRows: 2, setTimer: timers.setTimer });
    await Promise.all([write(1), write(2)]);
    expect(writes).toEqual([[1, 2]]);
    const third = write(3);
    timers.fire(); // the first window's timer finds nothing pending
    await third;
    expect(writes).toEqual([[1, 2], [3]]);
  });

  it("fails every caller of a batch whose write failed, and the next batch is unaffected", async () => {
    const timers = manualTimers();
    let fail = true;
    const write = rowBatcher(
      async (rows: number[]) => {
        if (fail) throw new Error(`D1 down (${rows.length} rows)`);
      },
      { windowMs: 25, maxRows: 50, setTimer: timers.setTimer },
    );
    const a = write(1);
    const b = write(2);
    timers.fire();
    await expect(a).rejects.toThrow("D1 down (2 rows)");
    expect(await settled(b)).toBe("rejected");
    fail = false;
    const c = write(3);
    timers.fire();
    expect(await settled(c)).toBe("resolved");
  });
});
