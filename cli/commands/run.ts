/**
 * `edgeval run <benchmark.json | checkpoint.jsonld | --benchmark-id ID> --config FILE`: submits a run
 * (with --budget-usd and --prices when given), shows its
 * progress (SSE, or polling where the server has no stream), prints the summary table, and exits
 * non-zero when a CI gate fails (--fail-under, --max-errors).
 */
import path from "node:path";
import {
  type CreateRunRequest,
  type EdgevalClient,
  isTransient,
  type RescoreStarted,
  type RunStatus,
  type RunSubmission,
} from "../../src/client/index.ts";
import { CliError, checkWritable, type Out, readData } from "../io.ts";
import { progressReporter, retryLine } from "../progress.ts";
import { endFailure, gateFailures, jsonReport, summaryTable } from "../summary.ts";
import { printImportIssues } from "./misc.ts";
import { resultsCommand } from "./results.ts";

export interface RunOptions {
  config?: string;
  preset?: string;
  /** A stored benchmark (POST /v1/benchmarks, or `edgeval import`) instead of a file. */
  benchmarkId?: string;
  /** The run's spending cap: no job starts once the recorded cost reaches it (it ends budget_exceeded). */
  budgetUsd?: number;
  /** A file of per-model prices (USD per million tokens) over the server's table. */
  prices?: string;
  failUnder?: number;
  maxErrors: number;
  name?: string;
  idempotencyKey?: string;
  timeout: number;
  pollMs: number;
  /** Write every result (ndjson) here once the run ends, before the gates are judged (a CI artifact). */
  saveResults?: string;
  /** Print the end as one JSON document on stdout (jsonReport) instead of the table. */
  json?: boolean;
}

const isCheckpoint = (file: string, data: unknown) =>
  file.endsWith(".jsonld") || (typeof data === "object" && data !== null && "@context" in data);

/**
 * The run body but its benchmark: `--config FILE` spelled out, or `--preset ID` naming a stored
 * preset (POST /v1/presets), with `--config` then holding overrides of the preset's top-level keys;
 * and the cost options.
 */
function runBody(opts: RunOptions, file: string | undefined): RunSubmission {
  const run_name = opts.name ?? (file ? path.basename(file) : undefined);
  return { ...configPart(opts, run_name), ...costPart(opts) } as RunSubmission;
}

function configPart(opts: RunOptions, run_name: string | undefined): RunSubmission {
  if (opts.preset) {
    const overrides = opts.config ? readData(opts.config) : undefined;
    if (overrides !== undefined && (overrides === null || typeof overrides !== "object" || Array.isArray(overrides))) {
      throw new CliError(`--config ${opts.config}: with --preset it holds overrides of the preset's top-level keys, so it must be an object`);
    }
    return { preset_id: opts.preset, run_name, ...(overrides ? { config: overrides as Record<string, unknown> } : {}) };
  }
  if (!opts.config) throw new CliError("give the run's config: --config FILE (a Karenina VerificationConfig as JSON or YAML, e.g. examples/basic/config.json), or --preset ID naming a stored preset");
  return { config: readData(opts.config) as CreateRunRequest["config"], run_name };
}

/** `budget_usd` and `prices`, when given (the server's table prices the rest). */
function costPart(opts: RunOptions): Pick<CreateRunRequest, "budget_usd" | "prices"> {
  return {
    ...(opts.budgetUsd !== undefined ? { budget_usd: opts.budgetUsd } : {}),
    ...(opts.prices ? { prices: readPrices(opts.prices) } : {}),
  };
}

/**
 * Reads `--prices FILE`: `{"<interface>:<model_name>" or "<model_name>": {input_per_mtok, output_per_mtok}}`
 * in USD per million tokens, checked here so a typo is one line naming the model, before any request.
 */
export function readPrices(file: string): NonNullable<CreateRunRequest["prices"]> {
  const data = readData(file);
  const shape = `{"MODEL": {"input_per_mtok": 0.15, "output_per_mtok": 0.6}} (USD per million tokens)`;
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw new CliError(`--prices ${file}: it must hold an object, ${shape}`);
  for (const [model, price] of Object.entries(data)) {
    const keys = price !== null && typeof price === "object" && !Array.isArray(price) ? Object.keys(price) : [];
    const bad = keys.find((k) => k !== "input_per_mtok" && k !== "output_per_mtok");
    if (bad) throw new CliError(`--prices ${file}: ${JSON.stringify(model)}.${bad} is not a price field; each model takes input_per_mtok and output_per_mtok`);
    for (const field of ["input_per_mtok", "output_per_mtok"]) {
      const n = (price as Record<string, unknown> | null)?.[field];
      if (typeof n !== "number" || !Number.isFinite(n) || n < 0) {
        throw new CliError(`--prices ${file}: ${JSON.stringify(model)}.${field} must be a number ≥ 0 (USD per million tokens), as in ${shape}`);
      }
    }
  }
  return data as NonNullable<CreateRunRequest["prices"]>;
}

export async function runCommand(client: EdgevalClient, file: string | undefined, opts: RunOptions, out: Out): Promise<number> {
  if (file && opts.benchmarkId) throw new CliError(`give the benchmark once: a FILE (${file}) or --benchmark-id ${opts.benchmarkId}, not both`);
  if (!file && !opts.benchmarkId) throw new CliError("give the benchmark: a FILE (benchmark.json, or a Karenina checkpoint.jsonld), or --benchmark-id ID naming a stored one (edgeval import prints it)");
  checkFollowOptions(opts);
  const body = runBody(opts, file);
  // --timeout bounds the whole command: a server that takes a request and never answers would
  // otherwise hold a CI job for the request's own timeout (2 minutes) before the wait began.
  const deadline = { signal: AbortSignal.timeout(opts.timeout * 1000), endsAt: Date.now() + opts.timeout * 1000 };
  if (!file) return submitAndFollow(client, { ...body, benchmark_id: opts.benchmarkId }, opts, out, deadline);
  const data = readData(file);
  if (isCheckpoint(file, data)) {
    const importing = client.benchmarks.import(data, { signal: deadline.signal });
    const imported = await beforeDeadline(importing, deadline.signal, "POST /v1/benchmarks/import", `${opts.timeout} s`, "nothing was run");
    out.err(`imported ${file} as benchmark ${imported.benchmark_id} (${imported.imported} questions, ${imported.warnings.length} warnings, ${imported.errors.length} errors)`);
    printImportIssues(imported, out);
    body.benchmark_id = imported.benchmark_id;
  } else {
    body.benchmark = data as CreateRunRequest["benchmark"];
  }
  return submitAndFollow(client, body, opts, out, deadline);
}

async function submitAndFollow(client: EdgevalClient, body: RunSubmission, opts: RunOptions, out: Out, deadline: Deadline): Promise<number> {
  const { signal: deadlineSignal, endsAt } = deadline;
  // A 429 (a quota: nothing taken) is waited out, and with a key any blip, within what is left of --timeout.
  const creating = client.runs.create(body, {
    idempotencyKey: opts.idempotencyKey,
    signal: deadlineSignal,
    onRetry: retryLine(out),
    maxDelayMs: endsAt - Date.now(),
  });
  const resend = opts.idempotencyKey
    ? `re-send it with --idempotency-key ${opts.idempotencyKey}: that returns the run if it was taken`
    : "give --idempotency-key KEY when you re-send it, so that a run taken twice is one run";
  const submitted = await beforeDeadline(creating, deadlineSignal, "POST /v1/runs", `${opts.timeout} s`, `the server may have taken the run or not; ${resend}`);
  out.err(`run ${submitted.run_id} submitted: ${client.url}${submitted.status_url}`);
  // Options the run took but does not apply (a Karenina setting with no effect here): said, not dropped.
  for (const w of submitted.warnings ?? []) out.err(`warning: ${w.path}: ${w.message}`);
  return followRun(client, submitted.run_id, opts, out, { deadline: deadlineSignal, serverAnswered: true });
}

/** --timeout as a signal, and when it fires (a wait the server asks for beyond it is not waited). */
interface Deadline {
  signal: AbortSignal;
  endsAt: number;
}

/** A request before there is a run to follow; `deadline` (--timeout) ending it is said as such, with what it left behind. */
export async function beforeDeadline<T>(request: Promise<T>, deadline: AbortSignal, what: string, within: string, left: string): Promise<T> {
  try {
    return await request;
  } catch (err) {
    if (deadline.aborted) throw new CliError(`no answer to ${what} within ${within} (--timeout): ${left}`);
    throw err;
  }
}

export type FollowOptions = Pick<RunOptions, "failUnder" | "maxErrors" | "timeout" | "pollMs" | "saveResults" | "json">;

/** Refuses options of `run` and `rescore` that cannot go together, before any request. */
export function checkFollowOptions(opts: FollowOptions): void {
  if (opts.json && opts.saveResults === "-") throw new CliError("--json and --save-results - would both write to stdout: save the results to a file (--save-results results.ndjson)");
  if (opts.saveResults) checkWritable(opts.saveResults, "--save-results");
}

/** What the command that submitted the run knows: its --timeout already running, and that the server answered. */
export interface FollowContext {
  /** --timeout, begun before the submit; default: it begins now. */
  deadline?: AbortSignal;
  /** The server has just taken the run (run, rescore): no answer at the first watch is a blip. */
  serverAnswered?: boolean;
  /** `rescore` printed the child's left_out and graded_afresh from its 202; a watch prints them from the run's lineage. */
  caveatsSaid?: boolean;
}

/**
 * What a re-scored run does without, one stderr line each: the rescore 202's `left_out` and
 * `graded_afresh`, which GET /v1/runs/:id keeps in `lineage` (a server from before it sends neither).
 */
export function rescoreCaveatLines(
  parentId: string,
  caveats: { left_out?: RescoreStarted["left_out"] | null; graded_afresh?: RescoreStarted["graded_afresh"] },
): string[] {
  return [
    ...(caveats.graded_afresh ? [`graded afresh: ${caveats.graded_afresh.results} result(s): ${caveats.graded_afresh.reason}`] : []),
    ...(caveats.left_out ?? []).map(
      (l) => `left out of the child: ${l.what} ${l.ids.map((id) => JSON.stringify(id)).join(", ")} (${l.results} result(s) of run ${parentId}): ${l.reason}`,
    ),
  ];
}

/** Progress until the run ends, the summary table (or --json's report), the saved results, then the CI gates' exit code. */
export async function followRun(
  client: EdgevalClient,
  runId: string,
  opts: FollowOptions,
  out: Out,
  how: FollowContext = {},
): Promise<number> {
  const timeout = how.deadline ?? AbortSignal.timeout(opts.timeout * 1000);
  const progress = progressReporter(out);
  // Ctrl-C (or a CI runner's SIGTERM) stops the watching, not the run: say so, and how to stop it.
  const interrupt = new AbortController();
  const onSignal = (name: NodeJS.Signals) => interrupt.abort(name);
  process.once("SIGINT", onSignal).once("SIGTERM", onSignal);
  let run: RunStatus;
  try {
    run = await client.runs.wait(runId, {
      pollMs: opts.pollMs,
      signal: AbortSignal.any([timeout, interrupt.signal]),
      onFallback: (why) => out.err(`(${why})`),
      onEvent: (e) => progress.onEvent(e),
      onRetry: retryLine(out),
      serverAnswered: how.serverAnswered,
    });
  } catch (err) {
    const again = `follow it again with: edgeval watch ${runId}, or stop it with: edgeval cancel ${runId}`;
    if (interrupt.signal.aborted) throw new CliError(`interrupted: run ${runId} goes on on the server; ${again}`, interrupt.signal.reason === "SIGTERM" ? 143 : 130);
    if (timeout.aborted) throw new CliError(`run ${runId} did not finish within ${opts.timeout} s (--timeout); it goes on on the server: ${again}`);
    // The server stopped answering (retries spent): the watch ended, the run may well not have.
    if (isTransient(err) || isTransient((err as Error).cause)) throw new CliError(`${(err as Error).message}\nrun ${runId} may go on on the server: ${again}`);
    throw err;
  } finally {
    process.off("SIGINT", onSignal).off("SIGTERM", onSignal);
  }

  // `watch` of a re-scored run: what its re-score left out, as `rescore` said it at the start.
  if (!how.caveatsSaid && run.lineage?.parent_run_id) for (const l of rescoreCaveatLines(run.lineage.parent_run_id, run.lineage)) out.err(l);
  const rows = run.summary_total > run.summary.length ? await client.runs.allPairs(run.run_id, { onRetry: retryLine(out) }) : run.summary;
  const cost = run.usage.total.cost_usd;
  if (!opts.json) {
    out.line(`\nrun ${run.run_id}: ${run.status}, ${run.progress.done}/${run.progress.total} results, cost ${cost === null ? "unknown (unpriced models)" : `$${cost.toFixed(4)}`}\n`);
    out.line(summaryTable(rows));
  }
  const gates = { failUnder: opts.failUnder, maxErrors: opts.maxErrors };
  const ended = endFailure(run);
  const failures = [...(ended ? [ended] : []), ...gateFailures(rows, gates)];
  // Before the save, as the table is: a save that fails (exit 2) still leaves the run's verdict on stdout.
  if (opts.json) out.line(JSON.stringify(jsonReport(run, rows, gates, failures)));
  if (opts.saveResults) await resultsCommand(client, run.run_id, { format: "ndjson", output: opts.saveResults }, out);
  for (const f of failures) out.err(`FAIL ${f}`);
  if (failures.length) return 1;
  out.err(`ok: every gate passed${opts.failUnder !== undefined ? ` (--fail-under ${opts.failUnder}` : " ("}${opts.failUnder !== undefined ? ", " : ""}--max-errors ${opts.maxErrors})`);
  return 0;
}
