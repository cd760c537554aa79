#!/usr/bin/env node
// bench/cpu-compare — this tree's bench/throughput against another commit's, run alternately on the
// same machine, as issue 19 measures CPU per result ("≤ 0.5 × the previous main's figure, the two
// measured alternately"). One bench run of the same code varies by ±10 % and the machine drifts
// by more within an hour (bench/RESULTS.md), so only figures taken in turn compare.
//
//   node bench/cpu-compare.mjs --against REV [--rounds R=6] [--target X] [-- bench/throughput args]
//
// Checks REV out into a temporary worktree (sharing this tree's node_modules), then runs, R times,
// `node bench/throughput.mjs` there and here in turn, each tree's own bench with its own defaults:
// what `npm start` runs in each. Arguments after `--` go to both benches (e.g. --jobs 4000).
// Prints each round, then per tree the mean, median and spread of CPU per result and ratio, and
// this tree's mean ÷ REV's with a 95 % interval (bootstrap over the rounds as pairs). `--target X` adds
// whether the mean ratio is ≤ X. The worktree is removed at the end.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "../scripts/lib/repo-root.mjs";
import { runMain } from "./lib/run-main.mjs";
import { bootstrapRatio, parseThroughput, summary } from "./lib/compare-stats.mjs";
import { throughputOnce } from "./lib/throughput-run.mjs";

function parseArgs(argv) {
  const o = { rounds: 6, benchArgs: [] };
  const dash = argv.indexOf("--");
  if (dash >= 0) {
    o.benchArgs = argv.slice(dash + 1);
    argv = argv.slice(0, dash);
  }
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = inline ?? argv[++i];
    if (flag === "--against") o.against = value;
    else if (flag === "--rounds" || flag === "--target") {
      const n = Number(value);
      if (!(n > 0)) throw new Error(`${flag} needs a number > 0`);
      o[flag.slice(2)] = n;
    } else throw new Error(`unknown option ${argv[i]} (use --against REV, --rounds R, --target X, -- bench args)`);
  }
  if (!o.against) throw new Error("--against REV is required (the commit to compare with, e.g. dbbeed1)");
  return o;
}

const git = (...args) => execFileSync("git", args, { cwd: REPO_ROOT, encoding: "utf8" }).trim();

/** REV checked out beside this tree, using this tree's node_modules; removed by the returned function. */
function worktreeOf(rev) {
  const sha = git("rev-parse", "--verify", `${rev}^{commit}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "edgeval-cpu-compare-"));
  git("worktree", "add", "--detach", "--quiet", dir, sha);
  fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"));
  const remove = () => {
    try {
      git("worktree", "remove", "--force", dir);
    } catch {
      fs.rmSync(dir, { recursive: true, force: true });
      git("worktree", "prune");
    }
  };
  return { dir, sha, remove };
}

const load = () => os.loadavg()[0].toFixed(2);
const f2 = (x) => x.toFixed(2);

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const head = git("rev-parse", "--short", "HEAD");
  const dirty = git("status", "--porcelain", "--untracked-files=no") !== "";
  const other = worktreeOf(o.against);
  const trees = [
    { name: `${o.against} (${other.sha.slice(0, 7)})`, dir: other.dir, runs: [] },
    { name: `this tree (${head}${dirty ? ", with uncommitted changes" : ""})`, dir: REPO_ROOT, runs: [] },
  ];
  const width = Math.max(...trees.map((t) => t.name.length));
  let stopped = false;
  const stop = () => {
    if (!stopped) other.remove();
    stopped = true;
  };
  process.once("SIGINT", () => (stop(), process.exit(130)));
  try {
    console.log(`bench/cpu-compare — bench/throughput ${o.benchArgs.join(" ") || "(no flags)"}, ${o.rounds} rounds, the two trees in turn`);
    for (let round = 1; round <= o.rounds; round++) {
      for (const t of trees) {
        const before = load();
        const { code, out } = await throughputOnce(t.dir, o.benchArgs);
        const fig = parseThroughput(out);
        if (code !== 0 || !fig) {
          console.error(`FAILED: ${t.name}'s bench/throughput exited ${code}${fig ? "" : " without its figures"}:\n${out.slice(-3000)}`);
          return 1;
        }
        t.runs.push(fig);
        console.log(
          `  round ${round}  ${t.name.padEnd(width)}  CPU per result ${f2(fig.cpuPerResultMs)} ms  ratio ${f2(fig.ratio)}  load ${before} → ${load()}`,
        );
      }
    }
    console.log();
    for (const t of trees) {
      const cpu = summary(t.runs.map((r) => r.cpuPerResultMs));
      const ratio = summary(t.runs.map((r) => r.ratio));
      console.log(
        `  ${t.name.padEnd(width)}  CPU per result mean ${f2(cpu.mean)} ms, median ${f2(cpu.median)}, range ${f2(cpu.min)}–${f2(cpu.max)}; ratio mean ${f2(ratio.mean)} (${f2(ratio.min)}–${f2(ratio.max)})`,
      );
    }
    const [theirs, ours] = trees.map((t) => t.runs.map((r) => r.cpuPerResultMs));
    const r = bootstrapRatio(ours, theirs);
    const verdict = o.target === undefined ? "" : `: ${r.ratio <= o.target ? "met" : "not met"} (target ≤ ${o.target})`;
    console.log(`\n  CPU per result, this tree ÷ ${o.against}: ${f2(r.ratio)} (95 % interval ${f2(r.low)}–${f2(r.high)})${verdict}`);
    return 0;
  } finally {
    stop();
  }
}

runMain(main);
