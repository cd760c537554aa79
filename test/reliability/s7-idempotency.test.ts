/** Scenario 7 (s7-idempotency.ts): five concurrent POSTs; a run of 20 jobs in full, 5 in the fast subset. */
import { describe, expect, it } from "vitest";
import { idempotencyScenario } from "./s7-idempotency";
import { failures, sized, writeScenarioReport } from "./scenario";

describe("scenario 7: one Idempotency-Key, five concurrent submits", () => {
  it("starts one run and answers all five alike", async () => {
    const run = await idempotencyScenario(5, sized(20, 5));
    const report = await writeScenarioReport({
      name: "s7-idempotency-key",
      scenario: "7 Idempotency-Key ×5 concurrently",
      size: run.size,
      faults_injected: run.faults,
      check: run.check,
      extra: run.extra,
      figures: run.figures,
    });
    expect(failures(report)).toEqual({});
  }, 300_000);
});
