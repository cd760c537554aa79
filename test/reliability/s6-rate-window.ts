/**
 * Scenario 6: rate coordination. `invocations` consumer invocations of one job each, all at once,
 * against a fake that admits at most `rpm` requests in any trailing 60 s (a 429 with the seconds
 * until it admits one more otherwise), with the key's limit set as issue 16 prescribes: the
 * operator's EDGEVAL_PROVIDER_LIMITS for the fake's origin, {rpm}. Answers are manual (no call), so
 * every call is a judge's. Measured from the fake's request log: the most requests that reached it
 * in any 60 s window (must be ≤ rpm) and the 429s it answered.
 */
import { env } from "cloudflare:workers";
import type { Env } from "../../src/env";
import { addFakeRules, exactTemplate, fakeModel, fakeStats, uniqueModel } from "../integration/helpers";
import { requestLog, startCapturedRun } from "../integration/limits-support";
import { deliveries, drainPipelined } from "./broker";
import { checkRun } from "./invariants";
import type { InvariantOutcome } from "./report";

const WINDOW_MS = 60_000;

/** The most requests that arrived within any WINDOW_MS (each request's window starting at its arrival). */
export function busiestWindow(arrivals: readonly number[]): number {
  const at = [...arrivals].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while (at[j]! < at[i]! - WINDOW_MS + 1) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

/** `realDelays: false` redelivers hand-backs at once (the guard-off run, which only has to show the window broken). */
export async function rateWindowScenario(invocations: number, rpm: number, { realDelays = true } = {}) {
  const judge = uniqueModel("s6-judge");
  await addFakeRules([
    { match: { model: judge, rpm_above: rpm }, reply: { fault: "429" } },
    { match: { model: judge }, reply: { json: { answer: "Paris" } } },
  ]);
  const questions = Array.from({ length: invocations }, (_, i) => ({
    id: `q${i}`,
    question: `question ${i}: capital of France?`,
    template: exactTemplate("Paris"),
  }));
  const { runId, bodies } = await startCapturedRun({
    benchmark: { name: "s6", questions },
    config: {
      answering_models: [{ id: "a", interface: "manual", manual_answers: Object.fromEntries(questions.map((q) => [q.id, "Paris"])) }],
      parsing_models: [fakeModel("j", judge)],
    },
  });
  const limited = { ...(env as unknown as Env), EDGEVAL_PROVIDER_LIMITS: JSON.stringify({ [new URL(env.FAKE_LLM_URL).origin]: { rpm } }) };
  const started = Date.now();
  const stats = await drainPipelined(deliveries(bodies), { batchSize: 1, parallel: invocations, realDelays, envFor: () => limited });
  const seconds = Math.round((Date.now() - started) / 1000);
  const keys = questions.map((q) => ({ question_id: q.id, answering_model: "a", parsing_model: "j", replicate: 1 }));
  const check = await checkRun({ runId, keys, calls: { models: [judge] } });
  const log = await requestLog(judge);
  const s = await fakeStats(judge);
  const busiest = busiestWindow(log.map((r) => r.at));
  const { results: failed } = await env.DB.prepare(
    "SELECT failure_category AS c, COUNT(*) AS n FROM results WHERE run_id = ? AND verdict = 'error' GROUP BY c",
  )
    .bind(runId)
    .all<{ c: string; n: number }>();
  const extra: Record<string, InvariantOutcome> = {
    window_within_limit: {
      pass: busiest <= rpm,
      detail: `at most ${busiest} requests in a 60 s window (limit ${rpm}); ${s.faults["429"] ?? 0} answered 429`,
    },
    log_complete: { pass: log.length === s.total, detail: `${log.length} of ${s.total} requests in the fake's log` },
  };
  return {
    check,
    extra,
    faults: s.faults["429"] ?? 0,
    size: `${invocations} invocations, ${rpm} rpm`,
    figures: {
      seconds,
      calls: s.total,
      http_429: s.faults["429"] ?? 0,
      busiest_window: busiest,
      hand_backs: stats.retried + stats.deferred,
      deferred: stats.deferred,
      ...Object.fromEntries(failed.map((r) => [`failed_${r.c}`, r.n])),
    },
  };
}
