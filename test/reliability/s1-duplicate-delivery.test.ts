/** Scenario 1 (s1-duplicates.ts) at the suite's size: 200 jobs in full, 20 in the fast subset. */
import { describe, expect, it } from "vitest";
import { duplicateScenario } from "./s1-duplicates";
import { failures, sized, writeScenarioReport } from "./scenario";

const JOBS = sized(200, 20);

describe("scenario 1: duplicate delivery", () => {
  it("sequential: the second copy of every message finds its job done", async () => {
    const run = await duplicateScenario("sequential", JOBS);
    const report = await writeScenarioReport({
      name: "s1-duplicate-sequential",
      scenario: "1 duplicate delivery, sequential",
      size: run.size,
      faults_injected: run.faults,
      check: run.check,
    });
    expect(failures(report)).toEqual({});
  }, 300_000);

  it("concurrent: a copy delivered side by side waits for the first instead of paying again", async () => {
    const run = await duplicateScenario("concurrent", JOBS);
    const report = await writeScenarioReport({
      name: "s1-duplicate-concurrent",
      scenario: "1 duplicate delivery, concurrent",
      size: run.size,
      faults_injected: run.faults,
      check: run.check,
      figures: { busy_retries: run.stats.retried, dead_lettered: run.stats.deadLettered },
    });
    expect(failures(report)).toEqual({});
    // The copies really overlapped: they were handed back as busy while the first ran.
    expect(run.stats.retried).toBeGreaterThan(0);
  }, 300_000);

  it("mid-job: a copy arriving while the first copy is between its model calls", async () => {
    const run = await duplicateScenario("mid-job", JOBS);
    const report = await writeScenarioReport({
      name: "s1-duplicate-mid-job",
      scenario: "1 duplicate delivery, copy mid-job",
      size: run.size,
      faults_injected: run.faults,
      check: run.check,
      figures: { busy_retries: run.stats.retried },
    });
    expect(failures(report)).toEqual({});
    expect(run.stats.retried).toBeGreaterThan(0);
  }, 300_000);

  for (const mode of ["local", "production"] as const) {
    it(`a batch that throws after acking: the ${mode} broker ${mode === "local" ? "redelivers acked messages too" : "keeps its acks"}`, async () => {
      const run = await duplicateScenario(`throw-${mode}`, JOBS);
      const report = await writeScenarioReport({
        name: `s1-batch-throws-${mode}`,
        scenario: `1 batch throws after acks, ${mode} broker`,
        size: run.size,
        faults_injected: run.faults,
        check: run.check,
        figures: { acked_redelivered: run.stats.ackedRedelivered },
      });
      expect(failures(report)).toEqual({});
      expect(run.stats.ackedRedelivered).toBe(mode === "local" ? JOBS : 0);
    }, 300_000);
  }
});
