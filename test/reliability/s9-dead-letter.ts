/**
 * Scenario 9's dead-letter run through the suite's broker (the guard test switches
 * `dead_letter_marks_dead` off with it): the last of the jobs can never be recorded (a trigger in
 * its run's coordinator refuses its result, after the result reached D1, the ledger and — a long
 * answer — R2), so every delivery throws until the 7th goes to the dead-letter queue, whose
 * consumer marks the job dead (src/jobs/dead-letter.ts). The run must end partial with the other
 * jobs' results, and D1, R2 and the ledger must hold nothing of the dead job.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { startCapturedRun } from "../integration/limits-support";
import { deliveries, drain } from "./broker";
import { checkRun } from "./invariants";
import { workload } from "./scenario";

export async function deadLetterScenario(jobs: number) {
  const w = await workload("s9-dead-letter", { questions: jobs, replicates: 1, judges: 1 });
  const { runId, bodies } = await startCapturedRun(w.body);
  // Question i is job "i.0.1"; an even count makes the poison question a LONG one (an R2 result).
  const poison = { job_id: `${jobs - 1}.0.1`, question_id: `q${jobs - 1}` };
  await runInDurableObject(env.RUNS.getByName(`default:${runId}`), async (_instance, state) => {
    state.storage.sql.exec(
      `CREATE TRIGGER poison BEFORE INSERT ON results WHEN NEW.job_id = '${poison.job_id}' BEGIN SELECT RAISE(ABORT, 'poison job'); END`,
    );
  });
  const stats = await drain(deliveries(bodies));
  // A dead job's result is no result of the run: the rows it must have are the other jobs'.
  const check = await checkRun({ runId, keys: w.keys.filter((k) => k.question_id !== poison.question_id), terminal: ["partial"] });
  return { check, size: `${jobs} jobs, 1 poison`, faults: 1, stats };
}
