/**
 * Scenario 5: provider faults, each kind on 20 % of the judge's calls (seeded), one run per kind:
 * - 429 with retry-after 1 s (waited in place: no hand-back) and 8 s (the job deferred, due back no
 *   sooner than the window still to run, and no job failing for it); no call inside a retry-after
 *   window either way;
 * - 500/502/503/529 within the retry budget (every result graded), and a 500 on every call of one
 *   question (its result a server_error failure in the retry group once the budget is spent);
 * - hangs and 1 byte/s trickles: no call outlives the call timeout (MODEL_TIMEOUT_MS, 5 s in tests),
 *   no invocation outlives (timeout retries + 1) × timeout per call;
 * - malformed, truncated and refused output: no verdict from them (the right answer is "Paris", so
 *   a `fail` would be a score taken from garbage), their results classified as parsing failures;
 * - 400/401/403/404/413 and insufficient_quota 429s: never retried (one call each), classified.
 */
import { env } from "cloudflare:workers";
import { KARENINA_BUDGETS } from "../../src/llm/retrying";
import { type LoggedRequest, requestLog, startCapturedRun } from "../integration/limits-support";
import { type BrokerStats, deliveries, drain } from "./broker";
import { checkRun, type CheckOutcome } from "./invariants";
import type { InvariantOutcome } from "./report";
import { workload } from "./scenario";

export const FAULT_KINDS = [
  "429-in-place",
  "429-hand-back",
  "5xx",
  "5xx-over-budget",
  "hang-trickle",
  "bad-output",
  "4xx",
  "413-and-quota",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * The judge's fault rules per kind: 20 % of its calls each (stacked rules fire on 20 % of what the
 * earlier ones left), except the 5xx: 500/502/503/529 at 5 % each (20 % together), so that most
 * results stay within the server_error budget of 2 retries; 5xx-over-budget is every call of q0.
 */
function rules(kind: FaultKind, judge: string): unknown[] {
  const share = (faults: Record<string, unknown>[]) =>
    faults.map((reply, i) => ({ match: { model: judge, probability: 0.2 / (1 - 0.2 * i), seed: 500 + i }, reply }));
  switch (kind) {
    case "429-in-place":
      return share([{ fault: "429", retry_after_s: 1 }]);
    case "429-hand-back":
      return share([{ fault: "429", retry_after_s: 8 }]);
    case "5xx":
      return ["500", "502", "503", "529"].map((fault, i) => ({
        match: { model: judge, probability: 0.05 / (1 - 0.05 * i), seed: 520 + i },
        reply: { fault },
      }));
    case "5xx-over-budget":
      return [{ match: { model: judge, contains: "short question 0:" }, reply: { fault: "500" } }];
    case "hang-trickle":
      return share([{ fault: "hang" }, { fault: "trickle" }]);
    case "bad-output":
      return share([{ fault: "malformed" }, { fault: "truncated" }, { fault: "refusal" }]);
    case "4xx":
      return share(["400", "401", "403", "404"].map((fault) => ({ fault })));
    case "413-and-quota":
      return share([{ fault: "413" }, { fault: "quota" }]);
  }
}

/** The test runner's clock against the fake server's (both this host's, read at different moments). */
const CLOCK_SLACK_MS = 250;

/** Requests that arrived while an earlier 429's retry-after held (after the time a 429 takes to be noticed). */
function insideRetryAfter(log: LoggedRequest[]): LoggedRequest[] {
  const windows = log
    .filter((r) => r.fault === "429" && r.retry_after_s !== undefined)
    .map((r) => [r.replied_at! + 150, r.replied_at! + r.retry_after_s! * 1000] as const);
  return log.filter((r) => windows.some(([from, to]) => r.at > from && r.at < to));
}

export async function providerFaultScenario(kind: FaultKind, jobs: number) {
  const w = await workload(`s5-${kind}`, { questions: jobs, replicates: 1, judges: 1 }, (_a, [judge]) => rules(kind, judge!));
  const judge = w.judges[0]!;
  const { runId, bodies } = await startCapturedRun(w.body);
  const stats: BrokerStats = await drain(deliveries(bodies), { parallel: 4, realDelays: kind === "429-hand-back" });
  const check: CheckOutcome = await checkRun({ runId, keys: w.keys, terminal: ["completed"], calls: { models: [w.answerer, judge] } });
  const { results } = await env.DB.prepare("SELECT question_id, verdict, failure_category, compact_json FROM results WHERE run_id = ?")
    .bind(runId)
    .all<{ question_id: string; verdict: string; failure_category: string | null; compact_json: string }>();
  const judgeStats = (await (await fetch(`${env.FAKE_LLM_URL}/stats?model=${encodeURIComponent(judge)}`)).json()) as {
    total: number;
    faults: Record<string, number>;
  };
  const injected = Object.values(judgeStats.faults).reduce((s, n) => s + n, 0);
  const log = await requestLog(judge);
  const failed = results.filter((r) => r.verdict === "error");
  const categories = [...new Set(failed.map((r) => r.failure_category))].join(", ") || "none";
  const extra: Record<string, InvariantOutcome> = {
    faults_injected: { pass: injected > 0, detail: `${JSON.stringify(judgeStats.faults)}` },
    // A score from a faulted reply would be a `fail` (the right answer is always "Paris").
    no_score_from_faults: {
      pass: results.every((r) => r.verdict !== "fail"),
      detail: `${results.filter((r) => r.verdict === "fail").length} fail verdicts`,
    },
    classified: { pass: failed.every((r) => r.failure_category !== null), detail: `${failed.length} failures: ${categories}` },
  };
  const figures: Record<string, number> = {
    judge_calls: judgeStats.total,
    failed: failed.length,
    handed_back: stats.retried + stats.deferred,
    deferred: stats.deferred,
    max_invocation_ms: stats.maxBatchMs,
  };
  if (kind === "429-in-place" || kind === "429-hand-back") {
    const inside = insideRetryAfter(log);
    extra.none_inside_retry_after = {
      pass: inside.length === 0,
      detail: `${inside.length} of ${log.length} calls inside a retry-after window`,
    };
  }
  if (kind === "429-in-place") {
    extra.waited_in_place = {
      pass: stats.retried + stats.deferred === 0 && failed.length === 0,
      detail: `${stats.retried + stats.deferred} hand-backs, ${failed.length} failures`,
    };
  }
  if (kind === "429-hand-back") {
    // A job handed back while a 429's retry-after held must come back after it ends (a call the
    // key's limiter deferred gets the window still to run, not the whole 8 s).
    const windows = log
      .filter((r) => r.fault === "429" && r.retry_after_s !== undefined)
      .map((r) => [r.replied_at!, r.replied_at! + r.retry_after_s! * 1000] as const);
    const early = stats.handBacks.filter((h) =>
      windows.some(([from, to]) => from <= h.at && h.at + h.delaySeconds * 1000 + CLOCK_SLACK_MS < to),
    );
    const delays = [...new Set(stats.handBacks.map((h) => h.delaySeconds))].sort((a, b) => a - b);
    extra.handed_back_after_retry_after = {
      pass: stats.handBacks.length > 0 && early.length === 0,
      detail: `${stats.handBacks.length} hand-backs (${stats.deferred} deferred), delays ${delays.join("/")} s, ${early.length} due back inside the window`,
    };
    // Delayed, not failed: waiting out retry-afters spends none of a job's deliveries.
    extra.delayed_not_failed = { pass: failed.length === 0, detail: `${failed.length} failures: ${categories}` };
  }
  if (kind === "5xx") {
    // Graded, unless a result's own calls spent the whole budget: then a retry-group server_error.
    const spent = failed.filter(
      (r) => !(r.failure_category === "server_error" && JSON.parse(r.compact_json).metadata.failure?.group === "retry"),
    );
    extra.graded_within_budget = {
      pass: spent.length === 0,
      detail: `${failed.length} of ${results.length} failed (${spent.length} not a spent server_error budget)`,
    };
  }
  if (kind === "5xx-over-budget") {
    const over = results.filter((r) => r.question_id === "q0");
    const retryGroup = over.every(
      (r) => r.failure_category === "server_error" && JSON.parse(r.compact_json).metadata.failure?.group === "retry",
    );
    extra.failed_in_retry_group = {
      pass: over.length === 1 && retryGroup && failed.length === 1,
      detail: `q0: ${over.map((r) => r.failure_category).join()}; ${failed.length} failures`,
    };
    // Per delivery: the call and its in-place retries; the ledger carries the budget across deliveries.
    extra.budget_spent_once = {
      pass: judgeStats.faults["500"] === KARENINA_BUDGETS.server_error + 1,
      detail: `${judgeStats.faults["500"]} calls to the failing judge for q0 (budget ${KARENINA_BUDGETS.server_error})`,
    };
  }
  if (kind === "hang-trickle") {
    const timeoutMs = Number(env.MODEL_TIMEOUT_MS);
    const longest = Math.max(0, ...log.filter((r) => r.closed_at !== undefined).map((r) => r.closed_at! - r.at));
    const perJob = (KARENINA_BUDGETS.timeout + 1) * timeoutMs * 2 + 5_000;
    extra.no_call_outlives_timeout = { pass: longest <= timeoutMs + 1_000, detail: `longest call ${longest} ms (timeout ${timeoutMs} ms)` };
    extra.no_invocation_outlives_budget = {
      pass: stats.maxBatchMs <= perJob,
      detail: `longest invocation ${stats.maxBatchMs} ms (bound ${perJob} ms)`,
    };
    figures.longest_call_ms = longest;
  }
  if (kind === "bad-output") {
    extra.classified_as_parsing = {
      pass: failed.every((r) => r.failure_category === "parsing"),
      detail: `${failed.length} failures: ${categories}`,
    };
  }
  if (kind === "4xx" || kind === "413-and-quota") {
    // Each faulted call is the only call its result gets: the judge's calls are one per result.
    extra.never_retried = {
      pass: judgeStats.total === w.keys.length && failed.length === injected,
      detail: `${judgeStats.total} judge calls for ${w.keys.length} results; ${failed.length} failures for ${injected} faults`,
    };
  }
  return { check, extra, faults: injected, size: `${jobs} jobs`, figures };
}
