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

describe("RunPage of a run that ended badly", () => {
  const pair = { answering_model: "a", parsing_model: "j", total: 3, passed: 0, failed: 0, errored: 3, pass_rate: null };
  const ended = async (status: RunStatusView["status"], summary: unknown[] = []) =>
    (await RunPage({
      tenant: "t",
      view: { ...view(status), summary, summary_total: summary.length } as RunStatusView,
      heat: { cells: [], truncated: false },
      canWrite: false,
      others: [],
    }).toString()) as string;

  it("says why a failed run failed and links its errored results", async () => {
    const html = await ended("failed", [pair]);
    expect(html).toContain("This run ended failed: not one result has a verdict");
    expect(html).toContain(
      '<a href="/dashboard/runs/r1/results?verdict=error">3 results errored (a judge or model call failed): see why</a>',
    );
  });

  it("says what a cancelled or budget-stopped run left undone, and nothing for a clean completed or running run", async () => {
    expect(await ended("cancelled")).toContain("This run ended cancelled: it was cancelled before every job ran");
    expect(await ended("budget_exceeded")).toContain("larger budget_usd");
    expect(await ended("completed", [{ ...pair, passed: 3, errored: 0, pass_rate: 1 }])).not.toContain("run-ending");
    expect(await ended("running", [pair])).not.toContain("run-ending");
    expect(await ended("completed", [{ ...pair, passed: 2, errored: 1, pass_rate: 1 }])).toContain("1 result errored");
  });
});

describe("RunPage of a run with a budget", () => {
  it("shows the budget beside the cost so far, and no budget line without one", async () => {
    const render = async (budget_usd: number | null) =>
      (await RunPage({
        tenant: "t",
        view: { ...view("running"), budget_usd },
        heat: { cells: [], truncated: false },
        canWrite: false,
        others: [],
      }).toString()) as string;
    expect(await render(5)).toContain('<dt>Budget</dt><dd id="progress-budget">$5.0000 (no job starts once the cost reaches it)</dd>');
    // As precise as the cost beside it: a small budget does not read "$0.00".
    expect(await render(0.002)).toContain('<dd id="progress-budget">$0.0020 ');
    expect(await render(null)).not.toContain("progress-budget");
  });
});
