/** The job's last result is recorded and completes its job in one call to the coordinator. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

describe("RunCoordinator.record with completesJob", () => {
  it("records the job's last result and marks the job done in one call", async () => {
    const stub = env.RUNS.getByName(`complete-${crypto.randomUUID()}`);
    await stub.init({ run_id: "r", job_ids: ["0.0.1", "0.0.2"], answering_ids: ["a"], parsing_ids: ["p"], results_per_pair: 2 });
    expect((await stub.claim("0.0.1")).kind).toBe("run");
    await stub.record({ result_id: "res-1", job_id: "0.0.1", answering_id: "a", parsing_id: "p", verdict: "pass" }, { completesJob: true });
    expect(await stub.claim("0.0.1")).toEqual({ kind: "finished", state: "done" });
    const snap = (await stub.snapshot())!;
    expect(snap.jobs).toMatchObject({ total: 2, done: 1 });
    expect(snap.progress).toEqual({ total: 2, done: 1 });
    expect(snap.status).toBe("running");
  });
});

describe("RunCoordinator finishing", () => {
  it("stamps finished_at once, when the last open job closes, whichever way each job closed", async () => {
    const stub = env.RUNS.getByName(`finish-${crypto.randomUUID()}`);
    await stub.init({ run_id: "r", job_ids: ["j1", "j2", "j3"], answering_ids: ["a"], parsing_ids: ["p"], results_per_pair: 3 });
    await stub.claim("j1");
    await stub.record({ result_id: "res-1", job_id: "j1", answering_id: "a", parsing_id: "p", verdict: "pass" }, { completesJob: true });
    await stub.markDead("j2");
    // Closing an already closed job again does not count twice.
    await stub.completeJob("j1");
    await stub.markDead("j2");
    expect((await stub.snapshot())!.finished_at).toBeNull();
    await stub.claim("j3");
    await stub.record({ result_id: "res-3", job_id: "j3", answering_id: "a", parsing_id: "p", verdict: "fail" }, { completesJob: true });
    const first = (await stub.snapshot())!;
    expect(first.jobs).toEqual({ total: 3, done: 2, dead: 1, skipped: 0 });
    expect(first.finished_at).not.toBeNull();
    await stub.completeJob("j3");
    expect((await stub.snapshot())!.finished_at).toBe(first.finished_at);
  });

  it("a later claim of a job gets the results its earlier attempt recorded; a first claim gets none", async () => {
    const stub = env.RUNS.getByName(`reclaim-${crypto.randomUUID()}`);
    await stub.init({ run_id: "r", job_ids: ["j1"], answering_ids: ["a"], parsing_ids: ["p1", "p2"], results_per_pair: 1 });
    expect(await stub.claim("j1")).toMatchObject({ kind: "run", attempts: 1, recorded: [] });
    await stub.record({ result_id: "res-p1", job_id: "j1", answering_id: "a", parsing_id: "p1", verdict: "pass" });
    await stub.release("j1");
    expect(await stub.claim("j1")).toMatchObject({ kind: "run", attempts: 2, recorded: ["res-p1"] });
  });
});

describe("RunCoordinator.applyBatch", () => {
  it("applies each operation in order with its own outcome; one that fails leaves the others and the counts intact", async () => {
    const stub = env.RUNS.getByName(`batch-${crypto.randomUUID()}`);
    await stub.init({ run_id: "r", job_ids: ["j1", "j2"], answering_ids: ["a"], parsing_ids: ["p"], results_per_pair: 2 });
    const bad = { result_id: "res-bad", job_id: "j2", answering_id: "a", parsing_id: "p", verdict: null as unknown as "pass" };
    const out = await stub.applyBatch([
      { op: "claim", job_id: "j1" },
      { op: "claim", job_id: "j2" },
      { op: "saveAnswer", job_id: "j1", answer: '"forty-two"' },
      { op: "record", result: bad, completesJob: true },
      {
        op: "record",
        result: { result_id: "res-1", job_id: "j1", answering_id: "a", parsing_id: "p", verdict: "pass" },
        completesJob: true,
      },
    ]);
    expect(out.map((o) => o.ok)).toEqual([true, true, true, false, true]);
    expect(out[0]).toMatchObject({ claim: { kind: "run", attempts: 1 } });
    expect(out[3]).toMatchObject({ ok: false, error: expect.stringMatching(/NOT NULL/i) });
    const snap = (await stub.snapshot())!;
    expect(snap.jobs).toEqual({ total: 2, done: 1, dead: 0, skipped: 0 });
    expect(snap.progress.done).toBe(1);
    expect(snap.finished_at).toBeNull();
    // The refused record changed nothing: the job is still open and finishes the run when it completes.
    await stub.record({ result_id: "res-2", job_id: "j2", answering_id: "a", parsing_id: "p", verdict: "fail" }, { completesJob: true });
    expect((await stub.snapshot())!.finished_at).not.toBeNull();
  });
});

describe("RunCoordinator.markDead", () => {
  it("waits while a delivery holds the job's lease, then answers what the run holds of the job", async () => {
    const stub = env.RUNS.getByName(`dead-${crypto.randomUUID()}`);
    await stub.init({ run_id: "r", job_ids: ["0.0.1", "0.0.2"], answering_ids: ["a"], parsing_ids: ["p", "q"], results_per_pair: 2 });
    await stub.claim("0.0.1");
    const usage = [
      {
        key: "0.0.1|answer_generation",
        job_id: "0.0.1",
        answering_id: "a",
        parsing_id: "",
        stage: "answer_generation",
        model: "x:a",
        input_tokens: 1,
        output_tokens: 2,
        cost_usd: null,
      },
      {
        key: "res-p|parsing",
        job_id: "0.0.1",
        answering_id: "a",
        parsing_id: "p",
        stage: "parsing",
        model: "x:p",
        input_tokens: 3,
        output_tokens: 4,
        cost_usd: null,
      },
    ];
    await stub.record({ result_id: "res-p", job_id: "0.0.1", answering_id: "a", parsing_id: "p", verdict: "pass", usage });
    // A copy still running may record more: the dead-letter consumer comes back when the lease is out.
    const busy = await stub.markDead("0.0.1");
    expect(busy).toMatchObject({ kind: "busy" });
    expect(busy.kind === "busy" && busy.retry_in_seconds).toBeGreaterThan(200);
    expect((await stub.snapshot())!.jobs).toMatchObject({ dead: 0 });
    await stub.release("0.0.1");
    expect(await stub.markDead("0.0.1")).toEqual({
      kind: "dead",
      recorded: ["res-p"],
      usage_keys: ["0.0.1|answer_generation", "res-p|parsing"],
    });
    expect((await stub.snapshot())!.jobs).toMatchObject({ dead: 1 });
    // A job nobody claimed is dead at once, with nothing recorded.
    expect(await stub.markDead("0.0.2")).toEqual({ kind: "dead", recorded: [], usage_keys: [] });
  });
});
