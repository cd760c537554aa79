/**
 * The coordinator's side of scenario chains (src/coordinator/scenario-turns.ts): a turn's record
 * creates and sends the next turn once, hands its state to the next claim, keeps the run open and
 * counts it in the totals; a successor whose send failed is re-sent by the stall watch.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RunCoordinator } from "../../src/coordinator/coordinator";
import { SEND_GRACE_MS } from "../../src/coordinator/stall-watch";

async function chainRun() {
  const stub = env.RUNS.getByName(`chain-${crypto.randomUUID()}`);
  const clock = { now: Date.UTC(2030, 0, 1) };
  const sends: string[][] = [];
  let failSends = 0;
  await runInDurableObject(stub, async (instance: RunCoordinator) => {
    instance.clock = { now: () => clock.now };
    instance.sendJobs = async (_run, ids, accepted) => {
      if (failSends > 0) {
        failSends--;
        throw new Error("queue unavailable");
      }
      sends.push([...ids]);
      accepted([...ids]);
    };
  });
  await stub.init({ run_id: "r", job_ids: ["s0.0.0.1.0"], answering_ids: ["a"], parsing_ids: ["p"], results_per_pair: 0 });
  await stub.accepted(["s0.0.0.1.0"]);
  const turn = (t: number, next: boolean) => ({
    result_id: `r${t}`,
    job_id: `s0.0.0.1.${t}`,
    answering_id: "a",
    parsing_id: "p",
    verdict: "pass" as const,
    ...(next ? { next_turn: { job_id: `s0.0.0.1.${t + 1}`, state: `{"turn":${t + 1}}` } } : {}),
  });
  return { stub, clock, sends, turn, failNextSend: () => void (failSends = 1) };
}

describe("a scenario chain in its coordinator", () => {
  it("creates and sends the next turn once, with its state; the run ends with the last turn", async () => {
    const { stub, sends, turn } = await chainRun();
    expect(await stub.claim("s0.0.0.1.0")).toMatchObject({ kind: "run", scenario_state: null });
    await stub.record(turn(0, true), { completesJob: true });
    // Recorded again (a redelivery that found its result saved): no second successor, no second send.
    await stub.record(turn(0, true), { completesJob: true });
    expect(sends).toEqual([["s0.0.0.1.1"]]);
    let snap = (await stub.snapshot())!;
    expect(snap).toMatchObject({ status: "running", progress: { total: 2, done: 1 }, jobs: { total: 2, done: 1 } });
    expect(snap.summary[0]).toMatchObject({ total: 2, passed: 1 });
    expect(await stub.claim("s0.0.0.1.1")).toMatchObject({ kind: "run", attempts: 1, scenario_state: '{"turn":1}' });
    await stub.record(turn(1, false), { completesJob: true });
    snap = (await stub.snapshot())!;
    expect(snap).toMatchObject({ status: "completed", progress: { total: 2, done: 2 }, jobs: { total: 2, done: 2 } });
  });

  it("leaves a successor whose send failed to the stall watch, which re-sends it", async () => {
    const { stub, clock, sends, turn, failNextSend } = await chainRun();
    await stub.claim("s0.0.0.1.0");
    failNextSend();
    await stub.record(turn(0, true), { completesJob: true });
    expect(sends).toEqual([]);
    expect((await stub.snapshot())!.status).toBe("running");
    clock.now += SEND_GRACE_MS + 1;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(sends).toEqual([["s0.0.0.1.1"]]);
  });

  it("skips the successor of a turn recorded after a cancel: the run ends cancelled", async () => {
    const { stub, sends, turn } = await chainRun();
    await stub.claim("s0.0.0.1.0");
    await stub.cancel();
    await stub.record(turn(0, true), { completesJob: true });
    expect(sends).toEqual([]);
    expect((await stub.snapshot())!).toMatchObject({ status: "cancelled", jobs: { total: 2, done: 1, skipped: 1 } });
  });
});
