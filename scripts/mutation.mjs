#!/usr/bin/env node
// test:mutation — StrykerJS over the modules in stryker.config.mjs (MUTATION_MODULES), then one
// line per module: its mutation score, what went into it, and its floor. Exits 1 if a module is
// below its floor (or Stryker failed).
//
// Usage: npm run test:mutation [-- NAME…] [-- --force]
//   NAME…    only these modules (names or file paths from MUTATION_MODULES); default: all
//   --force  rerun every mutant instead of reusing stryker-incremental.json
// Score = (killed + timeout) / (killed + timeout + survived + no coverage). Mutants that did not
// compile or crashed the module (CompileError, RuntimeError) are invalid and not counted; mutants
// marked `// Stryker disable … : reason` in the source are equivalent ones, listed with their reason.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MUTATION_MODULES } from "../stryker.config.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const REPORT = path.join(root, "reports/mutation/mutation.json");

export function selectModules(args, modules = MUTATION_MODULES) {
  const names = args.filter((a) => !a.startsWith("-"));
  if (names.length === 0) return modules;
  return names.map((n) => {
    const m = modules.find((x) => x.name === n || x.file === n);
    if (!m) throw new Error(`unknown module "${n}"; known: ${modules.map((x) => x.name).join(", ")}`);
    return m;
  });
}

/** Per module: the counts of a Stryker JSON report and the score over the valid mutants. */
export function scoreModule(mutants) {
  const count = (...statuses) => mutants.filter((m) => statuses.includes(m.status)).length;
  const detected = count("Killed", "Timeout");
  const undetected = count("Survived", "NoCoverage");
  const valid = detected + undetected;
  return {
    score: valid === 0 ? null : (100 * detected) / valid,
    killed: count("Killed"),
    timeout: count("Timeout"),
    survived: count("Survived"),
    noCoverage: count("NoCoverage"),
    invalid: count("CompileError", "RuntimeError"),
    excluded: mutants.filter((m) => m.status === "Ignored"),
  };
}

const pct = (x) => (x === null ? "   n/a" : `${x.toFixed(2).padStart(6)}`);

export function table(rows) {
  const head = ["module", "score %", "floor", "killed", "timeout", "survived", "no cov", "invalid", "excluded", ""];
  const lines = rows.map(({ m, s }) => [
    m.name,
    pct(s.score),
    String(m.floor),
    String(s.killed),
    String(s.timeout),
    String(s.survived),
    String(s.noCoverage),
    String(s.invalid),
    String(s.excluded.length),
    s.score !== null && s.score >= m.floor ? "ok" : "BELOW FLOOR",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join("  ")
      .trimEnd();
  return [fmt(head), ...lines.map(fmt)].join("\n");
}

function main() {
  const args = process.argv.slice(2);
  const modules = selectModules(args);
  fs.rmSync(REPORT, { force: true });
  const stryker = spawnSync(
    "stryker",
    ["run", "--mutate", modules.map((m) => m.file).join(","), ...(args.includes("--force") ? ["--force"] : [])],
    { cwd: root, stdio: "inherit", shell: false },
  );
  if (stryker.status !== 0 || !fs.existsSync(REPORT)) {
    console.error(`test:mutation: stryker exited with ${stryker.status ?? stryker.signal}`);
    process.exit(1);
  }
  const report = JSON.parse(fs.readFileSync(REPORT, "utf8"));
  const rows = modules.map((m) => ({ m, s: scoreModule(report.files[m.file]?.mutants ?? []) }));
  console.log(`\nMutation score per module (StrykerJS ${report.framework?.version ?? ""}, report: reports/mutation/mutation.html)\n`);
  console.log(table(rows));
  const excluded = rows.flatMap(({ m, s }) => s.excluded.map((x) => ({ m, x })));
  if (excluded.length) {
    console.log("\nExcluded as equivalent (reason from the source's `Stryker disable` comment):");
    for (const { m, x } of excluded) {
      console.log(
        `  ${m.file}:${x.location.start.line}:${x.location.start.column} ${x.mutatorName} → ${JSON.stringify(x.replacement)}: ${x.statusReason ?? ""}`,
      );
    }
  }
  const below = rows.filter(({ m, s }) => s.score === null || s.score < m.floor);
  if (below.length) {
    console.error(`\ntest:mutation: below the floor: ${below.map(({ m }) => m.name).join(", ")}`);
    process.exit(1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
