/**
 * The shared limiter against a provider that refuses more than 8 calls in flight. The local
 * queue delivers one batch at a time, so the test makes the concurrency itself: several batches
 * delivered at once, as several consumer invocations would be in production.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { planRun } from "../../src/run/plan";
import { startRun } from "../../src/run/submit";
import { CreateRunBody } from "../../src/schemas/api";
import { addFakeRules, api, exactTemplate, fakeModel, uniqueModel, type RunView } from "./helpers";

type Body = { run_id: string; job_id: string };

export async function startCapturedRun(body: unknown) {
  const sent: { body: Body }[] = [];
  const jobs = { sendBatch: async (msgs: typeof sent) => void sent.push(...msgs) } as unknown as Queue<unknown>;
  const plan = planRun(CreateRunBody.parse(body), { run_id: crypto.randomUUID(), created_at: new Date().toISOString() }, () => undefined);
  if (!plan.ok) throw new Error(JSON.stringify(plan.issues));
  await startRun({ ...env, JOBS: jobs }, plan.spec, plan.jobIds);
  return { runId: plan.spec.run_id, bodies: sent.map((m) => m.body) };
}

/** Delivers the bodies as `batches` simultaneous batches; returns the bodies the consumer handed back. */
export async function deliverConcurrently(bodies: Body[], batches: number, attempt = 1): Promise<Body[]> {
  const groups = Array.from({ length: batches }, (_, i) => bodies.filter((_, j) => j % batches === i)).filter((g) => g.length);
  const handedBack = await Promise.all(
    groups.map(async (group) => {
      const batch = createMessageBatch(
        "edgeval-jobs",
        group.map((body, i) => ({ id: `m${i}-${crypto.randomUUID()}`, timestamp: new Date(), attempts: attempt, body })),
      );
      const ctx = createExecutionContext();
      await worker.queue(batch, env);
      const result = await getQueueResult(batch, ctx);
      const retried = new Set(result.retryMessages.map((m) => m.msgId));
      return batch.messages.filter((m) => retried.has(m.id)).map((m) => m.body as Body);
    }),
  );
  return handedBack.flat();
}

/** Delivers until no job is handed back, as the queue would (without its delays). */
export async function deliverUntilDone(bodies: Body[], batches: number): Promise<number> {
  let pending = bodies;
  let rounds = 0;
  for (let attempt = 1; pending.length > 0 && attempt <= 8; attempt++, rounds++) {
    pending = await deliverConcurrently(pending, batches, attempt);
  }
  return rounds;
}

export interface LoggedRequest {
  at: number;
  in_flight: number;
  fault?: string;
  retry_after_s?: number;
  replied_at?: number;
}

export async function requestLog(model: string): Promise<LoggedRequest[]> {
  const res = await fetch(`${env.FAKE_LLM_URL}/_admin/requests?model=${encodeURIComponent(model)}`);
  return ((await res.json()) as { requests: LoggedRequest[] }).requests;
}

/** Time between a 429 leaving the server and the limiter knowing of it (local round trips). */
const NOTICE_SLACK_MS = 150;

describe("ProviderLimiter against a provider that takes 8 calls at a time", () => {
  it("gets a 429, keeps the provider at 8 or fewer in flight from then on, and completes the run", async () => {
    const answerer = uniqueModel("cap8-answerer");
    const judge = uniqueModel("cap8-judge");
    await addFakeRules([
      { match: { model: answerer, in_flight_above: 8 }, reply: { fault: "429", retry_after_s: 1 } },
      { match: { model: answerer }, reply: { text: "Paris", latency_ms: 200 } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const { runId, bodies } = await startCapturedRun({
      benchmark: { name: "cap8", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)], replicate_count: 24 },
    });
    // 6 batches × 4 jobs side by side = 24 answering calls offered at once against a cap of 8.
    await deliverUntilDone(bodies, 6);

    const log = await requestLog(answerer);
    const refusals = log.filter((r) => r.fault === "429");
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    const first = Math.min(...refusals.map((r) => r.replied_at!));
    const later = log.filter((r) => r.at > first + NOTICE_SLACK_MS);
    expect(later.length).toBeGreaterThan(0);
    expect(Math.max(...later.map((r) => r.in_flight))).toBeLessThanOrEqual(8);
    // the retry-after (1 s) blocked the key for every consumer
    expect(log.filter((r) => r.at > first + NOTICE_SLACK_MS && r.at < first + 1_000)).toEqual([]);

    const view = (await (await api(`/v1/runs/${runId}`)).json()) as RunView;
    expect(view).toMatchObject({ status: "completed", progress: { total: 24, done: 24 } });
    expect(view.summary[0]).toMatchObject({ passed: 24, errored: 0 });
  });
});
