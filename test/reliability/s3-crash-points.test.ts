/** Scenario 3 (s3-crash-points.ts): 100 jobs in full, 20 in the fast subset; 30 % of them crash once. */
import { describe, expect, it } from "vitest";
import { crashScenario } from "./s3-crash-points";
import { failures, reportRun, sized } from "./scenario";

describe("scenario 3: a crash at every point of a job", () => {
  it("ends as the no-fault run does; only calls between a response and its checkpoint are paid again", async () => {
    const run = await crashScenario(sized(100, 20));
    const report = await reportRun("s3-crash-points", "3 crash at every point of a job (30 %)", run);
    expect(failures(report)).toEqual({});
  }, 300_000);
});
