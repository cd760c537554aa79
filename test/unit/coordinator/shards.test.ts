import { describe, expect, it } from "vitest";
import { jobIdAt, jobIndexOf, rootNameOf, shardInit, shardName, shardPlan } from "../../../src/coordinator/shards";
import { jobIds } from "../../../src/submit/spec";

describe("coordinator shards", () => {
  const dims = { questions: 7, answering: 3, replicates: 2 };
  const spec = { questions: Array(7).fill({}), answering_models: Array(3).fill({}), replicate_count: 2 } as never;

  it("numbers jobs exactly as submit does", () => {
    const ids = jobIds(spec);
    expect(ids.map((_, i) => jobIdAt(i, dims))).toEqual(ids);
  });

  it("finds a job id's index back (which shard holds it), and none for an id of another shape", () => {
    const ids = jobIds(spec);
    expect(ids.map((id) => jobIndexOf(id, dims))).toEqual(ids.map((_, i) => i));
    expect(jobIndexOf("s.abc.1", dims)).toBeNull();
  });

  it("splits the jobs into contiguous ranges that cover each job once", () => {
    const plan = shardPlan(dims, 10)!;
    expect(plan.count).toBe(5);
    const covered = Array.from({ length: plan.count }, (_, s) => shardInit("r", { run_id: "r" }, plan, s)).flatMap((x) =>
      Array.from({ length: x.count }, (_, k) => jobIdAt(x.first + k, dims)),
    );
    expect(covered).toEqual(jobIds(spec));
  });

  it("leaves a run that fits one coordinator unsharded", () => {
    expect(shardPlan(dims, 42)).toBeNull();
    expect(shardPlan(dims, 41)?.count).toBe(2);
  });

  it("names a shard after its root, and finds the root back", () => {
    expect(rootNameOf(shardName("t:run_1", 3))).toBe("t:run_1");
    expect(rootNameOf("t:run_1")).toBe("t:run_1");
  });
});
