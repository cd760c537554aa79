/**
 * Scenario 4: the run's coordinator is aborted mid-aggregation (its in-memory state gone, calls in
 * flight failing) while delivery goes on; then, once the run is over, every message is delivered
 * again with one more restart. The rebuilt object counts nothing twice and the run completes once:
 * its finish stamp never moves.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { startCapturedRun } from "../integration/limits-support";
import { deliveries, drain } from "./broker";
import { checkRun, type CheckOutcome } from "./invariants";
import { again } from "./s1-duplicates";
import { workload } from "./scenario";
import type { InvariantOutcome } from "./report";

/** Resets the Durable Object: the next call constructs it afresh from its storage. */
export async function abortObject(stub: DurableObjectStub): Promise<void> {
  await runInDurableObject(stub, (_instance, state) => state.abort("reliability: restart")).catch(() => undefined);
}

export async function coordinatorRestartScenario(jobs: number, restarts: number) {
  const w = await workload("s4", { questions: jobs / 2, replicates: 2, judges: 2, latencyMs: 20 });
  const { runId, bodies } = await startCapturedRun(w.body);
  const stub = env.RUNS.getByName(`default:${runId}`);
  const ds = deliveries(bodies);
  let done = 0;
  // One invocation at a time (as the local queue delivers): a round per batch. In each of the first
  // `restarts` rounds the object is reset twice, 15 and 40 ms in: claims, answer checkpoints, judge
  // calls and records are in flight.
  const stats = await drain(ds, {
    parallel: 1,
    duringRound: async (round) => {
      if (round >= restarts) return;
      for (const at of [15, 25]) {
        await new Promise((r) => setTimeout(r, at));
        await abortObject(stub);
        done++;
      }
    },
  });
  const finishedAt = async () =>
    (await env.DB.prepare("SELECT finished_at FROM runs WHERE run_id = ?").bind(runId).first<{ finished_at: string | null }>())
      ?.finished_at ?? null;
  const firstFinish = await finishedAt();
  // After the end: one more restart, and every message again.
  await abortObject(stub);
  const after = await drain(again(ds), { parallel: 4 });
  const check: CheckOutcome = await checkRun({
    runId,
    keys: w.keys,
    calls: { models: [w.answerer, ...w.judges], baseline: w.baselineCalls, allowed: 0 },
  });
  const lastFinish = await finishedAt();
  const completedOnce: InvariantOutcome = {
    pass: firstFinish !== null && firstFinish === lastFinish,
    detail: `finished_at ${firstFinish} at the end, ${lastFinish} after a restart and every message again`,
  };
  return {
    check,
    extra: { completed_once: completedOnce },
    faults: done + 1,
    size: `${jobs} jobs / ${w.keys.length} results`,
    figures: { restarts_mid_run: done, restarts: done + 1, retries: stats.retried + after.retried, dead_lettered: stats.deadLettered },
  };
}
