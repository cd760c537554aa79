import { describe, expect, it } from "vitest";
import { slotSource } from "../../../src/limiter/limiter-client";
import type { ReleaseReport } from "../../../src/limiter/limiter-state";

/** A limiter namespace whose one object records the releases it gets, call by call. */
function fakeLimiter(fail = false) {
  const calls: ReleaseReport[][] = [];
  const stub = {
    releaseAll: async (reports: ReleaseReport[]) => {
      calls.push(reports);
      if (fail) throw new Error("limiter unreachable");
    },
  };
  const ns = { getByName: () => stub } as unknown as Parameters<typeof slotSource>[0];
  return { ns, calls };
}

const model = { interface: "openai_compatible" as const, base_url: "http://127.0.0.1:1/v1", model_name: "m" };

describe("slotSource", () => {
  it("gives the limiter the releases of one turn in one call, and those of a later turn in another", async () => {
    const { ns, calls } = fakeLimiter();
    const source = slotSource(ns, model, "key");
    await Promise.all([source.release({ lease_id: "a", calls: 2 }), source.release({ lease_id: "b" })]);
    await source.release({ lease_id: "c", rate_limited: true });
    expect(calls).toEqual([[{ lease_id: "a", calls: 2 }, { lease_id: "b" }], [{ lease_id: "c", rate_limited: true }]]);
  });

  it("fails every release of a call that failed", async () => {
    const { ns } = fakeLimiter(true);
    const source = slotSource(ns, model, "key");
    const outcomes = await Promise.allSettled([source.release({ lease_id: "a" }), source.release({ lease_id: "b" })]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
  });
});
