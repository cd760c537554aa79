/**
 * The coordinator's watch alarm (issue 20 item 3) re-sends only lost jobs: never accepted by the
 * queue, running with a lease run out, or accepted and pending near the queue's retention. Not a
 * job merely waiting in a backlog, and each re-send once however often the alarm fires.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { exactTemplate, fakeModel, submitRun, uniqueModel } from "./helpers";
import { jobCoordinators } from "./shard-helpers";
import { writeTestFigures } from "../reliability/scenario";
import type { RunCoordinator } from "../../src/coordinator/coordinator";
import { QUEUE_RETENTION_MS, RESEND_PER_ALARM, RETENTION_MARGIN_MS, SEND_GRACE_MS } from "../../src/coordinator/stall-watch";

const MINUTE = 60_000;

/** A coordinator on a settable clock whose sends are recorded (and accepted, as the queue would). */
async function watchedRun(jobIds: string[]) {
  const stub = env.RUNS.getByName(`watch-${crypto.randomUUID()}`);
  const clock = { now: Date.UTC(2030, 0, 1) };
  const sends: string[][] = [];
  await runInDurableObject(stub, async (instance: RunCoordinator) => {
    instance.clock = { now: () => clock.now };
    instance.sendJobs = async (_run, ids, accepted) => {
      sends.push([...ids]);
      accepted([...ids]);
    };
  });
  await stub.init({ run_id: "r", job_ids: jobIds, answering_ids: ["a"], parsing_ids: ["p"], results_per_pair: jobIds.length });
  const alarm = async () => expect(await runDurableObjectAlarm(stub)).toBe(true);
  return { stub, clock, sends, alarm };
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `0.${i}.1`);

describe("the stall watch", () => {
  it("fired twice, re-sends a job the queue never accepted once, and leaves an accepted one alone", async () => {
    const { stub, clock, sends, alarm } = await watchedRun(["lost", "sent"]);
    await stub.accepted(["sent"]);
    clock.now += SEND_GRACE_MS + 1;
    await alarm();
    await alarm();
    expect(sends).toEqual([["lost"]]);
    // Scenario 9 of the reliability suite (test/reliability/README.md).
    await writeTestFigures({
      name: "s9-stall-alarm-twice",
      scenario: "9 stall alarm fired twice",
      size: "2 jobs, 1 never accepted",
      faults_injected: 1,
      invariants: {
        resent_once: {
          pass: sends.flat().length === 1,
          detail: `${sends.flat().length} re-sends of the lost job over 2 alarms; the accepted one ${sends.flat().includes("sent") ? "re-sent" : "left alone"}`,
        },
      },
    });
  });

  it("2,000 accepted jobs waiting in a backlog past 16 minutes are not re-sent; near the queue's retention they are, once", async () => {
    const { stub, clock, sends, alarm } = await watchedRun(ids(2_000));
    for (let i = 0; i < 2_000; i += 100) await stub.accepted(ids(2_000).slice(i, i + 100));
    clock.now += 17 * MINUTE;
    await alarm();
    expect(sends).toEqual([]);
    clock.now += QUEUE_RETENTION_MS - RETENTION_MARGIN_MS - 17 * MINUTE + 1;
    await alarm();
    await alarm();
    await alarm();
    expect(sends.map((s) => s.length)).toEqual([RESEND_PER_ALARM, 2_000 - RESEND_PER_ALARM]);
    expect(new Set(sends.flat()).size).toBe(2_000);
  });

  it("re-sends a running job once its lease has run out, once, and not before", async () => {
    const { stub, clock, sends, alarm } = await watchedRun(["j"]);
    await stub.accepted(["j"]);
    expect((await stub.claim("j")).kind).toBe("run");
    clock.now += 5 * MINUTE - 1;
    await alarm();
    expect(sends).toEqual([]);
    clock.now += 2;
    await alarm();
    await alarm();
    expect(sends).toEqual([["j"]]);
    // Pending again: the redelivery claims it at once instead of waiting out a lease.
    expect((await stub.claim("j")).kind).toBe("run");
  });

  it("after the local queue restarted, re-sends the jobs it lost once, and leaves those sent since to it", async () => {
    const { stub, clock, sends, alarm } = await watchedRun(["queued", "claimed", "unsent", "sent-since", "done"]);
    await stub.accepted(["queued", "claimed", "done"]);
    expect((await stub.claim("claimed")).kind).toBe("run");
    expect((await stub.claim("done")).kind).toBe("run");
    await stub.completeJob("done");
    // The runtime restarts a minute later: a queue that keeps its messages in memory begins again.
    clock.now += MINUTE;
    await runInDurableObject(stub, async (instance: RunCoordinator) => {
      instance.queueSince = clock.now;
    });
    clock.now += 1;
    await stub.accepted(["sent-since"]);
    await alarm();
    await alarm();
    expect(sends).toEqual([["queued", "claimed", "unsent"]]);
  });

  it("a submit stamps every job the queue accepted, so its backlog is left to the queue", async () => {
    const runId = await submitRun({
      benchmark: { name: "stamped", questions: ["a", "b", "c"].map((id) => ({ id, question: `${id}?`, template: exactTemplate("x") })) },
      config: {
        answering_models: [{ id: "m", interface: "manual", manual_answers: { a: "x", b: "x", c: "x" } }],
        parsing_models: [fakeModel("j", uniqueModel("stamped-judge"))],
      },
    });
    // Stamped where the jobs are: the run's coordinator, or (workers-sharded project) each shard, which enqueues from its alarm.
    const stamped = async () => {
      const ids: string[] = [];
      for (const name of await jobCoordinators(runId))
        ids.push(
          ...(await runInDurableObject(env.RUNS.getByName(name), async (_i, state) =>
            state.storage.sql
              .exec<{ job_id: string }>("SELECT job_id FROM job_sends")
              .toArray()
              .map((r) => r.job_id),
          )),
        );
      return ids.sort();
    };
    await vi.waitUntil(async () => (await stamped()).length >= 3, { timeout: 5_000, interval: 20 });
    expect(await stamped()).toEqual(["0.0.1", "1.0.1", "2.0.1"]);
  });
});
