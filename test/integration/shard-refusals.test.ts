/**
 * A shard's report to its root (src/coordinator/shard-report.ts) is answered per result: a result the
 * root refuses for good (a pair the run does not have), or a row the shard cannot read back, is kept
 * as refused with its reason on the shard and the root (the run ends partial: it is missing a result),
 * and the results and job counts after it still reach the root. Before, one such result failed every
 * later report.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { shardName } from "../../src/coordinator/shards";
import { pricedResult, rootWithShards } from "./shard-helpers";

const rows = (name: string, sql: string) =>
  runInDurableObject(env.RUNS.getByName(name), async (_i, state) => state.storage.sql.exec(sql).toArray());

describe("a shard's report answered per result", () => {
  it("drops refused results as classified failures and keeps reporting the ones after them", async () => {
    const {
      root,
      shards: [shard],
    } = await rootWithShards("refusals", 1, 3);

    for (const job of ["0.0.1", "1.0.1", "2.0.1"]) expect((await shard!.claim(job)).kind).toBe("run");
    await shard!.record(pricedResult("0.0.1", 0.01), { completesJob: true });
    // A row the shard cannot read back (no verdict, no pair), then a result for a pair the run does not have.
    await rows(shardName(root, 0), `INSERT INTO to_root (body) VALUES ('{"result_id":"broken","job_id":"1.0.1"}')`);
    await shard!.record(pricedResult("1.0.1", 0.01, "zz"), { completesJob: true });
    await shard!.record(pricedResult("2.0.1", 0.01), { completesJob: true });

    // Every job closed, one result short: the run ends partial, not completed.
    await vi.waitUntil(async () => (await env.RUNS.getByName(root).snapshot())?.status === "partial", { timeout: 10_000, interval: 50 });
    expect((await rows(root, "SELECT result_id FROM results ORDER BY result_id")).map((r) => r.result_id)).toEqual(["r-0.0.1", "r-2.0.1"]);
    expect(await rows(shardName(root, 0), "SELECT result_id, job_id, reason FROM refused_results ORDER BY result_id")).toEqual([
      { result_id: "broken", job_id: "1.0.1", reason: "unreadable" },
      { result_id: "r-1.0.1", job_id: "1.0.1", reason: "unknown_pair" },
    ]);
    expect(await rows(root, "SELECT result_id, reason FROM refused_results ORDER BY result_id")).toEqual([
      { result_id: "broken", reason: "unreadable" },
      { result_id: "r-1.0.1", reason: "unknown_pair" },
    ]);
    expect(await rows(shardName(root, 0), "SELECT seq FROM to_root")).toEqual([]);
    const snap = (await env.RUNS.getByName(root).snapshot())!;
    expect(snap.jobs).toMatchObject({ total: 3, done: 3 });
    expect(snap.usage.total.cost_usd).toBeCloseTo(0.02, 9);
  });
});
