/**
 * The table `npm run reliability` prints (scripts/reliability.mjs): one row per report in
 * .reliability/, and which test files the suite runs. Plain TypeScript over report.ts, loaded by
 * Node through type stripping and unit-tested in test/unit/reliability/table.test.ts.
 */
import fs from "node:fs";
import { INVARIANTS, ReliabilityReport, reportPasses } from "./report.ts";

/** Tests outside this folder that write their figures (scenario 9). */
const FIGURE_TESTS = [
  "test/integration/dead-letter.test.ts",
  "test/integration/stall-watch.test.ts",
  "test/integration/outbound-ssrf.test.ts",
  "test/integration/tenant-isolation.test.ts",
  "test/integration/fuzz-write-routes.test.ts",
  "test/integration/webhooks.test.ts",
];

/** The suite's own scenarios and the other tests that write their figures. */
export const RELIABILITY_TESTS = ["test/reliability/", ...FIGURE_TESTS];

/** The scenario files of this folder, by path from the repository's root. */
export const SCENARIO_FILES: readonly string[] = fs
  .readdirSync(new URL(".", import.meta.url))
  .filter((f) => f.endsWith(".test.ts"))
  .sort()
  .map((f) => `test/reliability/${f}`);

/**
 * The runner's lanes: vitest processes started side by side, each with its own workerd, fake LLM
 * and report sink (test/global-setup.ts). One after the other the files took their sum (~470 s
 * besides the soak's). The soak is latency-bound (workerd at 20-40 % of a core) and has a lane of
 * its own, which also keeps its memory samples to its own workerd (the sink counts the workerd
 * processes of its vitest). Scenarios 5 and 6 mostly wait (retry-afters, timeouts, minutes at 60
 * requests a minute: ~330 s) and share a lane, so the rest's CPU-bound files run beside them.
 */
const SOAK = "test/reliability/s8-soak.test.ts";
const WAITS = ["test/reliability/s5-provider-faults.test.ts", "test/reliability/s6-rate-window.test.ts"];
/*
 * Each lane names its files. The rest lane once took the folder with `--exclude` for the others,
 * but vitest does not apply a command line's --exclude to a project with an exclude of its own
 * (the workers project, vitest.config.ts): scenarios 5 and 6 ran twice, in their lane and in the
 * rest's at the same time, and 429-hand-back failed in one copy or the other in 2 of 3 full runs
 * (6-7 Dec: 1 of 62 calls inside a retry-after window; it passes alone). With one copy it failed
 * once more (2 of 62), when a begun job's judge call began taking handed-on slots: other
 * invocations' pools kept handing slots on after a 429 until they next heard from the limiter.
 * The pools of an isolate now count 429s together (src/limiter/lease-pool.ts). It failed once
 * more after that (7 Dec, 2 of 62): grants the limiter made before it heard of the 429 reached
 * calls that went out past the 150 ms grace; the pools no longer use those, nor ask the limiter
 * until it has heard.
 */
export const RELIABILITY_LANES: readonly { name: string; files: readonly string[]; inspect?: boolean }[] = [
  // The soak's workerd runs with its inspector, so its memory samples come after a full collection (s8-soak.ts).
  { name: "soak", files: [SOAK], inspect: true },
  { name: "waits", files: WAITS },
  {
    name: "rest",
    files: [...SCENARIO_FILES.filter((f) => f !== SOAK && !WAITS.includes(f)), ...FIGURE_TESTS],
  },
];

/** A lane's vitest arguments; `inspectorPort` for a lane that `inspect`s (workerd's inspector on it). */
export const laneArgs = (lane: (typeof RELIABILITY_LANES)[number], inspectorPort?: number): string[] => [
  "vitest",
  "run",
  "--project",
  "workers",
  // The soak and the guards run in a project of their own (vitest.config.ts MEMORY_SUITES).
  "--project",
  "workers-alone",
  // The lanes are the runner's parallelism; within one, files run one at a time, as they were measured.
  "--maxWorkers",
  "1",
  ...(lane.inspect && inspectorPort ? [`--inspect=127.0.0.1:${inspectorPort}`] : []),
  ...lane.files,
];

/** Reports a full run must have written: a scenario that silently wrote nothing is a failure. */
export const EXPECTED_REPORTS = [
  "s1-duplicate-sequential",
  "s1-duplicate-concurrent",
  "s1-duplicate-mid-job",
  "s1-batch-throws-local",
  "s1-batch-throws-production",
  "s2-double-send-broker",
  "s2-double-send-local-queue",
  "s3-crash-points",
  "s4-coordinator-restart",
  "s7-idempotency-key",
  "s8-soak",
  "s9-dead-letter",
  "s9-stall-alarm-twice",
  "s9-ssrf-corpus",
  "s9-cross-tenant",
  "s9-fuzzed-bodies",
  "s9-webhook-down-up",
  "s9-bad-signatures",
  "s9-canary-sweep",
  "s9-injection-corpus",
  "guard-claim-lease",
  "guard-claim-skips-finished-saved-results",
  "guard-idempotency-key",
  "guard-saved-results",
  "guard-answer-checkpoint",
  "guard-dead-letter-marks-dead",
  "guard-memory-leak",
];

/** Reports only the full sizes write (their tests skip the fast subset: minutes of rate-limit waits). */
export const FULL_ONLY_REPORTS = ["s6-rate-window", "guard-request-window"];

const COLUMNS = ["scenario", "size", "faults", "lost", "dup", "re-paid", "status", ...INVARIANTS, "other", "result"];
const SHORT: Record<string, string> = {
  d1_one_row: "d1 1 row",
  r2_objects: "r2 objs",
  totals_match: "totals",
  usage_once: "usage 1x",
  terminal: "terminal",
  repaid: "re-paid ok",
};

export function reportsTable(
  files: { file: string; json: unknown }[],
  expected: readonly string[] = [],
): { table: string; failed: string[] } {
  const rows: string[][] = [];
  const failed: string[] = [];
  const names = new Set<string>();
  // Scenarios in the order, the guard rows last.
  const ordered = [...files].sort(
    (x, y) => Number(x.file.startsWith("guard-")) - Number(y.file.startsWith("guard-")) || x.file.localeCompare(y.file),
  );
  for (const { file, json } of ordered) {
    const parsed = ReliabilityReport.safeParse(json);
    if (!parsed.success) {
      failed.push(file);
      rows.push([file, "malformed report", ...COLUMNS.slice(2, -1).map(() => ""), "FAIL"]);
      continue;
    }
    const r = parsed.data;
    names.add(r.name);
    const pass = reportPasses(r);
    if (!pass) failed.push(r.name);
    const mark = (k: string) => (r.invariants[k] === undefined ? "-" : r.invariants[k].pass ? "pass" : "FAIL");
    const others = Object.entries(r.invariants).filter(([k]) => !(INVARIANTS as readonly string[]).includes(k));
    rows.push([
      r.scenario,
      r.size,
      String(r.faults_injected),
      num(r.lost),
      num(r.duplicated),
      num(r.repaid_calls),
      r.terminal_status ?? "-",
      ...INVARIANTS.map(mark),
      others.map(([k, v]) => `${k}:${v.pass ? "pass" : "FAIL"}`).join(" ") || "-",
      pass ? "pass" : "FAIL",
    ]);
  }
  for (const name of expected) {
    if (names.has(name)) continue;
    failed.push(name);
    rows.push([name, "no report written", ...COLUMNS.slice(2, -1).map(() => ""), "FAIL"]);
  }
  const header = COLUMNS.map((c) => SHORT[c] ?? c);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join(" | ")
      .trimEnd();
  const table = [line(header), widths.map((w) => "-".repeat(w)).join("-|-"), ...rows.map(line)].join("\n");
  return { table, failed };
}

const num = (n: number | null) => (n === null ? "-" : String(n));
