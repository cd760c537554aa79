/** The coordinator reads time only through its clock port: leases run out on the port's time. */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RunCoordinator } from "../../src/coordinator/coordinator";

describe("RunCoordinator clock port", () => {
  it("a claimed job is busy until its lease runs out on the coordinator's clock, then claimable again", async () => {
    const stub = env.RUNS.getByName(`clock-${crypto.randomUUID()}`);
    let now = Date.UTC(2030, 0, 1);
    await runInDurableObject(stub, async (instance: RunCoordinator) => {
      instance.clock = { now: () => now };
    });
    await stub.init({ run_id: "r", job_ids: ["0.0.1"], answering_ids: ["a"], parsing_ids: ["p"], results_per_pair: 1 });
    expect((await stub.claim("0.0.1")).kind).toBe("run");
    now += 4 * 60_000;
    expect(await stub.claim("0.0.1")).toEqual({ kind: "busy", retry_in_seconds: 60 });
    now += 60_000 + 1;
    expect((await stub.claim("0.0.1")).kind).toBe("run");
  });
});
