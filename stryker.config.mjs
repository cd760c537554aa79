// @ts-check
// StrykerJS for `npm run test:mutation` (scripts/mutation.mjs runs it and prints a score per module).
// The modules and their floors are MUTATION_MODULES below; the script mutates all of them, or the
// ones named on its command line.

/**
 * One entry per mutated module: `floor` is the mutation score (%) `npm run test:mutation` insists on.
 * @type {{ name: string; file: string; floor: number }[]}
 */
export const MUTATION_MODULES = [
  { name: "failure", file: "src/pipeline/failure.ts", floor: 90 },
  { name: "metric", file: "src/rubric/metric.ts", floor: 90 },
  { name: "composition", file: "src/templates/composition.ts", floor: 90 },
  { name: "verify", file: "src/templates/verify.ts", floor: 90 },
  { name: "regex-checks", file: "src/templates/regex-checks.ts", floor: 90 },
  { name: "normalizers", file: "src/templates/normalizers.ts", floor: 90 },
  { name: "aggregate", file: "src/rubric/aggregate.ts", floor: 90 },
  { name: "units", file: "src/judges/units.ts", floor: 90 },
  { name: "pools", file: "src/judges/pools.ts", floor: 90 },
  { name: "limiter-state", file: "src/limiter/limiter-state.ts", floor: 90 },
  { name: "coordinator/progress", file: "src/coordinator/progress.ts", floor: 90 },
  { name: "coordinator/cost", file: "src/coordinator/cost.ts", floor: 90 },
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: MUTATION_MODULES.map((m) => m.file),
  testRunner: "vitest",
  // Only the platform-free unit tests (the core project's); `related` picks the ones that import
  // the mutated file. Static mutants (module-level code, e.g. metric.ts's JSON schema) are
  // activated with this plain config and killed like the others, so no command-runner pass is needed.
  vitest: { configFile: "vitest.mutation.config.ts", related: true },
  // TypeScript 7 (the native compiler) has no JS API for Stryker's tsconfig rewrite; pointing at a
  // file that does not exist skips that step. Type errors are `npm run typecheck`'s job.
  tsconfigFile: "stryker-has-no-tsconfig.json",
  checkers: [],
  // Two cores shared with everything else: one test runner at a time.
  concurrency: 1,
  coverageAnalysis: "perTest",
  reporters: ["progress-append-only", "clear-text", "json", "html"],
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  tempDirName: ".stryker-tmp",
  cleanTempDir: true,
  // Reuses each mutant's result while neither its code nor the tests covering it changed.
  // Caveat: a surviving *static* mutant is reused even after new tests are added — rerun with --force.
  incremental: true,
  incrementalFile: "stryker-incremental.json",
};
