/**
 * Scenario 3: a delivery crashes at every point of a job (src/lib/fault-points.ts) — after the
 * answer, after each judge call, before and after a result's R2 write, before and after its D1
 * write, before the coordinator hears — for 30 % of the jobs, each on its first pass of that point
 * only. The run must end as a no-fault run of the same workload does (same verdict per result key,
 * same calls), and a provider call may be paid again only where the crash fell between its
 * response and its checkpoint: after the answer (before the answer checkpoint), after a judge call
 * (before its result was saved), before a small result's D1 write (it has no R2 copy). Those are
 * counted, and must be exactly the re-paid calls measured.
 */
import { env } from "cloudflare:workers";
import { armFaultPointsForTest, type FaultPoint, type FaultSite } from "../../src/lib/fault-points";
import { startCapturedRun } from "../integration/limits-support";
import { deliveries, drain } from "./broker";
import { checkRun } from "./invariants";
import type { InvariantOutcome } from "./report";
import { workload, type Workload } from "./scenario";

/** Each crashed job's point; judge-side points name which judge (0 or 1). Round-robin over the crashed jobs. */
export const CRASH_POINTS: { point: FaultPoint; judge?: number; r2?: boolean }[] = [
  // Interleaved so that every prefix crashes between a response and its checkpoint at most half the time.
  { point: "after_answer" },
  { point: "after_r2", judge: 0, r2: true },
  { point: "after_judge", judge: 0 },
  { point: "after_d1", judge: 1 },
  { point: "after_judge", judge: 1 },
  { point: "before_record", judge: 0 },
  { point: "before_r2", judge: 1, r2: true },
  { point: "before_record", judge: 1 },
  { point: "before_d1", judge: 0, r2: false },
  { point: "before_d1", judge: 1, r2: true },
];

/** Calls a crash at this point costs again: the answer, or the judge's call whose result was not saved anywhere. */
const repays = (c: (typeof CRASH_POINTS)[number]) =>
  c.point === "after_answer" || c.point === "after_judge" || c.point === "before_r2" || (c.point === "before_d1" && c.r2 === false) ? 1 : 0;

const WORKLOAD_SHAPE = (jobs: number) => ({ questions: jobs / 2, replicates: 2, judges: 2, latencyMs: 5 });

/** Verdict per result key and the provider calls of a run of `w` delivered with no fault. */
async function runWorkload(w: Workload) {
  const { runId, bodies } = await startCapturedRun(w.body);
  const stats = await drain(deliveries(bodies), { parallel: 4 });
  return { runId, stats };
}

async function verdicts(runId: string): Promise<Map<string, string>> {
  const { results } = await env.DB.prepare("SELECT question_id, parsing_model, replicate, verdict FROM results WHERE run_id = ?")
    .bind(runId)
    .all<{ question_id: string; parsing_model: string; replicate: number; verdict: string }>();
  return new Map(results.map((r) => [`${r.question_id}/${r.parsing_model}/${r.replicate}`, r.verdict]));
}

export async function crashScenario(jobs: number, share = 0.3) {
  // The baseline: the same workload (its own fake models, same replies) with no fault.
  const base = await workload("s3-base", WORKLOAD_SHAPE(jobs));
  const baseRun = await runWorkload(base);
  const baseCheck = await checkRun({
    runId: baseRun.runId,
    keys: base.keys,
    calls: { models: [base.answerer, ...base.judges], baseline: base.baselineCalls },
  });
  const baselineCalls = baseCheck.figures.provider_calls!;

  const w = await workload("s3", WORKLOAD_SHAPE(jobs));
  // Which jobs crash where: every `1/share`-th job, round-robin over the points; an R2 point needs a
  // long answer (odd question), a D1-only point a short one (even question).
  const plan = new Map<string, (typeof CRASH_POINTS)[number]>();
  const labels = Array.from({ length: jobs / 2 }, (_, q) => [1, 2].map((r) => ({ q, label: `q${q}/a/${r}` }))).flat();
  const wanted = Math.round(jobs * share);
  let next = 0;
  for (const { q, label } of labels) {
    if (plan.size >= wanted) break;
    const c = CRASH_POINTS[next % CRASH_POINTS.length]!;
    if (c.r2 !== undefined && c.r2 !== (q % 2 === 1)) continue;
    plan.set(label, c);
    next++;
  }
  const fired = new Map<string, number>();
  armFaultPointsForTest((point: FaultPoint, site: FaultSite) => {
    const c = plan.get(site.job);
    if (!c || c.point !== point || fired.has(site.job)) return;
    if (c.judge !== undefined && site.parsing !== `j${c.judge}`) return;
    fired.set(site.job, 1);
    throw new Error(`reliability: crash at ${point}`);
  });
  let run: Awaited<ReturnType<typeof runWorkload>>;
  try {
    run = await runWorkload(w);
  } finally {
    armFaultPointsForTest(null);
  }
  const expectedRepaid = [...plan].filter(([job]) => fired.has(job)).reduce((s, [, c]) => s + repays(c), 0);
  const check = await checkRun({
    runId: run.runId,
    keys: w.keys,
    // The no-fault baseline as measured, not as computed; the re-paid calls the crashes explain are allowed.
    calls: { models: [w.answerer, ...w.judges], baseline: baselineCalls, allowed: expectedRepaid },
  });
  const [a, b] = [await verdicts(baseRun.runId), await verdicts(run.runId)];
  const differing = [...a].filter(([k, v]) => b.get(k) !== v).map(([k]) => k);
  const repaid = check.repaid_calls ?? 0;
  const extra: Record<string, InvariantOutcome> = {
    same_as_baseline: {
      pass: differing.length === 0 && a.size === b.size && baseCheck.terminal_status === check.terminal_status,
      detail: `${b.size} verdicts vs baseline ${a.size}; ${differing.length} differ; status ${check.terminal_status} vs ${baseCheck.terminal_status}`,
    },
    every_crash_fired: { pass: fired.size === plan.size, detail: `${fired.size} of ${plan.size} planned crashes happened` },
    repaid_explained: {
      pass: repaid === expectedRepaid,
      detail: `${repaid} re-paid, ${expectedRepaid} explained by crashes before a checkpoint`,
    },
    repaid_within_5pct: {
      pass: repaid <= 0.05 * baselineCalls,
      detail: `${repaid} of ${baselineCalls} baseline calls = ${((100 * repaid) / baselineCalls).toFixed(1)} %`,
    },
    baseline_as_computed: { pass: baselineCalls === w.baselineCalls, detail: `measured ${baselineCalls}, computed ${w.baselineCalls}` },
  };
  return {
    check,
    extra,
    faults: fired.size,
    size: `${jobs} jobs / ${w.keys.length} results, ${plan.size} crashed`,
    figures: {
      repaid_share_pct: Number(((100 * repaid) / baselineCalls).toFixed(2)),
      retries: run.stats.retried,
      baseline_calls: baselineCalls,
    },
  };
}
