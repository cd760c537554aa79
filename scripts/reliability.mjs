#!/usr/bin/env node
// npm run reliability — the reliability suite (test/reliability/README.md) at the sizes, then
// one table of every report the run wrote to .reliability/ (one row per report). Exits 1 when vitest
// failed, a report is malformed, an expected report is missing, or any invariant failed.
//
// The suite runs as lanes side by side (RELIABILITY_LANES in table.ts: the soak, the waiting scenarios, the rest), each
// its own vitest process; their output is printed line by line, prefixed with the lane's name.
//
// Usage: npm run reliability [-- --fast]
//   --fast   the reduced sizes npm test runs (RELIABILITY_SIZE=fast) instead of the full ones
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { freePort } from "./lib/local-stack.mjs";
import { EXPECTED_REPORTS, FULL_ONLY_REPORTS, laneArgs, RELIABILITY_LANES, reportsTable } from "../test/reliability/table.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dir = path.join(root, ".reliability");

const size = process.argv.includes("--fast") ? "fast" : "full";
fs.rmSync(dir, { recursive: true, force: true });
const started = Date.now();

/** Runs one lane's vitest; resolves with its exit status and its wall seconds. */
async function runLane(lane) {
  const inspectorPort = lane.inspect ? await freePort() : undefined;
  return new Promise((resolve) => {
    const child = spawn("npx", laneArgs(lane, inspectorPort), {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      // The lane's report sink (test/global-setup.ts) asks workerd's inspector for full collections.
      env: {
        ...process.env,
        RELIABILITY_SIZE: size,
        ...(inspectorPort ? { RELIABILITY_INSPECTOR_PORT: String(inspectorPort) } : {}),
        // Each lane pre-bundles into a cache of its own (vitest.config.ts says why).
        EDGEVAL_VITE_CACHE_DIR: path.join(root, "node_modules", `.vite-reliability-${lane.name}`),
      },
    });
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      readline.createInterface({ input: from }).on("line", (line) => to.write(`[${lane.name}] ${line}\n`));
    }
    child.on("close", (code, signal) =>
      resolve({ name: lane.name, status: code ?? `signal ${signal}`, seconds: Math.round((Date.now() - started) / 1000) }),
    );
  });
}

const lanes = await Promise.all(RELIABILITY_LANES.map(runLane));
const seconds = Math.round((Date.now() - started) / 1000);

const files = fs.existsSync(dir)
  ? fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort()
  : [];
const raw = files.map((f) => ({ file: f, json: JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) }));
const { table, failed } = reportsTable(raw, size === "full" ? [...EXPECTED_REPORTS, ...FULL_ONLY_REPORTS] : EXPECTED_REPORTS);
const vitestExits = lanes.map((l) => `${l.name} exit ${l.status} after ${l.seconds} s`).join(", ");
const summary = `${table}\n\nsize ${size}; ${files.length} reports; vitest ${vitestExits}; ${seconds} s`;
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, "TABLE.txt"), `${summary}\n`);
console.log(`\n${summary}`);
if (lanes.some((l) => l.status !== 0) || failed.length > 0) {
  if (failed.length) console.log(`FAILED: ${failed.join(", ")}`);
  process.exit(1);
}
