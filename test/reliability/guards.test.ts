/**
 * Each reliability guard (src/lib/guards.ts), switched off, makes its scenario fail: the invariant
 * checker reports the failure. Run small (the guard's effect shows at any size) and reported to
 * .reliability/ as `guard-<name>` rows whose invariant `off_fails` holds when the scenario failed.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type GuardName, GUARDS, switchGuardOffForTest } from "../../src/lib/guards";
import { duplicateScenario } from "./s1-duplicates";
import { idempotencyScenario } from "./s7-idempotency";
import { crashScenario } from "./s3-crash-points";
import { deadLetterScenario } from "./s9-dead-letter";
import { rateWindowScenario } from "./s6-rate-window";
import { soakScenario } from "./s8-soak";
import type { CheckOutcome } from "./invariants";
import { writeReport, SIZE_MODE } from "./scenario";

afterEach(() => {
  for (const g of Object.keys(GUARDS) as GuardName[]) switchGuardOffForTest(g, false);
});

/** Runs `scenario` with `guards` off; the report says which invariants failed. */
async function withGuardsOff(
  guards: GuardName[],
  scenario: string,
  run: () => Promise<{ check: CheckOutcome; size: string; faults: number }>,
) {
  for (const g of guards) switchGuardOffForTest(g);
  const { check, size, faults } = await run();
  const failed = Object.entries(check.invariants).filter(([, v]) => !v.pass);
  await writeReport({
    name: `guard-${guards.join("-").replaceAll("_", "-")}`,
    scenario: `guard off: ${guards.join(" + ")} → ${scenario}`,
    size_mode: SIZE_MODE,
    size,
    faults_injected: faults,
    lost: check.lost,
    duplicated: check.duplicated,
    repaid_calls: check.repaid_calls,
    terminal_status: check.terminal_status,
    invariants: {
      off_fails: {
        pass: failed.length > 0,
        detail: failed.length ? `failed: ${failed.map(([k, v]) => `${k} (${v.detail})`).join("; ")}` : "every invariant still held",
      },
    },
    figures: {},
  });
  return failed.map(([k]) => k);
}

describe("each guard switched off makes its scenario fail", () => {
  it("claim_lease → scenario 1 concurrent: both copies pay for the job", async () => {
    expect(await withGuardsOff(["claim_lease"], "1 duplicate delivery, concurrent", () => duplicateScenario("concurrent", 20))).toContain(
      "repaid",
    );
  }, 120_000);

  it("claim_skips_finished + saved_results → scenario 1 sequential: the second copies judge again", async () => {
    // Layered: with only the claim's guard off, a redelivery still finds its results in D1 (saved_results) and pays nothing.
    switchGuardOffForTest("claim_skips_finished");
    const layered = await duplicateScenario("sequential", 10);
    expect(Object.entries(layered.check.invariants).filter(([, v]) => !v.pass)).toEqual([]);
    switchGuardOffForTest("claim_skips_finished", false);
    expect(
      await withGuardsOff(["claim_skips_finished", "saved_results"], "1 duplicate delivery, sequential", () =>
        duplicateScenario("sequential", 20),
      ),
    ).toContain("repaid");
  }, 120_000);

  it("idempotency_key → scenario 7: five runs", async () => {
    const failed = await withGuardsOff(["idempotency_key"], "7 Idempotency-Key ×5", async () => {
      const run = await idempotencyScenario(5, 2);
      return { ...run, check: { ...run.check, invariants: { ...run.check.invariants, ...run.extra } } };
    });
    expect(failed).toContain("one_run");
  }, 120_000);

  // Scenario 3's own checks (re-paid calls all explained) join the invariants it is judged by.
  const crashRun = async () => {
    const run = await crashScenario(20);
    return { ...run, check: { ...run.check, invariants: { ...run.check.invariants, ...run.extra } } };
  };

  it("saved_results → scenario 3: a result saved before the crash is judged again", async () => {
    expect(await withGuardsOff(["saved_results"], "3 crash at every point", crashRun)).toContain("repaid");
  }, 120_000);

  it("answer_checkpoint → scenario 3: a job that crashed after its answer was checkpointed asks for it again", async () => {
    expect(await withGuardsOff(["answer_checkpoint"], "3 crash at every point", crashRun)).toContain("repaid");
  }, 120_000);

  it("dead_letter_marks_dead → scenario 9 dead-letter: the poison job stays open and the run never ends", async () => {
    // With the guard on the same run ends partial and every invariant holds.
    const on = await deadLetterScenario(4);
    expect(Object.entries(on.check.invariants).filter(([, v]) => !v.pass)).toEqual([]);
    expect(on.stats.deadLettered).toBe(1);
    const failed = await withGuardsOff(["dead_letter_marks_dead"], "9 dead-letter → partial", () => deadLetterScenario(4));
    expect(failed).toEqual(expect.arrayContaining(["terminal", "totals_match"]));
  }, 120_000);

  // Not a guard of the code but of the check: memory kept per job (a leak, in the worker's isolate)
  // must fail scenario 8's memory_flat, collected or not: 2 MB a job over 400 jobs (5 rounds of 80), ~800 MB.
  it("a leak → scenario 8: memory_flat fails", async () => {
    const run = await soakScenario(400, 20, { leakKbPerJob: 2048 });
    const flat = run.extra.memory_flat!;
    await writeReport({
      name: "guard-memory-leak",
      scenario: "2 MB kept per job → 8 soak",
      size_mode: SIZE_MODE,
      size: run.size,
      faults_injected: run.faults,
      lost: run.check.lost,
      duplicated: run.check.duplicated,
      repaid_calls: run.check.repaid_calls,
      terminal_status: run.check.terminal_status,
      invariants: { off_fails: { pass: !flat.pass, detail: `memory_flat ${flat.pass ? "still held" : "failed"}: ${flat.detail}` } },
      figures: {},
    });
    expect(flat.pass).toBe(false);
  }, 300_000);

  // Full size only, as scenario 6 itself: a provider's 429s and their retry-after take a while even small.
  it.skipIf(SIZE_MODE === "fast")(
    "request_window → scenario 6: more than rpm requests reach the provider within a minute",
    async () => {
      const failed = await withGuardsOff(["request_window"], "6 rate window", async () => {
        const run = await rateWindowScenario(20, 10, { realDelays: false });
        return { ...run, check: { ...run.check, invariants: { ...run.check.invariants, ...run.extra } } };
      });
      expect(failed).toContain("window_within_limit");
    },
    300_000,
  );
});
