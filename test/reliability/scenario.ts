/**
 * What scenarios share: their size (RELIABILITY_SIZE: "fast" in npm test, "full" in npm run
 * reliability), a benchmark of N jobs over fake models (every other answer long enough for R2), the
 * keys and no-fault call count that shape implies, and writing the report.
 */
import { env } from "cloudflare:workers";
import { addFakeRules, exactTemplate, fakeModel, LONG_ANSWER, uniqueModel } from "../integration/helpers";
import type { ResultKey, CheckOutcome } from "./invariants";
import { ReliabilityReport } from "./report";

export const SIZE_MODE = env.RELIABILITY_SIZE === "full" ? "full" : "fast";

/** The scenario's size: the minimum in "full" mode, a reduced one in the fast subset. */
export const sized = (full: number, fast: number): number => (SIZE_MODE === "full" ? full : fast);

export interface Shape {
  /** Jobs = questions × replicates (one answering model). */
  questions: number;
  replicates: number;
  /** Parsing models: results per job. */
  judges: number;
  /** Reply latency of the fake, so duplicates overlap the first copy. */
  latencyMs?: number;
}

export interface Workload {
  body: { benchmark: unknown; config: unknown };
  keys: ResultKey[];
  answerer: string;
  judges: string[];
  /** Provider calls of a no-fault run: one answer per job, one judge call per result (exact-match template). */
  baselineCalls: number;
  jobs: number;
}

/**
 * A benchmark of the shape over fresh fake models; odd questions get an answer long enough for R2.
 * `faults` are fake rules tried before the replies (the fake's first live match wins).
 */
export async function workload(
  name: string,
  shape: Shape,
  faults: (answerer: string, judges: string[]) => unknown[] = () => [],
): Promise<Workload> {
  const answerer = uniqueModel(`${name}-a`);
  const judges = Array.from({ length: shape.judges }, (_, i) => uniqueModel(`${name}-j${i}`));
  const latency = shape.latencyMs === undefined ? {} : { latency_ms: shape.latencyMs };
  await addFakeRules([
    ...faults(answerer, judges),
    { match: { model: answerer, contains: "LONG" }, reply: { text: LONG_ANSWER, ...latency } },
    { match: { model: answerer }, reply: { text: "Paris", ...latency } },
    ...judges.map((j) => ({ match: { model: j }, reply: { json: { answer: "Paris" }, ...latency } })),
  ]);
  const questions = Array.from({ length: shape.questions }, (_, i) => ({
    id: `q${i}`,
    question: `${i % 2 ? "LONG" : "short"} question ${i}: capital of France?`,
    template: exactTemplate("Paris"),
  }));
  const keys: ResultKey[] = [];
  for (const q of questions) {
    for (let r = 1; r <= shape.replicates; r++) {
      for (let j = 0; j < shape.judges; j++) keys.push({ question_id: q.id, answering_model: "a", parsing_model: `j${j}`, replicate: r });
    }
  }
  const jobs = shape.questions * shape.replicates;
  return {
    body: {
      benchmark: { name, questions },
      config: {
        answering_models: [fakeModel("a", answerer)],
        parsing_models: judges.map((j, i) => fakeModel(`j${i}`, j)),
        replicate_count: shape.replicates,
      },
    },
    keys,
    answerer,
    judges,
    baselineCalls: jobs * (1 + shape.judges),
    jobs,
  };
}

export type ScenarioReport = Omit<
  ReliabilityReport,
  "size_mode" | "lost" | "duplicated" | "repaid_calls" | "terminal_status" | "invariants" | "figures"
> & {
  check: CheckOutcome;
  figures?: ReliabilityReport["figures"];
  /** Invariants beyond the checker's, asserted by the scenario itself. */
  extra?: ReliabilityReport["invariants"];
};

/** What a scenario's run hands its test: the check, its own invariants, what was injected, its figures. */
export interface RunOutcome {
  check: CheckOutcome;
  extra?: ReliabilityReport["invariants"];
  faults: number;
  size: string;
  figures?: ReliabilityReport["figures"];
}

/** The report of one scenario run under `name` (see writeScenarioReport). */
export const reportRun = (name: string, scenario: string, run: RunOutcome) =>
  writeScenarioReport({
    name,
    scenario,
    size: run.size,
    faults_injected: run.faults,
    check: run.check,
    extra: run.extra,
    figures: run.figures,
  });

/** Builds the report from a check, writes it to .reliability/ (via the report sink) and returns it. */
export async function writeScenarioReport(r: ScenarioReport): Promise<ReliabilityReport> {
  const report: ReliabilityReport = {
    name: r.name,
    scenario: r.scenario,
    size_mode: SIZE_MODE,
    size: r.size,
    faults_injected: r.faults_injected,
    lost: r.check.lost,
    duplicated: r.check.duplicated,
    repaid_calls: r.check.repaid_calls,
    terminal_status: r.check.terminal_status,
    invariants: { ...r.check.invariants, ...r.extra },
    figures: { ...r.check.figures, ...r.figures },
  };
  await writeReport(report);
  return report;
}

/** Any test's figures: validated here and by the sink, which writes .reliability/<name>.json. */
export async function writeReport(report: ReliabilityReport): Promise<void> {
  const parsed = ReliabilityReport.parse(report);
  const res = await fetch(env.RELIABILITY_REPORT_URL, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(parsed),
  });
  if (!res.ok) throw new Error(`report sink refused ${report.name}: ${res.status} ${await res.text()}`);
}

/** The failing invariants of a report, for an expect() that prints them. */
export const failures = (r: Pick<ReliabilityReport, "invariants">) =>
  Object.fromEntries(Object.entries(r.invariants).filter(([, v]) => !v.pass));

/** Scenario 9: another test's figures (no run of its own to check: lost, duplicated, re-paid and status are "-"). */
export async function writeTestFigures(
  r: Pick<ReliabilityReport, "name" | "scenario" | "size" | "faults_injected" | "invariants"> & { figures?: ReliabilityReport["figures"] },
) {
  await writeReport({ lost: null, duplicated: null, repaid_calls: null, terminal_status: null, figures: {}, ...r, size_mode: SIZE_MODE });
}
