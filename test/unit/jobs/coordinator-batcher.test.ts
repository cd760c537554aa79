import { describe, expect, it } from "vitest";
import type { CoordinatorOp, CoordinatorOpResult } from "../../../src/coordinator/batch-ops";
import { type BatchTarget, coordinatorBatcher } from "../../../src/jobs/coordinator-batcher";
import type { RecordedResult } from "../../../src/coordinator/coordinator";
import { jobActivity } from "../../../src/jobs/job-activity";

/** A job that runs until the test ends it. */
function openJob() {
  let end!: () => void;
  const ended = new Promise<void>((r) => {
    end = r;
  });
  return { ended, end };
}

/** Timers that fire only when the test says so, remembering each one's delay. */
function manualTimers() {
  const due: { fn: () => void; ms: number }[] = [];
  return {
    setTimer: (fn: () => void, ms: number) => void due.push({ fn, ms }),
    delays: () => due.map((d) => d.ms),
    fire: (ms?: number) => {
      const now = due.filter((d) => ms === undefined || d.ms === ms);
      for (const d of now) due.splice(due.indexOf(d), 1);
      now.forEach((d) => d.fn());
    },
  };
}

/** A coordinator that answers each op in turn, and remembers the batches it got. */
function fakeTarget(
  answer: (op: CoordinatorOp) => CoordinatorOpResult = (op) =>
    op.op === "claim" ? { ok: true, claim: { kind: "run", recorded: [], attempts: 1, answer: null } } : { ok: true },
) {
  const batches: CoordinatorOp[][] = [];
  const target: BatchTarget & { fail?: Error } = {
    async applyBatch(ops) {
      batches.push(ops);
      if (target.fail) throw target.fail;
      return ops.map(answer);
    },
    release: async () => undefined,
    completeJob: async () => undefined,
  };
  return { target, batches };
}

const result = (job_id: string): RecordedResult => ({
  result_id: `r-${job_id}`,
  job_id,
  answering_id: "a",
  parsing_id: "p",
  verdict: "pass",
});
const flushMicrotasks = () => new Promise((r) => setTimeout(r, 0));
const settled = (p: Promise<unknown>) =>
  p.then(
    () => "resolved",
    (e: Error) => `rejected: ${e.message}`,
  );

describe("coordinatorBatcher", () => {
  it("sends the claims of one turn as one batch and gives each caller its own claim", async () => {
    const { target, batches } = fakeTarget((op) =>
      op.op === "claim" ? { ok: true, claim: { kind: "finished", state: op.job_id === "j2" ? "dead" : "done" } } : { ok: true },
    );
    const timers = manualTimers();
    const port = coordinatorBatcher(target, { windowMs: 20, maxOps: 100, maxChars: 1e6, setTimer: timers.setTimer });
    const claims = ["j1", "j2", "j3"].map((id) => port.claim(id));
    expect(timers.delays()).toEqual([0]); // one timer for the turn, not one per claim
    expect(batches).toEqual([]);
    timers.fire();
    expect(await Promise.all(claims)).toEqual([
      { kind: "finished", state: "done" },
      { kind: "finished", state: "dead" },
      { kind: "finished", state: "done" },
    ]);
    expect(batches).toEqual([["j1", "j2", "j3"].map((job_id) => ({ op: "claim", job_id }))]);
  });

  it("holds checkpoints and results for the window, and a claim arriving meanwhile takes them along", async () => {
    const { target, batches } = fakeTarget();
    const timers = manualTimers();
    const port = coordinatorBatcher(target, { windowMs: 20, maxOps: 100, maxChars: 1e6, setTimer: timers.setTimer });
    const saved = port.saveAnswer("j1", '"an answer"');
    const recorded = port.record(result("j2"), { completesJob: true });
    expect(timers.delays()).toEqual([20]);
    await flushMicrotasks();
    expect(batches).toEqual([]); // nothing sent before the window closes
    const claim = port.claim("j3");
    timers.fire(0);
    await Promise.all([saved, recorded, claim]);
    expect(batches).toEqual([
      [
        { op: "saveAnswer", job_id: "j1", answer: '"an answer"' },
        { op: "record", result: result("j2"), completesJob: true },
        { op: "claim", job_id: "j3" },
      ],
    ]);
    timers.fire(20); // the window's own timer finds nothing left to send
    expect(batches).toHaveLength(1);
  });

  it("sends at once when maxOps wait or the waiting answers reach maxChars", async () => {
    const { target, batches } = fakeTarget();
    const timers = manualTimers();
    const port = coordinatorBatcher(target, { windowMs: 20, maxOps: 2, maxChars: 10, setTimer: timers.setTimer });
    await Promise.all([port.record(result("j1")), port.record(result("j2"))]);
    expect(batches.map((b) => b.length)).toEqual([2]);
    await port.saveAnswer("j3", "x".repeat(10));
    expect(batches.map((b) => b.length)).toEqual([2, 1]);
  });

  it("fails only the operation the coordinator refused; a batch that was not delivered fails every caller in it", async () => {
    const { target } = fakeTarget((op) =>
      op.op === "record" && op.result.job_id === "bad" ? { ok: false, error: "no such run" } : { ok: true },
    );
    const timers = manualTimers();
    const port = coordinatorBatcher(target, { windowMs: 20, maxOps: 100, maxChars: 1e6, setTimer: timers.setTimer });
    const outcomes = [port.record(result("ok")), port.record(result("bad"))].map(settled);
    timers.fire();
    expect(await Promise.all(outcomes)).toEqual(["resolved", "rejected: no such run"]);

    target.fail = new Error("object unreachable");
    const lost = [port.claim("j1"), port.saveAnswer("j2", "{}")].map(settled);
    timers.fire();
    expect(await Promise.all(lost)).toEqual(["rejected: object unreachable", "rejected: object unreachable"]);
  });

  it("with the invocation's activity, sends once every job waits on a claim or a result, never for a checkpoint alone", async () => {
    const { target, batches } = fakeTarget();
    const activity = jobActivity(2, 20);
    const port = coordinatorBatcher(target, { windowMs: 60_000, maxOps: 100, maxChars: 1e6, setTimer: () => undefined, activity });
    const secondMayRecord = openJob();
    const first = activity.run(async () => {
      void port.saveAnswer("j1", '"an answer"'); // a checkpoint does not park its job
      await port.record(result("j1"));
    });
    const second = activity.run(async () => {
      await secondMayRecord.ended;
      await port.record(result("j2"));
    });
    await flushMicrotasks();
    expect(batches).toEqual([]); // j2 still runs, and its result may yet join: j1's checkpoint and result wait
    secondMayRecord.end();
    await Promise.all([first, second]);
    expect(batches.map((b) => b.map((op) => op.op))).toEqual([["saveAnswer", "record", "record"]]);
  });

  it("release and completeJob go straight to the coordinator", async () => {
    const calls: string[] = [];
    const port = coordinatorBatcher(
      {
        applyBatch: async () => [],
        release: async (id) => void calls.push(`release ${id}`),
        completeJob: async (id) => void calls.push(`complete ${id}`),
      },
      { windowMs: 20, maxOps: 100, maxChars: 1e6, setTimer: () => undefined },
    );
    await port.release("j1");
    await port.completeJob("j2");
    expect(calls).toEqual(["release j1", "complete j2"]);
  });

  it("tells onRunState after each batch whether the run was cancelled, as of when the batch was sent", async () => {
    const timers = manualTimers();
    let cancelled = false;
    const { target } = fakeTarget((op) => ({
      ok: true,
      ...(op.op === "claim" ? { claim: { kind: "finished", state: "skipped" } as const } : {}),
      ...(cancelled ? { cancelled: true } : {}),
    }));
    const seen: boolean[] = [];
    const b = coordinatorBatcher(target, {
      windowMs: 20,
      maxOps: 100,
      maxChars: 1_000,
      setTimer: timers.setTimer,
      onRunState: (c) => seen.push(c),
    });
    const first = b.claim("j1");
    timers.fire();
    await first;
    cancelled = true;
    const second = b.claim("j2");
    timers.fire();
    await second;
    expect(seen).toEqual([false, true]);
  });
});
