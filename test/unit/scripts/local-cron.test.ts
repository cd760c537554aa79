// The local stack fires wrangler.toml's crons itself (scripts/lib/local-cron.mjs): each minute's
// matching crons, with that minute as the event's time, in order, without overlapping ticks.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
// @ts-expect-error plain-Node module without types
import { startLocalCron } from "../../../scripts/lib/local-cron.mjs";

const at = (h: number, m: number, s = 0) => Date.UTC(2026, 11, 7, h, m, s);

describe("the local stack's cron ticker", () => {
  beforeEach(() => vi.useFakeTimers({ now: at(10, 16, 30) }));
  afterEach(() => vi.useRealTimers());

  it("fires each cron at the minutes it matches, with the minute as its time", async () => {
    const fired: [string, string][] = [];
    const stop = startLocalCron({
      crons: ["* * * * *", "17 * * * *"],
      fire: async (cron: string, minute: number) => void fired.push([cron, new Date(minute).toISOString().slice(11, 16)]),
    });
    await vi.advanceTimersByTimeAsync(29_999);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(2 * 60_000);
    stop();
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(fired).toEqual([
      ["* * * * *", "10:17"],
      ["17 * * * *", "10:17"],
      ["* * * * *", "10:18"],
    ]);
  });

  it("a cron that fails is reported and the next one and the next minute still fire", async () => {
    const fired: string[] = [];
    const errors: string[] = [];
    const stop = startLocalCron({
      crons: ["* * * * *", "*/2 * * * *"],
      fire: async (cron: string, minute: number) => {
        if (cron === "* * * * *" && new Date(minute).getUTCMinutes() === 18) throw new Error("handler threw");
        fired.push(`${cron}@${new Date(minute).getUTCMinutes()}`);
      },
      onError: (cron: string, err: Error) => errors.push(`${cron}: ${err.message}`),
    });
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    stop();
    expect(fired).toEqual(["* * * * *@17", "*/2 * * * *@18", "* * * * *@19"]);
    expect(errors).toEqual(["* * * * *: handler threw"]);
  });

  it("a tick still firing when the next minute comes is not overlapped", async () => {
    let inFlight = 0;
    let most = 0;
    const stop = startLocalCron({
      crons: ["* * * * *"],
      fire: async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 90_000));
        inFlight--;
      },
    });
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    stop();
    expect(most).toBe(1);
  });

  it("refuses a cron the worker's parser refuses, naming it", () => {
    expect(() => startLocalCron({ crons: ["61 * * * *"], fire: async () => {} })).toThrow(/cron "61 \* \* \* \*"/);
  });
});
