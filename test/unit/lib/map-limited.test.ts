import { describe, expect, it } from "vitest";
import { mapLimited } from "../../../src/lib/map-limited";

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("mapLimited", () => {
  it("keeps the items' order when calls finish out of order, with at most `limit` running", async () => {
    let running = 0;
    let peak = 0;
    const delays = [30, 5, 20, 1, 10, 2, 15];
    const out = await mapLimited(delays, 3, async (ms, i) => {
      peak = Math.max(peak, ++running);
      await tick(ms);
      running--;
      return `${i}:${ms}`;
    });
    expect(out).toEqual(delays.map((ms, i) => `${i}:${ms}`));
    expect(peak).toBe(3);
  });

  it("runs one at a time with limit 1, starts every item once, and maps an empty list to []", async () => {
    const started: number[] = [];
    let running = 0;
    let peak = 0;
    await mapLimited([1, 2, 3], 1, async (x) => {
      started.push(x);
      peak = Math.max(peak, ++running);
      await tick(1);
      running--;
    });
    expect(started).toEqual([1, 2, 3]);
    expect(peak).toBe(1);
    expect(await mapLimited([], 4, async () => 1)).toEqual([]);
  });

  it("rejects with the first error", async () => {
    await expect(mapLimited([1, 2, 3], 2, async (x) => (x === 2 ? Promise.reject(new Error("two")) : x))).rejects.toThrow("two");
  });
});
