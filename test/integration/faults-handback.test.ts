/** A retry-after too long to wait in place: the job goes back to the queue and resumes with its budgets. */
import { env } from "cloudflare:workers";
import type { Env } from "../../src/env";
import { describe, expect, it } from "vitest";
import { addFakeRules, allResults, exactTemplate, fakeModel, fakeStats, uniqueModel, runObjects } from "./helpers";
import { deliverConcurrently, startCapturedRun } from "./limits-support";

describe("long waits go back to the queue", () => {
  it("hands the job back with the retry-after as its delay, keeps the spent retry, and pays no call twice on redelivery", async () => {
    const answerer = uniqueModel("handback-answerer");
    const judge = uniqueModel("handback-judge");
    await addFakeRules([
      { match: { model: judge }, reply: { fault: "429", retry_after_s: 6 }, times: 1 },
      { match: { model: answerer }, reply: { text: "Paris" } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const { runId, bodies } = await startCapturedRun({
      benchmark: { name: "handback", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)], replicate_count: 1 },
    });
    const handedBack = await deliverConcurrently(bodies, 1);
    expect(handedBack).toHaveLength(1);
    const ledger = await env.BLOBS.get(`${runObjects(runId)}/checkpoints/${bodies[0]!.job_id}/retries.json`);
    expect(await ledger!.json()).toMatchObject({ rate_limit: 1 });

    const blockedAt = Date.now();
    // The shared limiter still blocks the key, so an early redelivery is handed back without a call.
    expect(await deliverConcurrently(handedBack, 1, 2)).toHaveLength(1);
    expect((await fakeStats(judge)).total).toBe(1);

    await new Promise((r) => setTimeout(r, Math.max(0, 6_200 - (Date.now() - blockedAt))));
    expect(await deliverConcurrently(handedBack, 1, 3)).toEqual([]);
    const [result] = await allResults(runId);
    expect(result.template.verify_result).toBe(true);
    expect(result.metadata.retry_counts).toEqual({ rate_limit: { used: 1, budget: 5 } });
    expect(result.metadata.caveats).toContain("retries_used");
    expect((await fakeStats(answerer)).total).toBe(1); // the answer came from its checkpoint
    expect((await fakeStats(judge)).total).toBe(2);
  }, 20_000);

  it("waits out retry-afters without spending the job's deliveries: a deferral is a new message, acked, and never the last delivery", async () => {
    const answerer = uniqueModel("defer-answerer");
    const judge = uniqueModel("defer-judge");
    await addFakeRules([
      { match: { model: judge }, reply: { fault: "429", retry_after_s: 6 }, times: 1 },
      { match: { model: answerer }, reply: { text: "Paris" } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const { runId, bodies } = await startCapturedRun({
      benchmark: { name: "defer", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)], replicate_count: 1 },
    });
    // Two deliveries a job: the second would be its last, which records a transient failure as the result.
    const twoDeliveries = { JOB_MAX_ATTEMPTS: "2" } as Partial<Env>;
    const blockedAt = Date.now();
    const first = await deliverConcurrently(bodies, 1, 1, twoDeliveries);
    expect(first).toEqual([{ ...bodies[0], deferrals: 1 }]);
    // The key is still blocked: its limiter defers the call again, on what would have been the last delivery.
    const second = await deliverConcurrently(first, 1, 1, twoDeliveries);
    expect(second).toEqual([{ ...bodies[0], deferrals: 2 }]);
    expect(await allResults(runId)).toEqual([]);
    await new Promise((r) => setTimeout(r, Math.max(0, 6_200 - (Date.now() - blockedAt))));
    expect(await deliverConcurrently(second, 1, 1, twoDeliveries)).toEqual([]);
    const [result] = await allResults(runId);
    expect(result.template.verify_result).toBe(true);
    expect((await fakeStats(judge)).total).toBe(2);
  }, 20_000);
});
