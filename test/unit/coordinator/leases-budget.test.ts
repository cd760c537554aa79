import { describe, expect, it } from "vitest";
import { budgetRoom, budgetSpent, budgetWaitSeconds } from "../../../src/coordinator/budget";
import { LEASE_MS, leaseLeftSeconds } from "../../../src/coordinator/leases";

describe("leaseLeftSeconds", () => {
  const t = 1_000_000;
  it("holds a running job until LEASE_MS after its last news, in whole seconds rounded up", () => {
    expect(leaseLeftSeconds({ state: "running", attempts: 1, updated_at: t }, t)).toBe(LEASE_MS / 1000);
    expect(leaseLeftSeconds({ state: "running", attempts: 1, updated_at: t }, t + LEASE_MS - 1500)).toBe(2);
    expect(leaseLeftSeconds({ state: "running", attempts: 1, updated_at: t }, t + LEASE_MS)).toBeNull();
  });
  it("holds no job that is not running", () => {
    expect(leaseLeftSeconds({ state: "pending", attempts: 1, updated_at: t }, t)).toBeNull();
    expect(leaseLeftSeconds({ state: "done", attempts: 1, updated_at: t }, t)).toBeNull();
  });
});

describe("budgetSpent", () => {
  it("is spent once the recorded cost reaches the budget; no budget is never spent", () => {
    expect(budgetSpent(1, 0.99)).toBe(false);
    expect(budgetSpent(1, 1)).toBe(true);
    expect(budgetSpent(0, 0)).toBe(true);
    expect(budgetSpent(undefined, 1e9)).toBe(false);
  });
});

describe("budgetRoom", () => {
  it("starts a job while nothing runs and the spend is below the limit: the plain rule", () => {
    expect(budgetRoom(1, { spentUsd: 0, running: 0, finished: 0 })).toBe("start");
    expect(budgetRoom(1, { spentUsd: 0.99, running: 0, finished: 5 })).toBe("start");
    expect(budgetRoom(1, { spentUsd: 1, running: 0, finished: 5 })).toBe("spent");
  });
  it("runs one job at a time until one has finished and shown what a job costs", () => {
    expect(budgetRoom(1, { spentUsd: 0, running: 1, finished: 0 })).toBe("unknown");
    expect(budgetRoom(1, { spentUsd: 0.1, running: 3, finished: 0 })).toBe("unknown");
  });
  it("lets each running job hold the average cost of a finished one", () => {
    // $0.30 over one finished job: two running hold $0.60, $0.90 in all, below $1: one more starts.
    expect(budgetRoom(1, { spentUsd: 0.3, running: 2, finished: 1 })).toBe("start");
    // Three running hold $0.90: $1.20 with the spend, so the next waits for them.
    expect(budgetRoom(1, { spentUsd: 0.3, running: 3, finished: 1 })).toBe("held");
    // Jobs that cost nothing hold nothing.
    expect(budgetRoom(1, { spentUsd: 0, running: 500, finished: 10 })).toBe("start");
  });
});

describe("budgetWaitSeconds", () => {
  it("waits a second for up to 500 waiting jobs, then a second per 500, at most 30", () => {
    expect(budgetWaitSeconds(0)).toBe(1);
    expect(budgetWaitSeconds(500)).toBe(1);
    expect(budgetWaitSeconds(501)).toBe(2);
    expect(budgetWaitSeconds(5_000)).toBe(10);
    expect(budgetWaitSeconds(100_000)).toBe(30);
  });
});
