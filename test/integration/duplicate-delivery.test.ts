import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { keyRing } from "../../src/tenants/key-ring";
import { planRun } from "../../src/submit/plan";
import { startRun } from "../../src/submit/submit";
import { CreateRunBody } from "../../src/schemas/api";
import {
  addFakeRules,
  api,
  d1ResultRows,
  exactTemplate,
  fakeModel,
  fakeStats,
  LONG_ANSWER,
  r2Keys,
  savedResults,
  uniqueModel,
  type RunView,
  runObjects,
} from "./helpers";

/** Starts a run whose messages are captured instead of queued, so the test delivers them itself. */
async function startCapturedRun(body: unknown) {
  const sent: { body: { run_id: string; job_id: string } }[] = [];
  const jobs = { sendBatch: async (msgs: typeof sent) => void sent.push(...msgs) } as unknown as Queue<unknown>;
  const plan = planRun(
    CreateRunBody.parse(body),
    { run_id: crypto.randomUUID(), tenant_id: "default", created_at: new Date().toISOString() },
    keyRing(env, true, new Map()),
  );
  if (!plan.ok) throw new Error(JSON.stringify(plan.issues));
  // The submit's own sends are what is captured: the run stays on one coordinator (a sharded run's
  // shards would send from their alarms, past this capture), whatever COORDINATOR_SHARD_JOBS is.
  await startRun({ ...env, JOBS: jobs, COORDINATOR_SHARD_JOBS: String(Number.MAX_SAFE_INTEGER) }, plan.spec, plan.jobIds);
  return { runId: plan.spec.run_id, sent };
}

async function deliver(bodies: { run_id: string; job_id: string }[]) {
  const batch = createMessageBatch(
    "edgeval-jobs",
    bodies.map((body, i) => ({ id: `m${i}-${crypto.randomUUID()}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}

describe("at-least-once delivery", () => {
  it("leaves one row and unchanged counters when the same message arrives twice", async () => {
    const answerer = uniqueModel("dup-answerer");
    const judge = uniqueModel("dup-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris" } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const { runId, sent } = await startCapturedRun({
      benchmark: { name: "dup", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)], replicate_count: 2 },
    });
    expect(sent.map((m) => m.body.job_id)).toEqual(["0.0.1", "0.0.2"]);

    const first = await deliver(sent.map((m) => m.body));
    expect(first.explicitAcks).toHaveLength(2);
    const before = (await (await api(`/v1/runs/${runId}`)).json()) as RunView;
    expect(before).toMatchObject({ status: "completed", progress: { total: 2, done: 2 } });
    const callsBefore = (await fakeStats(answerer)).total + (await fakeStats(judge)).total;

    const again = await deliver([sent[0]!.body, sent[0]!.body, sent[1]!.body]);
    expect(again.explicitAcks).toHaveLength(3);
    expect(again.retryMessages).toEqual([]);
    const after = (await (await api(`/v1/runs/${runId}`)).json()) as RunView;
    expect(after).toEqual(before);
    expect(await d1ResultRows(runId)).toHaveLength(2);
    // Small results are whole in their D1 rows: no R2 object.
    expect(await savedResults(runId)).toEqual(["d1", "d1"]);
    expect(await r2Keys(`${runObjects(runId)}/results/`)).toEqual([]);
    expect((await fakeStats(answerer)).total + (await fakeStats(judge)).total).toBe(callsBefore);
  });

  it("acks a malformed message instead of retrying it forever", async () => {
    const result = await deliver([{ run_id: "x", job_id: "not-a-job" } as never]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);
  });
});

describe("a consumer that crashes mid-job", () => {
  it("completes on redelivery from its checkpoints: both results, one answering call, judge 1 not asked again", async () => {
    const answerer = uniqueModel("crash-answerer");
    const judge1 = uniqueModel("crash-judge1");
    const judge2 = uniqueModel("crash-judge2");
    // A long answer: its results go to R2 (small ones are whole in D1, tested below).
    await addFakeRules([
      { match: { model: answerer }, reply: { text: LONG_ANSWER } },
      { match: { model: judge1 }, reply: { json: { answer: "Paris" } } },
      { match: { model: judge2 }, reply: { json: { answer: "Paris" } } },
    ]);
    const { runId, sent } = await startCapturedRun({
      benchmark: { name: "crash", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: {
        answering_models: [fakeModel("a", answerer)],
        parsing_models: [fakeModel("j1", judge1), fakeModel("j2", judge2)],
      },
    });
    // R2 dies on the second result write: after judge 1's result is saved, before judge 2's.
    let resultWrites = 0;
    const flakyBlobs = new Proxy(env.BLOBS, {
      get(target, prop) {
        if (prop === "put") {
          return (key: string, ...rest: unknown[]) => {
            if (key.includes("/results/") && ++resultWrites === 2) throw new Error("R2 went away");
            return (target.put as (...a: unknown[]) => unknown).call(target, key, ...rest);
          };
        }
        const v = Reflect.get(target, prop);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    const batch = createMessageBatch("edgeval-jobs", [{ id: "crash-1", timestamp: new Date(), attempts: 1, body: sent[0]!.body }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, { ...env, BLOBS: flakyBlobs });
    expect((await getQueueResult(batch, ctx)).retryMessages).toMatchObject([{ msgId: "crash-1" }]);
    expect(await d1ResultRows(runId)).toHaveLength(1);

    const redelivered = await deliver([sent[0]!.body]);
    expect(redelivered.explicitAcks).toHaveLength(1);
    const rows = await d1ResultRows(runId);
    expect(rows.map((r) => r.parsing_model).sort()).toEqual(["j1", "j2"]);
    const view = (await (await api(`/v1/runs/${runId}`)).json()) as RunView;
    expect(view).toMatchObject({ status: "completed", progress: { total: 2, done: 2 } });
    expect((await fakeStats(answerer)).total).toBe(1);
    expect((await fakeStats(judge1)).total).toBe(1);
    // Judge 2 had answered, but its result died with the crash before it was saved: asked again.
    expect((await fakeStats(judge2)).total).toBe(2);
  });
});

describe("a result that reached R2 but not D1 or the coordinator", () => {
  it("is recorded from R2 on redelivery without asking its judge again", async () => {
    const answerer = uniqueModel("half-answerer");
    const judge = uniqueModel("half-judge");
    // Long enough to go to R2: a small result has no R2 object (below).
    await addFakeRules([
      { match: { model: answerer }, reply: { text: LONG_ANSWER } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const { runId, sent } = await startCapturedRun({
      benchmark: { name: "half", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)] },
    });
    // D1 refuses the first results write: the result is in R2 only when the job dies.
    let failed = false;
    const flakyDb = new Proxy(env.DB, {
      get(target, prop) {
        if (prop === "batch" && !failed) {
          return async () => {
            failed = true;
            throw new Error("D1 went away");
          };
        }
        const v = Reflect.get(target, prop);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    const batch = createMessageBatch("edgeval-jobs", [{ id: "half-1", timestamp: new Date(), attempts: 1, body: sent[0]!.body }]);
    await worker.queue(batch, { ...env, DB: flakyDb });
    expect(await r2Keys(`${runObjects(runId)}/results/`)).toHaveLength(1);
    expect(await d1ResultRows(runId)).toHaveLength(0);

    await deliver([sent[0]!.body]);
    expect(await d1ResultRows(runId)).toHaveLength(1);
    const view = (await (await api(`/v1/runs/${runId}`)).json()) as RunView;
    expect(view).toMatchObject({ status: "completed", progress: { total: 1, done: 1 } });
    expect((await fakeStats(judge)).total).toBe(1);
    expect((await fakeStats(answerer)).total).toBe(1);
  });
});

describe("a small result that reached D1 but not the coordinator", () => {
  it("is recorded from its D1 row on redelivery without asking its judge again", async () => {
    const answerer = uniqueModel("d1only-answerer");
    const judge = uniqueModel("d1only-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris" } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const { runId, sent } = await startCapturedRun({
      benchmark: { name: "d1only", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)] },
    });
    // The coordinator refuses every result: the job dies after its D1 row, before the record.
    const refusing = new Proxy(env.RUNS, {
      get(target, prop) {
        if (prop !== "getByName") {
          const v = Reflect.get(target, prop);
          return typeof v === "function" ? v.bind(target) : v;
        }
        return (name: string) => {
          const stub = target.getByName(name);
          return new Proxy(stub, {
            get(s, p) {
              if (p === "applyBatch") {
                return async (ops: { op: string }[]) => {
                  if (ops.some((o) => o.op === "record")) throw new Error("coordinator went away");
                  return s.applyBatch(ops as never);
                };
              }
              // Every other method goes through to the object (an RPC stub has no `bind`).
              return (...args: unknown[]) => (s as unknown as Record<string | symbol, (...a: unknown[]) => unknown>)[p]!(...args);
            },
          });
        };
      },
    });
    const batch = createMessageBatch("edgeval-jobs", [{ id: "d1only-1", timestamp: new Date(), attempts: 1, body: sent[0]!.body }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, { ...env, RUNS: refusing });
    expect((await getQueueResult(batch, ctx)).retryMessages).toHaveLength(1);
    expect(await savedResults(runId)).toEqual(["d1"]);
    expect(await r2Keys(`${runObjects(runId)}/results/`)).toEqual([]);
    expect(((await (await api(`/v1/runs/${runId}`)).json()) as RunView).progress.done).toBe(0);

    await deliver([sent[0]!.body]);
    const view = (await (await api(`/v1/runs/${runId}`)).json()) as RunView;
    expect(view).toMatchObject({ status: "completed", progress: { total: 1, done: 1 } });
    expect((await fakeStats(judge)).total).toBe(1);
    expect((await fakeStats(answerer)).total).toBe(1);
  });
});
