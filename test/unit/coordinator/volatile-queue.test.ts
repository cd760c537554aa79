import { describe, expect, it } from "vitest";
import { queueSince } from "../../../src/coordinator/volatile-queue";

describe("queueSince", () => {
  it("is 0 deployed, where the queue keeps its messages through a restart", () => {
    expect(queueSince({}, 1_000)).toBe(0);
    expect(queueSince({ EDGEVAL_ENV: "production" }, 2_000)).toBe(0);
  });

  it("locally, is when the isolate's first coordinator asked, however often asked after", () => {
    expect(queueSince({ EDGEVAL_ENV: "local" }, 5_000)).toBe(5_000);
    expect(queueSince({ EDGEVAL_ENV: "local" }, 9_000)).toBe(5_000);
  });
});
