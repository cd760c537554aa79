// GET /v1/runs/:id reads the run and the runs re-scored from it in one D1 round trip
// (getRunWithChildren). The children are the run's own tenant's, oldest first, ties by run_id.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_TENANT } from "../../src/storage/r2-keys";
import { getRunWithChildren, insertRun, type RunRecord } from "../../src/storage/runs-repo";
import { createTenant } from "./tenant-helpers";

const run = (tenant_id: string, run_id: string, created_at: string, parent_run_id: string | null = null): RunRecord => ({
  run_id,
  tenant_id,
  coordinator_name: `${tenant_id}:${run_id}`,
  run_name: null,
  benchmark_name: "lineage",
  status: "completed",
  total_results: 1,
  total_jobs: 1,
  spec_key: `specs/${run_id}.json`,
  created_at,
  finished_at: null,
  parent_run_id,
  rescore_caveats: null,
});

describe("a run read with its children", () => {
  it("lists the tenant's children oldest first, ties by run_id, and nobody else's", async () => {
    const other = await createTenant();
    const p = `lineage-parent-${crypto.randomUUID()}`;
    const id = (s: string) => `${p}-${s}`;
    await env.DB.batch([
      insertRun(env.DB, run(DEFAULT_TENANT, p, "2026-01-01T00:00:00.000Z")),
      // Inserted out of order, two of them at the same instant.
      insertRun(env.DB, run(DEFAULT_TENANT, id("c3"), "2026-01-04T00:00:00.000Z", p)),
      insertRun(env.DB, run(DEFAULT_TENANT, id("c2-b"), "2026-01-03T00:00:00.000Z", p)),
      insertRun(env.DB, run(DEFAULT_TENANT, id("c1"), "2026-01-02T00:00:00.000Z", p)),
      insertRun(env.DB, run(DEFAULT_TENANT, id("c2-a"), "2026-01-03T00:00:00.000Z", p)),
      // A grandchild is its parent's child, not this run's; another tenant's row naming p is not p's.
      insertRun(env.DB, run(DEFAULT_TENANT, id("g1"), "2026-01-05T00:00:00.000Z", id("c1"))),
      insertRun(env.DB, run(other.tenant_id, id("x"), "2026-01-01T12:00:00.000Z", p)),
    ]);

    const found = await getRunWithChildren(env.DB, DEFAULT_TENANT, p);
    // A run no DELETE has begun on reads `deleting_at: null` (migration 0023).
    expect(found?.run).toEqual({ ...run(DEFAULT_TENANT, p, "2026-01-01T00:00:00.000Z"), deleting_at: null });
    expect(found?.children).toEqual([id("c1"), id("c2-a"), id("c2-b"), id("c3")]);
    expect((await getRunWithChildren(env.DB, DEFAULT_TENANT, id("c1")))?.children).toEqual([id("g1")]);
    expect((await getRunWithChildren(env.DB, DEFAULT_TENANT, id("c3")))?.children).toEqual([]);
    // Another tenant neither finds the run nor sees it through its own row.
    expect(await getRunWithChildren(env.DB, other.tenant_id, p)).toBeNull();
    expect(await getRunWithChildren(env.DB, DEFAULT_TENANT, id("x"))).toBeNull();
  });
});
