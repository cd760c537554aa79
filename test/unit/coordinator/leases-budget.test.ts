import { describe, expect, it } from "vitest";
import { budgetSpent } from "../../../src/coordinator/budget";
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
