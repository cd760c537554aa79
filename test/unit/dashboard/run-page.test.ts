/** The run page drawn from a run's view: what it says when a run has no results, going and ended. */
import { describe, expect, it } from "vitest";
import { RunPage } from "../../../src/dashboard/pages";
import type { RunStatusView } from "../../../src/schemas/run-views";

const usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0, cost_usd: 0 };
const view = (status: RunStatusView["status"]): RunStatusView => ({
  run_id: "r1",
  run_name: "empty",
  benchmark_name: "b",
  status,
  progress: { total: 4, done: 0 },
  summary: [],
  summary_total: 0,
  summary_next_url: null,
  usage: { answering: usage, judging: { ...usage, per_stage: {} }, total: usage, unpriced_models: [] },
  budget_usd: null,
  manifest: null,
  lineage: { parent_run_id: null, children: [], left_out: null, graded_afresh: null },
  created_at: "2026-12-07T00:00:00.000Z",
  finished_at: status === "running" ? null : "2026-12-07T00:01:00.000Z",
});
const page = async (status: RunStatusView["status"]) =>
  (await RunPage({
    tenant: "t",
    view: view(status),
    heat: { cells: [], truncated: false },
    canWrite: false,
    others: [],
  }).toString()) as string;

describe("RunPage without results", () => {
  it("asks to reload for results while the run goes", async () => {
    expect(await page("running")).toContain("No results yet (reload to see them as they arrive).");
  });

  it("says an ended run recorded none, never that they are still to arrive", async () => {
    const html = await page("cancelled");
    expect(html).not.toContain("reload to see them");
    expect(html).toContain("No results were recorded (the run ended cancelled).");
  });
});
