/** Issue 24 item 3: the CLI's CI gates and its progress lines, as pure functions (the e2e runs them against npm run dev). */
import { describe, expect, it } from "vitest";
import type { Out } from "../../../cli/io.ts";
import { progressReporter } from "../../../cli/progress.ts";
import { endFailure, gateFailures, summaryTable } from "../../../cli/summary.ts";

const row = (answering: string, passed: number, failed: number, errored: number) => ({
  answering_model: answering,
  parsing_model: "judge",
  total: passed + failed + errored,
  passed,
  failed,
  errored,
  pass_rate: passed + failed ? passed / (passed + failed) : null,
});
const example = [row("alpha", 22, 2, 0), row("beta", 6, 16, 2)];

describe("CI gates", () => {
  it("--fail-under fails a pair below it (beta 6/22 = 27.3 %) and passes at or under its rate", () => {
    expect(gateFailures(example, { failUnder: 0.25, maxErrors: 2 })).toEqual([]);
    expect(gateFailures(example, { failUnder: 6 / 22, maxErrors: 2 })).toEqual([]);
    expect(gateFailures(example, { failUnder: 0.3, maxErrors: 2 })).toEqual([
      "beta / judge: pass rate 27.3 % is below --fail-under 0.3 (6/22)",
    ]);
  });

  it("--fail-under fails a pair with no pass rate (every result errored)", () => {
    expect(gateFailures([row("gamma", 0, 0, 3)], { failUnder: 0, maxErrors: 5 })).toEqual([
      "gamma / judge: no pass rate (no result passed or failed), --fail-under 0",
    ]);
  });

  it("--max-errors counts errored results over the whole run (default 0 fails the example)", () => {
    expect(gateFailures(example, { maxErrors: 0 })).toEqual([
      "2 errored result(s) (a judge or transport failure), more than --max-errors 0",
    ]);
    expect(gateFailures(example, { maxErrors: 2 })).toEqual([]);
  });

  it("fails a run that did not end completed: its missing results are in no pass rate or error count", () => {
    const run = (status: "completed" | "partial" | "failed" | "cancelled" | "budget_exceeded") => ({
      run_id: "r1",
      status,
      progress: { done: 4, total: 48 },
    });
    expect(endFailure(run("completed"))).toBeNull();
    expect(endFailure(run("cancelled"))).toBe("run r1 ended cancelled with 4/48 results: it was cancelled before every job ran");
    expect(endFailure(run("budget_exceeded"))).toBe(
      "run r1 ended budget_exceeded with 4/48 results: its budget_usd was spent before every job ran",
    );
    expect(endFailure(run("failed"))).toBe(
      "run r1 ended failed with 4/48 results: not one result has a verdict (every job errored or was dead-lettered)",
    );
    expect(endFailure(run("partial"))).toBe("run r1 ended partial with 4/48 results: some jobs were dead-lettered and left no result");
  });

  it("prints the summary as an aligned table", () => {
    expect(summaryTable(example).split("\n")).toEqual([
      "answering  parsing  total  passed  failed  errored  pass rate",
      "---------  -------  -----  ------  ------  -------  ---------",
      "alpha      judge       24      22       2        0     91.7 %",
      "beta       judge       24       6      16        2     27.3 %",
    ]);
  });
});

describe("progress", () => {
  function capture(isTTY: boolean) {
    const lines: string[] = [];
    const bars: string[] = [];
    const out: Out = { isTTY, line: (s) => lines.push(s), err: (s) => lines.push(s), status: (s) => bars.push(s) };
    let t = 0;
    return { lines, bars, reporter: progressReporter(out, () => t), tick: (ms: number) => (t += ms) };
  }

  it("writes plain lines when not a TTY: one per 10 % step, and the last", () => {
    const { lines, bars, reporter } = capture(false);
    for (let done = 0; done <= 100; done++) reporter.onEvent({ type: "progress", data: { done, total: 100 } });
    expect(bars).toEqual([]);
    expect(lines).toHaveLength(11);
    expect(lines.at(-1)).toBe("progress 100/100 results (100 %), 0 s");
  });

  it("redraws one bar on a TTY, with verdict counts from result events", () => {
    const { lines, bars, reporter, tick } = capture(true);
    reporter.onEvent({ type: "result", data: { verdict: "pass" } });
    tick(3000);
    reporter.onEvent({ type: "progress", data: { done: 1, total: 2 } });
    expect(lines).toEqual([]);
    expect(bars).toEqual([`[${"#".repeat(15)}${"-".repeat(15)}] 1/2 results (50 %), pass 1, 3 s`]);
  });

  it("prints a status once, though the stream sends it again at the end (cancelled, then cancelled at done)", () => {
    const { lines, reporter } = capture(false);
    for (const status of ["queued", "running", "cancelled", "cancelled"]) reporter.onEvent({ type: "status", data: { status } });
    expect(lines).toEqual(["status queued", "status running", "status cancelled"]);
  });

  it("shows the cost so far and the ETA the event stream's progress carries", () => {
    const { bars, reporter, tick } = capture(true);
    tick(2000);
    reporter.onEvent({ type: "progress", data: { done: 10, total: 40, cost_usd: 0.0123, eta_s: 6 } });
    reporter.onEvent({ type: "progress", data: { done: 40, total: 40, cost_usd: 0.05, eta_s: 0 } });
    expect(bars).toEqual([
      `[${"#".repeat(8)}${"-".repeat(22)}] 10/40 results (25 %), $0.0123 so far, 2 s, ETA 6 s`,
      `[${"#".repeat(30)}] 40/40 results (100 %), $0.0500 so far, 2 s`,
    ]);
  });
});
