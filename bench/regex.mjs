#!/usr/bin/env node
// node bench/regex.mjs — CPU per regex check with edgeval's budgeted engine (src/templates/regex/).
//
// 1. The ReDoS corpus (test/unit/templates/redos-corpus.ts, ~100 KB hostile answers): for each
//    pattern, the engine (linear Pike VM or step-budgeted backtracker), the outcome of one
//    findall check (decided, or stopped at the budget), the steps spent and the CPU it took.
// 2. Everyday checks on a 150-character answer: µs per findall (median, p95), next to the
//    host RegExp (which has no budget) for scale.
// Prints tables; asserts nothing.
import { importTs, timePerCall } from "./lib/ts-bundle.mjs";

const m = await importTs([
  'export { compilePattern, Subject, newBudget, RegexBudgetExceeded, CHECK_STEP_BUDGET } from "./src/templates/regex";',
  'export { REDOS_CORPUS } from "./test/unit/templates/redos-corpus";',
]);

const cpuMs = (f) => {
  const t0 = process.cpuUsage();
  const out = f();
  const d = process.cpuUsage(t0);
  return [out, (d.user + d.system) / 1000];
};

console.log(`ReDoS corpus: one findall per pattern, budget ${m.CHECK_STEP_BUDGET.toLocaleString("en-US")} steps`);
console.log(
  ["pattern".padEnd(44), "engine".padEnd(12), "answer".padStart(8), "outcome".padEnd(14), "steps".padStart(12), "CPU ms".padStart(8)].join(
    " ",
  ),
);
for (const c of m.REDOS_CORPUS) {
  const compiled = m.compilePattern(c.pattern);
  if (!compiled.ok) {
    console.log([c.pattern.slice(0, 44).padEnd(44), "refused".padEnd(12), String(c.answer.length).padStart(8), compiled.error].join(" "));
    continue;
  }
  const budget = m.newBudget();
  const [outcome, ms] = cpuMs(() => {
    try {
      return `${compiled.regex.findall(new m.Subject(c.answer), budget).length} matches`;
    } catch (e) {
      if (e instanceof m.RegexBudgetExceeded) return "budget";
      throw e;
    }
  });
  const steps = Math.min(budget.limit, budget.limit - budget.left);
  console.log(
    [
      c.pattern.slice(0, 44).padEnd(44),
      compiled.regex.engine.padEnd(12),
      String(c.answer.length).padStart(8),
      outcome.padEnd(14),
      steps.toLocaleString("en-US").padStart(12),
      ms.toFixed(1).padStart(8),
    ].join(" "),
  );
}

const TRACE =
  "Venetoclax (approved April 11, 2016) inhibits BCL2 in CLL; trials NCT01328626 and NCT02203773. It is an mRNA-free small molecule.";
const EVERYDAY = [
  "NCT\\d{8}",
  "(?i)\\bbcl-?2\\b",
  "(\\w+) \\(approved (\\w+ \\d+, \\d{4})\\)",
  "(?P<w>\\w+) (?P=w)",
  "(?<=trials )NCT\\d+",
];
console.log(`\nEveryday checks on a ${TRACE.length}-character answer: µs per findall (median / p95)`);
for (const p of EVERYDAY) {
  const compiled = m.compilePattern(p);
  const s = new m.Subject(TRACE);
  const ours = timePerCall(() => compiled.regex.findall(s), { batch: 200, batches: 100 });
  const host = new RegExp(
    p
      .replace(/\(\?P</g, "(?<")
      .replace(/\(\?P=(\w+)\)/g, "\\k<$1>")
      .replace("(?i)", ""),
    p.includes("(?i)") ? "gui" : "gu",
  );
  const theirs = timePerCall(() => [...TRACE.matchAll(host)], { batch: 200, batches: 100 });
  console.log(
    `${p.padEnd(44)} ${compiled.regex.engine.padEnd(12)} edgeval ${ours.median.toFixed(1)} / ${ours.p95.toFixed(1)}   host RegExp ${theirs.median.toFixed(2)}`,
  );
}
