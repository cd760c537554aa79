import { describe, expect, it } from "vitest";
import { statusOf, summarize } from "../../../src/coordinator/progress";

describe("summarize", () => {
  it("reports every (answering, parsing) pair, with pass_rate over passed + failed only", () => {
    const s = summarize(["a1", "a2"], ["j"], 4, [
      { answering_id: "a1", parsing_id: "j", verdict: "pass", n: 2 },
      { answering_id: "a1", parsing_id: "j", verdict: "fail", n: 1 },
      { answering_id: "a1", parsing_id: "j", verdict: "error", n: 1 },
    ]);
    expect(s).toEqual([
      { answering_model: "a1", parsing_model: "j", total: 4, passed: 2, failed: 1, errored: 1, pass_rate: 2 / 3 },
      { answering_model: "a2", parsing_model: "j", total: 4, passed: 0, failed: 0, errored: 0, pass_rate: null },
    ]);
  });

  it("does not hold judge failures against the answer: all errors → pass_rate null", () => {
    const [pair] = summarize(["a"], ["j"], 1, [{ answering_id: "a", parsing_id: "j", verdict: "error", n: 1 }]);
    expect(pair!.pass_rate).toBeNull();
  });
});

describe("statusOf", () => {
  it("is queued before any job starts and running after", () => {
    expect(statusOf({ total: 3, done: 0, dead: 0, started: false })).toBe("queued");
    expect(statusOf({ total: 3, done: 1, dead: 0, started: true })).toBe("running");
  });
  it("is completed, partial or failed once every job is done or dead", () => {
    expect(statusOf({ total: 3, done: 3, dead: 0, started: true })).toBe("completed");
    expect(statusOf({ total: 3, done: 2, dead: 1, started: true })).toBe("partial");
    expect(statusOf({ total: 3, done: 0, dead: 3, started: true })).toBe("failed");
  });
});
