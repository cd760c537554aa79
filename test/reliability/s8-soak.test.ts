/** Scenario 8 (s8-soak.ts): 10,000 jobs in full, 200 in the fast subset; 10 % of calls faulted. */
import { describe, expect, it } from "vitest";
import { soakScenario } from "./s8-soak";
import { failures, reportRun, sized } from "./scenario";

describe("scenario 8: soak", () => {
  it("every job ends with a result or a classified failure, invariants hold, memory stays flat", async () => {
    const run = await soakScenario(sized(10_000, 200));
    const report = await reportRun("s8-soak", "8 soak, 10 % mixed faults", run);
    expect(failures(report)).toEqual({});
  }, 900_000);
});
