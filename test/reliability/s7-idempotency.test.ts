/** Scenario 7 (s7-idempotency.ts): five concurrent POSTs; a run of 20 jobs in full, 5 in the fast subset. */
import { describe, expect, it } from "vitest";
import { idempotencyScenario } from "./s7-idempotency";
import { failures, reportRun, sized } from "./scenario";

describe("scenario 7: one Idempotency-Key, five concurrent submits", () => {
  it("starts one run and answers all five alike", async () => {
    const run = await idempotencyScenario(5, sized(20, 5));
    const report = await reportRun("s7-idempotency-key", "7 Idempotency-Key ×5 concurrently", run);
    expect(failures(report)).toEqual({});
  }, 300_000);
});
