/** The run's summary table, the CI gates (--fail-under, --max-errors, and how the run ended) and the --json report, as pure functions. */
import type { PairSummary, RunStatus, RunStatusName } from "../src/client/index.ts";

export interface Gates {
  /** Every pair's pass rate must be ≥ this (a null rate fails too). */
  failUnder?: number;
  /** Errored results (judge or transport failures) allowed in the whole run. */
  maxErrors: number;
}

type Row = Pick<PairSummary, "answering_model" | "parsing_model" | "total" | "passed" | "failed" | "errored" | "pass_rate">;

const pct = (r: number | null | undefined) => (r === null || r === undefined ? "-" : `${(r * 100).toFixed(1)} %`);

export function summaryTable(rows: readonly Row[]): string {
  const head = ["answering", "parsing", "total", "passed", "failed", "errored", "pass rate"];
  const body = rows.map((r) => [r.answering_model, r.parsing_model, String(r.total), String(r.passed), String(r.failed), String(r.errored), pct(r.pass_rate)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ").trimEnd();
  return [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

/** What fails the gates, one sentence each; empty when the run passes them. */
export function gateFailures(rows: readonly Row[], gates: Gates): string[] {
  const out: string[] = [];
  if (gates.failUnder !== undefined) {
    for (const r of rows) {
      if (r.pass_rate === null || r.pass_rate === undefined) out.push(`${r.answering_model} / ${r.parsing_model}: no pass rate (no result passed or failed), --fail-under ${gates.failUnder}`);
      else if (r.pass_rate < gates.failUnder) out.push(`${r.answering_model} / ${r.parsing_model}: pass rate ${pct(r.pass_rate)} is below --fail-under ${gates.failUnder} (${r.passed}/${r.passed + r.failed})`);
    }
  }
  const errored = rows.reduce((n, r) => n + r.errored, 0);
  if (errored > gates.maxErrors) out.push(`${errored} errored result(s) (a judge or transport failure), more than --max-errors ${gates.maxErrors}`);
  return out;
}

/**
 * Why a run that ended otherwise than `completed` fails CI. The gates above see only the results
 * the run has: a cancelled or budget-stopped run's unreached jobs, and a partial run's
 * dead-lettered ones, left none, so its pass rates and error count can look fine. Null: completed.
 */
const ENDINGS: Partial<Record<RunStatusName, string>> = {
  cancelled: "it was cancelled before every job ran",
  budget_exceeded: "its budget_usd was spent before every job ran",
  failed: "not one result has a verdict (every job errored or was dead-lettered)",
  partial: "some jobs were dead-lettered and left no result",
};

export function endFailure(run: Pick<RunStatus, "run_id" | "status" | "progress">): string | null {
  if (run.status === "completed") return null;
  const why = ENDINGS[run.status] ?? "it has not finished";
  return `run ${run.run_id} ended ${run.status} with ${run.progress.done}/${run.progress.total} results: ${why}`;
}

/**
 * `--json`: the one document stdout holds, for jq and CI scripts: the run as it ended, every
 * pair (not only the 100 GET /v1/runs/:id embeds), the gates asked for, and what failed them.
 * `passed` is what the exit code says (true: 0, false: 1).
 */
export function jsonReport(run: Pick<RunStatus, "run_id" | "status" | "progress" | "usage">, rows: readonly Row[], gates: Gates, failures: readonly string[]) {
  return {
    run_id: run.run_id,
    status: run.status,
    progress: run.progress,
    cost_usd: run.usage.total.cost_usd,
    usage: run.usage.total,
    summary: rows,
    gates: { fail_under: gates.failUnder ?? null, max_errors: gates.maxErrors },
    failures,
    passed: failures.length === 0,
  };
}
