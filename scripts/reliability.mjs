#!/usr/bin/env node
// npm run reliability — the reliability suite (test/reliability/README.md) at the sizes, then
// one table of every report the run wrote to .reliability/ (one row per report). Exits 1 when vitest
// failed, a report is malformed, an expected report is missing, or any invariant failed.
//
// Usage: npm run reliability [-- --fast]
//   --fast   the reduced sizes npm test runs (RELIABILITY_SIZE=fast) instead of the full ones
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { EXPECTED_REPORTS, FULL_ONLY_REPORTS, RELIABILITY_TESTS, reportsTable } from "../test/reliability/table.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dir = path.join(root, ".reliability");

const size = process.argv.includes("--fast") ? "fast" : "full";
fs.rmSync(dir, { recursive: true, force: true });
const started = Date.now();
const vitest = spawnSync("npx", ["vitest", "run", "--project", "workers", ...RELIABILITY_TESTS], {
  cwd: root,
  stdio: ["ignore", "inherit", "inherit"],
  env: { ...process.env, RELIABILITY_SIZE: size },
});
const seconds = Math.round((Date.now() - started) / 1000);

const files = fs.existsSync(dir)
  ? fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort()
  : [];
const raw = files.map((f) => ({ file: f, json: JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) }));
const { table, failed } = reportsTable(raw, size === "full" ? [...EXPECTED_REPORTS, ...FULL_ONLY_REPORTS] : EXPECTED_REPORTS);
const summary = `${table}\n\nsize ${size}; ${files.length} reports; vitest exit ${vitest.status}; ${seconds} s`;
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, "TABLE.txt"), `${summary}\n`);
console.log(`\n${summary}`);
if (vitest.status !== 0 || failed.length > 0) {
  if (failed.length) console.log(`FAILED: ${failed.join(", ")}`);
  process.exit(1);
}
