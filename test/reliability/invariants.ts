/**
 * The one invariant checker every scenario calls after its run (issue 26):
 * - d1_one_row: exactly one D1 row per result key (question, answering, parsing, replicate), none missing;
 * - r2_objects: at most one R2 object per result, exactly one where the storage rule puts it in R2
 *   (its JSON over INLINE_RESULT_MAX), none for a result whole in its row, no orphans;
 * - totals_match: the coordinator's counters equal D1's (results, and per pair and verdict);
 * - usage_once: tokens counted once: the coordinator's totals = the tenant ledger in D1 = the sum
 *   of the stored results' usage (the answer's once per job: every judge of a job shares it);
 * - terminal: the run reached one of the expected terminal statuses, mirrored on its D1 row;
 * - repaid: provider calls beyond the no-fault baseline (and the provider faults injected on
 *   purpose), within the scenario's allowance; or, for a run whose faults change how many calls it
 *   needs, the fake's own count of bodies it answered successfully twice (`repeats`).
 */
import { env } from "cloudflare:workers";
import { INLINE_RESULT_MAX } from "../../src/storage/result-store";
import { fakeStats, r2Keys, runObjects } from "../integration/helpers";
import type { InvariantOutcome, ReliabilityReport } from "./report";

export interface ResultKey {
  question_id: string;
  answering_model: string;
  parsing_model: string;
  replicate: number;
}

export interface RunExpectation {
  runId: string;
  /** The run's coordinator (`<tenant>:<run_id>`; tenant `default` unless given). */
  coordinatorName?: string;
  /** Every result the run must end with. */
  keys: readonly ResultKey[];
  /** Statuses that count as the right end (default: completed). */
  terminal?: readonly string[];
  /**
   * Provider calls: the fake models whose calls count, and what a no-fault run of the same shape
   * makes. Without a baseline, re-paid calls are the fake's `repeats` (needs prompts that differ per
   * job: one replicate).
   */
  calls?: {
    models: readonly string[];
    baseline?: number;
    /** Provider faults injected on purpose (each a call that had to be repeated). */
    injected?: number;
    /** Re-paid calls allowed (default 0). */
    allowed?: number;
  };
}

export type CheckOutcome = Pick<ReliabilityReport, "lost" | "duplicated" | "repaid_calls" | "terminal_status"> & {
  invariants: Record<string, InvariantOutcome>;
  figures: { results: number; r2_objects: number; provider_calls: number | null };
};

const keyOf = (k: ResultKey) => `${k.question_id}|${k.answering_model}|${k.parsing_model}|${k.replicate}`;

interface Row extends ResultKey {
  result_id: string;
  verdict: string;
  r2_key: string;
  compact_json: string;
  trace_len: number | null;
}

export async function checkRun(exp: RunExpectation): Promise<CheckOutcome> {
  const coordinatorName = exp.coordinatorName ?? `default:${exp.runId}`;
  const { results: rows } = await env.DB.prepare(
    `SELECT result_id, question_id, answering_model, parsing_model, replicate, verdict, r2_key, compact_json,
       LENGTH(trace_json) AS trace_len FROM results WHERE run_id = ?`,
  )
    .bind(exp.runId)
    .all<Row>();
  const snap = await env.RUNS.getByName(coordinatorName).snapshot();
  const invariants: Record<string, InvariantOutcome> = {};

  // d1_one_row
  const expected = new Set(exp.keys.map(keyOf));
  const seen = new Map<string, number>();
  for (const r of rows) seen.set(keyOf(r), (seen.get(keyOf(r)) ?? 0) + 1);
  const missing = [...expected].filter((k) => !seen.has(k));
  const extra = [...seen].filter(([k, n]) => n > 1 || !expected.has(k)).map(([k, n]) => `${k}×${n}`);
  const duplicatedRows = [...seen].reduce((s, [k, n]) => s + (expected.has(k) ? n - 1 : n), 0);
  invariants.d1_one_row = {
    pass: missing.length === 0 && extra.length === 0,
    detail: `${rows.length} rows for ${expected.size} keys; missing ${missing.length}${sample(missing)}; extra ${extra.length}${sample(extra)}`,
  };

  // r2_objects
  const objects = await r2Keys(`${runObjects(exp.runId)}/results/`);
  const r2Problems: string[] = [];
  const rowByKey = new Map(rows.filter((r) => r.r2_key !== "").map((r) => [r.r2_key, r]));
  for (const key of objects) if (!rowByKey.has(key)) r2Problems.push(`orphan ${key}`);
  for (const r of rows) {
    if (r.r2_key === "") {
      // Whole in its row: the row is within the inline limit.
      if (r.compact_json.length + (r.trace_len ?? 0) > INLINE_RESULT_MAX) r2Problems.push(`${r.result_id} inline but over the limit`);
      continue;
    }
    const head = await env.BLOBS.head(r.r2_key);
    if (!head) r2Problems.push(`${r.result_id} has no R2 object`);
    else if (head.size <= INLINE_RESULT_MAX) r2Problems.push(`${r.result_id} in R2 but within the inline limit`);
    if (r.trace_len !== null) r2Problems.push(`${r.result_id} in R2 and whole in D1`);
  }
  invariants.r2_objects = {
    pass: r2Problems.length === 0,
    detail: `${objects.length} objects for ${rowByKey.size} R2 results; ${r2Problems.length} problems${sample(r2Problems)}`,
  };

  // totals_match
  const totalsProblems: string[] = [];
  if (!snap) totalsProblems.push("coordinator has no run");
  else {
    if (snap.progress.done !== rows.length) totalsProblems.push(`coordinator done ${snap.progress.done} ≠ D1 rows ${rows.length}`);
    const d1Counts = new Map<string, number>();
    for (const r of rows)
      d1Counts.set(
        `${r.answering_model}|${r.parsing_model}|${r.verdict}`,
        (d1Counts.get(`${r.answering_model}|${r.parsing_model}|${r.verdict}`) ?? 0) + 1,
      );
    for (const s of snap.summary) {
      for (const [verdict, n] of [
        ["pass", s.passed],
        ["fail", s.failed],
        ["error", s.errored],
      ] as const) {
        const d1 = d1Counts.get(`${s.answering_model}|${s.parsing_model}|${verdict}`) ?? 0;
        if (d1 !== n) totalsProblems.push(`${s.answering_model}/${s.parsing_model} ${verdict}: coordinator ${n} ≠ D1 ${d1}`);
      }
    }
    const j = snap.jobs;
    if (j.done + j.dead + j.skipped !== j.total) totalsProblems.push(`jobs ${JSON.stringify(j)} not all finished`);
  }
  invariants.totals_match = {
    pass: totalsProblems.length === 0,
    detail: totalsProblems.length ? totalsProblems.join("; ") : `${rows.length} results agree`,
  };

  // usage_once
  const ledger = await env.DB.prepare(
    "SELECT COUNT(*) AS n, COALESCE(SUM(input_tokens), 0) AS input, COALESCE(SUM(output_tokens), 0) AS output FROM usage_ledger WHERE run_id = ?",
  )
    .bind(exp.runId)
    .first<{ n: number; input: number; output: number }>();
  const fromResults = usageOfResults(rows);
  const coord = snap ? { input: snap.usage.total.input_tokens, output: snap.usage.total.output_tokens } : { input: -1, output: -1 };
  const usageAgrees =
    ledger!.n === fromResults.rows &&
    ledger!.input === fromResults.input &&
    ledger!.output === fromResults.output &&
    coord.input === fromResults.input &&
    coord.output === fromResults.output;
  invariants.usage_once = {
    pass: usageAgrees,
    detail: `tokens in/out: results ${fromResults.input}/${fromResults.output} (${fromResults.rows} rows), ledger ${ledger!.input}/${ledger!.output} (${ledger!.n} rows), coordinator ${coord.input}/${coord.output}`,
  };

  // terminal
  const allowed = exp.terminal ?? ["completed"];
  const d1Run = await env.DB.prepare("SELECT status, finished_at FROM runs WHERE run_id = ?")
    .bind(exp.runId)
    .first<{ status: string; finished_at: string | null }>();
  const status = snap?.status ?? null;
  invariants.terminal = {
    pass:
      status !== null && allowed.includes(status) && d1Run?.status === status && d1Run.finished_at !== null && snap?.finished_at !== null,
    detail: `coordinator ${status} (finished ${snap?.finished_at ?? "never"}), D1 ${d1Run?.status} (finished ${d1Run?.finished_at ?? "never"}); expected ${allowed.join("|")}`,
  };

  // repaid
  let repaid: number | null = null;
  let providerCalls: number | null = null;
  if (exp.calls) {
    providerCalls = 0;
    let repeats = 0;
    for (const m of exp.calls.models) {
      const s = await fakeStats(m);
      providerCalls += s.total;
      repeats += s.repeats;
    }
    const allowance = exp.calls.allowed ?? 0;
    const { baseline } = exp.calls;
    repaid = baseline === undefined ? repeats : providerCalls - baseline - (exp.calls.injected ?? 0);
    invariants.repaid = {
      pass: repaid >= 0 && repaid <= allowance,
      detail:
        baseline === undefined
          ? `${providerCalls} calls, ${repeats} answering a body already answered (allowed ${allowance})`
          : `${providerCalls} calls = baseline ${baseline} + injected ${exp.calls.injected ?? 0} + re-paid ${repaid} (allowed ${allowance})`,
    };
  }

  return {
    lost: missing.length,
    duplicated: duplicatedRows + (snap ? Math.max(0, snap.progress.done - rows.length) : 0),
    repaid_calls: repaid,
    terminal_status: status,
    invariants,
    figures: { results: rows.length, r2_objects: objects.length, provider_calls: providerCalls },
  };
}

/** Usage rows the stored results imply: one per judging stage of each result, the answer's once per job. */
function usageOfResults(rows: readonly Row[]): { rows: number; input: number; output: number } {
  const seen = new Map<string, { input_tokens: number; output_tokens: number }>();
  for (const r of rows) {
    const meta =
      (JSON.parse(r.compact_json) as { template?: { usage_metadata?: Record<string, { input_tokens: number; output_tokens: number }> } })
        .template?.usage_metadata ?? {};
    for (const [stage, u] of Object.entries(meta)) {
      if (stage === "total") continue;
      const key = stage === "answer_generation" ? `${r.question_id}|${r.answering_model}|${r.replicate}|answer` : `${r.result_id}|${stage}`;
      seen.set(key, u);
    }
  }
  let input = 0;
  let output = 0;
  for (const u of seen.values()) {
    input += u.input_tokens;
    output += u.output_tokens;
  }
  return { rows: seen.size, input, output };
}

function sample(items: readonly string[]): string {
  return items.length ? ` (${items.slice(0, 3).join(", ")}${items.length > 3 ? ", …" : ""})` : "";
}
