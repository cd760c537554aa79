/** Scenario 3 (s3-crash-points.ts): 100 jobs in full, 20 in the fast subset; 30 % of them crash once. */
import { describe, expect, it } from "vitest";
import { crashScenario } from "./s3-crash-points";
import { failures, sized, writeScenarioReport } from "./scenario";

describe("scenario 3: a crash at every point of a job", () => {
  it("ends as the no-fault run does; only calls between a response and its checkpoint are paid again", async () => {
    const run = await crashScenario(sized(100, 20));
    const report = await writeScenarioReport({
      name: "s3-crash-points",
      scenario: "3 crash at every point of a job (30 %)",
      size: run.size,
      faults_injected: run.faults,
      check: run.check,
      extra: run.extra,
      figures: run.figures,
    });
    expect(failures(report)).toEqual({});
  }, 300_000);
});
