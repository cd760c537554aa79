/**
 * Every run ends (issue 20 item 3): a job that always throws is retried until the queue gives up,
 * reaches the dead-letter queue, whose consumer marks it dead (handleDeadLetter → markDead), and
 * the run ends partial with the other job's result.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { addFakeRules, api, d1ResultRows, exactTemplate, fakeModel, submitRun, uniqueModel, waitForRun } from "./helpers";
import { checkRun } from "../reliability/invariants";
import { failures, writeScenarioReport } from "../reliability/scenario";
import { coordinatorOfJobIn } from "./shard-helpers";

describe("a poison job", () => {
  it("reaches the dead-letter queue, is marked dead, and the run ends partial", async () => {
    const judge = uniqueModel("poison-judge");
    await addFakeRules([
      // The poison question's first judge call is slow, so the trap below is set before its result is recorded.
      { match: { model: judge, contains: "POISON" }, reply: { json: { answer: "x" }, latency_ms: 1_500 } },
      { match: { model: judge }, reply: { json: { answer: "x" } } },
    ]);
    const runId = await submitRun({
      benchmark: {
        name: "poison",
        questions: [
          { id: "ok", question: "Fine question?", template: exactTemplate("x") },
          { id: "poison", question: "POISON question?", template: exactTemplate("x") },
        ],
      },
      config: {
        answering_models: [{ id: "m", interface: "manual", manual_answers: { ok: "x", poison: "x" } }],
        parsing_models: [fakeModel("j", judge)],
      },
    });
    const row = await env.DB.prepare("SELECT coordinator_name FROM runs WHERE run_id = ?")
      .bind(runId)
      .first<{ coordinator_name: string }>();
    // Job 1.0.1 (the second question) can never be recorded: every delivery throws at its last step
    // (at the coordinator that holds the job: the run's own, or in the workers-sharded project its shard).
    await runInDurableObject(env.RUNS.getByName(await coordinatorOfJobIn(runId, "1.0.1")), async (_instance, state) => {
      state.storage.sql.exec(
        "CREATE TRIGGER poison BEFORE INSERT ON results WHEN NEW.job_id = '1.0.1' BEGIN SELECT RAISE(ABORT, 'poison job'); END",
      );
    });
    const view = await waitForRun(runId, ["completed", "partial", "failed"], 25_000);
    expect(view.status).toBe("partial");
    const snap = await env.RUNS.getByName(row!.coordinator_name).snapshot();
    expect(snap!.jobs).toEqual({ total: 2, done: 1, dead: 1, skipped: 0 });
    expect(snap!.progress).toEqual({ total: 2, done: 1 });
    expect((await d1ResultRows(runId)).find((r) => r.question_id === "ok")).toMatchObject({ verdict: "pass" });
    const d1 = await env.DB.prepare("SELECT status, finished_at FROM runs WHERE run_id = ?")
      .bind(runId)
      .first<{ status: string; finished_at: string | null }>();
    expect(d1!.status).toBe("partial");
    expect(d1!.finished_at).not.toBeNull();
    expect(((await (await api(`/v1/runs/${runId}`)).json()) as any).status).toBe("partial");
    // The poison job's result reached D1 (and its usage the tenant ledger) before the coordinator
    // refused it; a dead job's unrecorded results are no results of the run (src/jobs/dead-letter.ts):
    // D1 and the ledger hold the "ok" result alone, as the coordinator does.
    expect((await d1ResultRows(runId)).map((r) => r.question_id)).toEqual(["ok"]);
    // Scenario 9 of the reliability suite (test/reliability/README.md): the run's invariants, as a report.
    const check = await checkRun({
      runId,
      keys: [{ question_id: "ok", answering_model: "m", parsing_model: "j", replicate: 1 }],
      terminal: ["partial"],
    });
    const report = await writeScenarioReport({
      name: "s9-dead-letter",
      scenario: "9 dead-letter → partial",
      size: "2 jobs, 1 poison",
      faults_injected: 1,
      check,
    });
    expect(failures(report)).toEqual({});
  }, 40_000);
});
