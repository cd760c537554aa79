/**
 * GET /v1/runs?status=…&benchmark_name=…: a tenant with many CI runs finds the ones still going,
 * or those of one benchmark, without paging through the rest. Filters combine, a cursor is followed
 * with them, another tenant's runs never show, and a status that does not exist is a 400 naming
 * `query status`.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { addFakeRules, uniqueModel } from "./helpers";
import { apiAs, createTenant, submitAs, type TestTenant, waitAs } from "./tenant-helpers";
import { tinyRun } from "./webhook-helpers";

interface Listed {
  runs: { run_id: string; status: string; benchmark_name: string }[];
  next_cursor: string | null;
}

describe("GET /v1/runs filters", () => {
  let t: TestTenant;
  const judge = uniqueModel("list-judge");
  // Oldest first: [alpha completed, beta completed, alpha running, beta cancelled, alpha running]
  const ids: string[] = [];

  const list = async (query: string, key = t.key): Promise<Listed> => {
    const res = await apiAs(key, `/v1/runs?${query}`);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as Listed;
  };

  beforeAll(async () => {
    t = await createTenant({ name: "run list filters" });
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "x" } } }]);
    for (const name of ["alpha", "beta", "alpha", "beta", "alpha"]) {
      const body = tinyRun(judge);
      const id = await submitAs(t.key, { ...body, benchmark: { ...body.benchmark, name } });
      await waitAs(t.key, id);
      ids.push(id);
    }
    // The list reads the runs rows: set the statuses a live tenant would have (runs still going, one cancelled).
    const set = (id: string, status: string) => env.DB.prepare("UPDATE runs SET status = ? WHERE run_id = ?").bind(status, id).run();
    await set(ids[2]!, "running");
    await set(ids[3]!, "cancelled");
    await set(ids[4]!, "running");
  });

  it("status keeps the runs in any of the statuses given, newest first", async () => {
    expect((await list("status=running")).runs.map((r) => r.run_id)).toEqual([ids[4], ids[2]]);
    expect((await list("status=running,cancelled")).runs.map((r) => r.run_id)).toEqual([ids[4], ids[3], ids[2]]);
    expect((await list("status=completed")).runs.map((r) => r.status)).toEqual(["completed", "completed"]);
    expect((await list("status=queued")).runs).toEqual([]);
  });

  it("benchmark_name keeps that benchmark's runs; with status, both hold", async () => {
    expect((await list("benchmark_name=alpha")).runs.map((r) => r.run_id)).toEqual([ids[4], ids[2], ids[0]]);
    expect((await list("benchmark_name=alpha&status=completed")).runs.map((r) => r.run_id)).toEqual([ids[0]]);
    expect((await list("benchmark_name=gamma")).runs).toEqual([]);
  });

  it("a cursor is followed with the filters: page by page, the same runs as one page", async () => {
    const first = await list("status=running,completed&limit=2");
    expect(first.runs.map((r) => r.run_id)).toEqual([ids[4], ids[2]]);
    const second = await list(`status=running,completed&limit=2&cursor=${encodeURIComponent(first.next_cursor!)}`);
    expect(second.runs.map((r) => r.run_id)).toEqual([ids[1], ids[0]]);
    // A full page has a cursor (as every list here): the page after it is empty and ends the list.
    const third = await list(`status=running,completed&limit=2&cursor=${encodeURIComponent(second.next_cursor!)}`);
    expect(third).toEqual({ runs: [], next_cursor: null });
  });

  it("another tenant's runs never show, whatever the filter", async () => {
    const other = await createTenant({ name: "run list filters, other" });
    expect((await list("status=running,completed,cancelled", other.key)).runs).toEqual([]);
    expect((await list("benchmark_name=alpha", other.key)).runs).toEqual([]);
  });

  it("a status that does not exist, or an empty one, is a 400 naming query status and listing the statuses", async () => {
    for (const q of ["status=done", "status=running,", "status="]) {
      const res = await apiAs(t.key, `/v1/runs?${q}`);
      expect(res.status, q).toBe(400);
      const { error } = (await res.json()) as { error: { code: string; issues: { path: string; message: string }[] } };
      expect(error.code).toBe("invalid_query");
      expect(error.issues[0]!.path, q).toMatch(/^query status/);
      expect(error.issues[0]!.message, q).toContain("running");
    }
  });
});
