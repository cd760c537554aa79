/** Scenario 2 (s2-double-send.ts) at the suite's size: 200 jobs in full, 20 in the fast subset. */
import { describe, expect, it } from "vitest";
import { doubleSendScenario } from "./s2-double-send";
import { failures, sized, writeScenarioReport } from "./scenario";

const JOBS = sized(200, 20);

describe("scenario 2: producer double-send", () => {
  for (const via of ["broker", "local-queue"] as const) {
    it(`every job sent twice with its own message ids (${via})`, async () => {
      const run = await doubleSendScenario(via, JOBS);
      const report = await writeScenarioReport({
        name: `s2-double-send-${via}`,
        scenario: `2 producer double-send, ${via === "broker" ? "suite broker" : "miniflare queue"}`,
        size: run.size,
        faults_injected: run.faults,
        check: run.check,
        figures: run.figures,
      });
      expect(failures(report)).toEqual({});
    }, 300_000);
  }
});
