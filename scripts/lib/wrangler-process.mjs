// The child processes of a local stack: wrangler (wrangler.js, for `wrangler dev` and its D1
// migrations) and the local runtime (local-runtime.mjs) alike run as a Node script under Node ≥22,
// without the provider keys of our environment, with their output masked and the last lines kept
// for error messages. startLocalStack (local-stack.mjs) and applyMigrations (d1-migrations.mjs)
// start them.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./repo-root.mjs";

export const WRANGLER_JS = path.join(REPO_ROOT, "node_modules/wrangler/bin/wrangler.js");
const LOCAL_NODE = path.join(REPO_ROOT, "node_modules/.bin/node");
const PROVIDER_ENV = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CLOUDFLARE_INCLUDE_PROCESS_ENV"];

/** The Node that runs wrangler: ours if it is ≥22 (npm run puts node_modules/.bin first), else the bundled one. */
export function nodeBinary() {
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  if (fs.existsSync(LOCAL_NODE)) return LOCAL_NODE;
  throw new Error(
    `wrangler needs Node >= 22 but this is ${process.version} and ${path.relative(process.cwd(), LOCAL_NODE)} is missing; run "npm ci" and use "npm run …"`,
  );
}

function childEnv() {
  const env = { ...process.env };
  for (const k of PROVIDER_ENV) delete env[k]; // secrets reach the worker only through the env file
  env.PATH = `${path.dirname(nodeBinary())}${path.delimiter}${path.join(REPO_ROOT, "node_modules/.bin")}${path.delimiter}${env.PATH ?? ""}`;
  env.WRANGLER_SEND_METRICS = "false";
  env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
  env.FORCE_COLOR = "0";
  env.NO_COLOR = "1";
  return env;
}

/** Keeps the last lines a process printed, secrets masked. */
function lineSink({ mask, onLine, keep = 2000 }) {
  const lines = [];
  let partial = "";
  const push = (chunk) => {
    const text = partial + chunk.toString("utf8");
    const parts = text.split(/\r?\n/);
    partial = parts.pop() ?? "";
    for (let line of parts) {
      line = mask(line);
      lines.push(line);
      if (lines.length > keep) lines.shift();
      onLine?.(line);
    }
  };
  /** The last n lines, leaving out our own status polling. */
  const tail = (n = 40) =>
    [...lines, ...(partial ? [mask(partial)] : [])]
      .filter((l) => !/\] GET \/v1\/runs\/[^/ ]+ 200/.test(l))
      .slice(-n)
      .join("\n");
  return { push, tail };
}

/** Replaces every secret value (of 4 characters or more; shorter ones are left alone) in a line with ***. */
export function makeMask(secretValues) {
  const values = secretValues.filter((v) => typeof v === "string" && v.length >= 4);
  return (line) => values.reduce((l, v) => l.split(v).join("***"), line);
}

/** EDGEVAL_WRANGLER_LOG=<file> appends every (masked) wrangler line to that file, for debugging. */
function logFileWriter() {
  const file = process.env.EDGEVAL_WRANGLER_LOG;
  if (!file) return undefined;
  return (line) => fs.appendFileSync(file, `${line}\n`);
}

/** Runs `wrangler <args>` (see runNodeScript). */
export function runWrangler(args, opts) {
  return runNodeScript(WRANGLER_JS, args, opts);
}

/**
 * Runs `node <script> <args>` in the repo root. `exited` resolves with {code, signal} (and `error` if it
 * could not start); `tail(n)` gives its last output lines. `detached`: in a process group of its own,
 * so that stopping the stack can kill everything it started (workerd among it).
 */
export function runNodeScript(script, args, { mask, onLine, detached = false, env = {} }) {
  const toFile = logFileWriter();
  const sink = lineSink({
    mask,
    onLine: (line) => {
      toFile?.(line);
      onLine?.(line);
    },
  });
  const child = spawn(nodeBinary(), [script, ...args], {
    cwd: REPO_ROOT,
    env: { ...childEnv(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached,
  });
  child.stdout.on("data", sink.push);
  child.stderr.on("data", sink.push);
  const exited = new Promise((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", (err) => resolve({ code: null, signal: null, error: err }));
  });
  return { child, exited, tail: sink.tail };
}
