/** Scenario 4 (s4-coordinator-restart.ts): 200 jobs and 12 restarts in full, 20 jobs and 4 restarts in the fast subset. */
import { describe, expect, it } from "vitest";
import { coordinatorRestartScenario } from "./s4-coordinator-restart";
import { failures, reportRun, sized } from "./scenario";

describe("scenario 4: coordinator restart mid-aggregation", () => {
  it("rebuilds from its storage, counts nothing twice, completes once", async () => {
    const run = await coordinatorRestartScenario(sized(200, 20), sized(6, 2));
    const report = await reportRun("s4-coordinator-restart", "4 coordinator restart mid-aggregation", run);
    expect(failures(report)).toEqual({});
    // At least one restart while jobs ran, and one after the end.
    expect(run.figures.restarts_mid_run).toBe(2 * sized(6, 2));
  }, 300_000);
});
