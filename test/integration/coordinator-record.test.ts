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
