import { describe, expect, it } from "vitest";
import { cancelGate, knownCancelled, MAX_AGE_MS, noteRunState } from "../../../src/jobs/cancel-gate";

describe("the cancel gate", () => {
  it("uses a flag younger than MAX_AGE_MS without asking, asks once for all calls waiting on a stale one", async () => {
    const run = `run-${Math.random()}`;
    let now = 1_000;
    let asked = 0;
    let cancelled = false;
    const gate = cancelGate(
      async () => {
        asked++;
        return cancelled;
      },
      () => now,
    );
    noteRunState(run, false, now);
    now += MAX_AGE_MS;
    expect(await gate.mayCall(run)).toBe(true);
    expect(asked).toBe(0);
    now += 1;
    cancelled = true;
    expect(await Promise.all([gate.mayCall(run), gate.mayCall(run), gate.mayCall(run)])).toEqual([false, false, false]);
    expect(asked).toBe(1);
    expect(knownCancelled(run)).toBe(true);
    // Cancelled stays cancelled: no more asking, and a later "not cancelled" answer cannot undo it.
    noteRunState(run, false, now + 10_000);
    now += 10_000;
    expect(await gate.mayCall(run)).toBe(false);
    expect(asked).toBe(1);
  });

  it("a flag carried on a coordinator answer is used as of when it was sent; a coordinator that cannot be asked lets the call go", async () => {
    const run = `run-${Math.random()}`;
    const now = 5_000;
    const gate = cancelGate(
      async () => {
        throw new Error("unreachable");
      },
      () => now,
    );
    expect(await gate.mayCall(run)).toBe(true);
    noteRunState(run, true, now);
    expect(await gate.mayCall(run)).toBe(false);
  });
});
