// The dashboard's runs page filters as GET /v1/runs does: by status (one, or the runs still going)
// and by benchmark; "Older runs" keeps the filter; an unknown status is a 400 page.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { addFakeRules, uniqueModel } from "./helpers";
import { createTenant, submitAs, waitAs } from "./tenant-helpers";
import { tinyRun } from "./webhook-helpers";
import { dashboardFetch, dashboardSession } from "./dashboard-helpers";

describe("dashboard runs page filters", () => {
  let cookie: string;
  const ids: string[] = [];
  const runLinks = (html: string) => [...html.matchAll(/<a href="\/dashboard\/runs\/([0-9a-f-]{36})">/g)].map((m) => m[1]);
  const page = async (query: string) => {
    const res = await dashboardFetch(`/dashboard/runs${query}`, { cookie });
    return { status: res.status, html: await res.text() };
  };

  beforeAll(async () => {
    const t = await createTenant({ name: "dashboard runs filters" });
    cookie = await dashboardSession(t.key);
    const judge = uniqueModel("dash-runs");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "x" } } }]);
    // Oldest first: alpha completed, beta running, alpha running (28 more alpha runs follow for paging).
    for (const name of ["alpha", "beta", "alpha"]) {
      const body = tinyRun(judge);
      const id = await submitAs(t.key, { ...body, benchmark: { ...body.benchmark, name } });
      await waitAs(t.key, id);
      ids.push(id);
    }
    await env.DB.prepare("UPDATE runs SET status = 'running' WHERE run_id IN (?, ?)").bind(ids[1], ids[2]).run();
  });

  it("shows the runs of the status chosen, or the runs still going, with the choice kept in the form", async () => {
    const going = await page("?status=queued%2Crunning&benchmark_name=");
    expect(going.status).toBe(200);
    expect(runLinks(going.html)).toEqual([ids[2], ids[1]]);
    expect(going.html).toContain('<option value="queued,running" selected="">still going</option>');
    expect(going.html).toContain("Show every run");
    expect(runLinks((await page("?status=completed")).html)).toEqual([ids[0]]);
    // The form's empty fields are no filter.
    expect(runLinks((await page("?status=&benchmark_name=")).html)).toEqual([ids[2], ids[1], ids[0]]);
  });

  it("a benchmark's name links to its runs; with a status both hold; none matching says so", async () => {
    const all = await page("");
    expect(all.html).toContain('<a href="/dashboard/runs?benchmark_name=alpha" title="This benchmark&#39;s runs">alpha</a>');
    expect(runLinks((await page("?benchmark_name=alpha")).html)).toEqual([ids[2], ids[0]]);
    expect(runLinks((await page("?benchmark_name=alpha&status=running")).html)).toEqual([ids[2]]);
    expect((await page("?benchmark_name=gamma")).html).toContain("No run matches this filter.");
  });

  it("Older runs keeps the filter", async () => {
    // A full page (25) of the filter's runs: rows added directly, as the page reads the runs table.
    for (let i = 0; i < 25; i++) {
      await env.DB.prepare(
        `INSERT INTO runs (run_id, tenant_id, coordinator_name, run_name, benchmark_name, status, total_results, total_jobs, spec_key, created_at, finished_at)
         SELECT ?, tenant_id, coordinator_name, run_name, benchmark_name, status, total_results, total_jobs, spec_key, ?, finished_at FROM runs WHERE run_id = ?`,
      )
        .bind(crypto.randomUUID(), new Date(Date.now() + 60_000 + i).toISOString(), ids[2])
        .run();
    }
    const first = await page("?status=running&benchmark_name=alpha");
    const older = first.html.match(/<a href="(\/dashboard\/runs\?[^"]+)">Older runs<\/a>/)![1]!.replaceAll("&amp;", "&");
    const params = new URL(older, "http://x").searchParams;
    expect([params.get("status"), params.get("benchmark_name")]).toEqual(["running", "alpha"]);
    expect(runLinks((await page(older.slice("/dashboard/runs".length))).html)).toEqual([ids[2]]);
  });

  it("a status that does not exist is a 400 page naming it", async () => {
    const bad = await page("?status=done");
    expect(bad.status).toBe(400);
    expect(bad.html).toContain("expected one of");
  });
});
