/** Shared by the limiter and fault tests: captured runs, concurrent delivery, the fake's request log. */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import { keyRing } from "../../src/tenants/key-ring";
import { planRun } from "../../src/submit/plan";
import { startRun } from "../../src/submit/submit";
import type { Env } from "../../src/env";
import { CreateRunBody } from "../../src/schemas/api";

export type Body = { run_id: string; job_id: string };

export async function startCapturedRun(body: unknown) {
  const sent: { body: Body }[] = [];
  const jobs = { sendBatch: async (msgs: typeof sent) => void sent.push(...msgs) } as unknown as Queue<unknown>;
  const plan = planRun(
    CreateRunBody.parse(body),
    { run_id: crypto.randomUUID(), tenant_id: "default", created_at: new Date().toISOString() },
    keyRing(env, true, new Map()),
  );
  if (!plan.ok) throw new Error(JSON.stringify(plan.issues));
  // The capture needs every job sent at submit, so the run stays on one coordinator: a sharded run's
  // shards enqueue their own jobs from their alarms, out of this harness's reach (the sharded path is
  // tested by test/integration/coordinator-shards.test.ts and measured by bench/sharded-run.mjs).
  await startRun({ ...env, JOBS: jobs, COORDINATOR_SHARD_JOBS: String(Number.MAX_SAFE_INTEGER) }, plan.spec, plan.jobIds);
  return { runId: plan.spec.run_id, bodies: sent.map((m) => m.body) };
}

/**
 * Delivers the bodies as `batches` simultaneous batches; returns the bodies the consumer handed back:
 * retried, or sent back to the queue to wait out a retry-after (a deferral, src/jobs/consumer.ts).
 */
export async function deliverConcurrently(bodies: Body[], batches: number, attempt = 1, vars: Partial<Env> = {}): Promise<Body[]> {
  const groups = Array.from({ length: batches }, (_, i) => bodies.filter((_, j) => j % batches === i)).filter((g) => g.length);
  const handedBack = await Promise.all(
    groups.map(async (group) => {
      const batch = createMessageBatch(
        "edgeval-jobs",
        group.map((body, i) => ({ id: `m${i}-${crypto.randomUUID()}`, timestamp: new Date(), attempts: attempt, body })),
      );
      const ctx = createExecutionContext();
      const deferred: Body[] = [];
      const jobs = { send: async (body: Body) => void deferred.push(body) } as unknown as Queue<unknown>;
      await worker.queue(batch, { ...env, JOBS: jobs, ...vars });
      const result = await getQueueResult(batch, ctx);
      const retried = new Set(result.retryMessages.map((m) => m.msgId));
      return [...batch.messages.filter((m) => retried.has(m.id)).map((m) => m.body as Body), ...deferred];
    }),
  );
  return handedBack.flat();
}

/**
 * Delivers until no job is handed back, as the queue would (without its delays). `vars` override
 * the worker's vars for these invocations (e.g. JOB_CONCURRENCY).
 */
export async function deliverUntilDone(bodies: Body[], batches: number, vars: Partial<Env> = {}): Promise<number> {
  let pending = bodies;
  let rounds = 0;
  for (let attempt = 1; pending.length > 0 && attempt <= 8; attempt++, rounds++) {
    pending = await deliverConcurrently(pending, batches, attempt, vars);
  }
  return rounds;
}

export interface LoggedRequest {
  at: number;
  in_flight: number;
  fault?: string;
  retry_after_s?: number;
  replied_at?: number;
  closed_at?: number;
}

export async function requestLog(model: string): Promise<LoggedRequest[]> {
  const res = await fetch(`${env.FAKE_LLM_URL}/_admin/requests?model=${encodeURIComponent(model)}`);
  return ((await res.json()) as { requests: LoggedRequest[] }).requests;
}
