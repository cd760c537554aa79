/**
 * Scenario 2: the producer sends every job twice, as two messages with their own ids (a submit
 * retried after its sends went through). Through this suite's broker (copies in batches side by
 * side) and through the local queue itself (miniflare's broker, the run submitted as usual).
 */
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { planRun } from "../../src/submit/plan";
import { startRun } from "../../src/submit/submit";
import { keyRing } from "../../src/tenants/key-ring";
import { CreateRunBody } from "../../src/schemas/api";
import type { Env } from "../../src/env";
import { fakeStats, waitForRun } from "../integration/helpers";
import { startCapturedRun } from "../integration/limits-support";
import { deliveries, drain } from "./broker";
import { checkRun } from "./invariants";
import type { ScenarioRun } from "./s1-duplicates";
import { workload } from "./scenario";

export async function doubleSendScenario(
  via: "broker" | "local-queue",
  jobs: number,
): Promise<Omit<ScenarioRun, "stats"> & { figures: Record<string, number> }> {
  const w = await workload(`s2-${via}`, { questions: jobs / 2, replicates: 2, judges: 2, latencyMs: 10 });
  const models = [w.answerer, ...w.judges];
  let runId: string;
  let figures: Record<string, number>;
  if (via === "broker") {
    const run = await startCapturedRun(w.body);
    runId = run.runId;
    // Two sends of each job, each message its own id; the copies land in other batches of the same rounds.
    const first = deliveries(run.bodies);
    const second = deliveries(run.bodies);
    const stats = await drain(
      first.flatMap((d, i) => [d, second[(i + 7) % second.length]!]),
      { parallel: 4 },
    );
    figures = { busy_retries: stats.retried, deliveries: stats.deliveries };
  } else {
    const plan = planRun(
      CreateRunBody.parse(w.body),
      { run_id: crypto.randomUUID(), tenant_id: "default", created_at: new Date().toISOString() },
      keyRing(env, true, new Map()),
    );
    if (!plan.ok) throw new Error(JSON.stringify(plan.issues));
    runId = plan.spec.run_id;
    let sent = 0;
    const twice = {
      sendBatch: async (msgs: MessageSendRequest[]) => {
        await env.JOBS.sendBatch(msgs);
        await env.JOBS.sendBatch(msgs);
        sent += msgs.length * 2;
      },
    } as unknown as Queue<unknown>;
    await startRun({ ...(env as unknown as Env), JOBS: twice }, plan.spec, plan.jobIds);
    await waitForRun(runId, ["completed", "partial", "failed"], 120_000);
    // The copies still queued find their jobs done; wait until the fake has been quiet for a second.
    let calls = -1;
    await vi.waitUntil(
      async () => {
        const now = (await Promise.all(models.map(fakeStats))).reduce((s, m) => s + m.total, 0);
        const quiet = now === calls;
        calls = now;
        return quiet;
      },
      { timeout: 60_000, interval: 1_000 },
    );
    figures = { messages_sent: sent };
  }
  const check = await checkRun({ runId, keys: w.keys, calls: { models, baseline: w.baselineCalls } });
  return { check, faults: jobs, size: `${jobs} jobs / ${w.keys.length} results`, figures };
}
