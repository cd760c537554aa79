import { describe, expect, it } from "vitest";
import { delayBeforeAttempt, MAX_ATTEMPTS } from "../../../src/webhooks/schedule";

describe("webhook retry schedule", () => {
  it("waits 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then stops (no jitter at random = 0.5)", () => {
    const steps = Array.from({ length: MAX_ATTEMPTS + 1 }, (_, i) => delayBeforeAttempt(i, 1, () => 0.5));
    expect(steps).toEqual([0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, null]);
  });

  it("jitters each delay within ±20 %", () => {
    expect(delayBeforeAttempt(2, 1, () => 0)).toBe(240_000);
    expect(delayBeforeAttempt(2, 1, () => 0.999999)).toBeCloseTo(360_000, -1);
    for (let i = 0; i < 200; i++) {
      const d = delayBeforeAttempt(4, 1)!;
      expect(d).toBeGreaterThanOrEqual(7_200_000 * 0.8);
      expect(d).toBeLessThanOrEqual(7_200_000 * 1.2);
    }
  });

  it("scales the schedule (WEBHOOK_RETRY_SCALE)", () => {
    expect(delayBeforeAttempt(1, 0.001, () => 0.5)).toBe(5);
  });
});
