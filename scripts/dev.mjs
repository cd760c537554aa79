#!/usr/bin/env node
// npm run dev — the API on http://127.0.0.1:8787 with local state kept in .wrangler/state, plus the
// fake LLM on http://127.0.0.1:9797 (unless --no-fake). Ctrl-C stops both.
//
//   npm run dev -- [--port 8787] [--fake-port 9797] [--no-fake] [--fake-script F] [--state-dir DIR]
//                  [--local-observability] [--help]
//
// One dev server per state directory (scripts/lib/state-lock.mjs): a second one on the same
// directory is refused and told to stop the first or pass --state-dir.
//
// With the fake, it writes examples/basic as a ready run body whose models point at the fake's
// real port (.wrangler/dev/port-<port>/example-run.json, and its config as config.json beside it)
// and prints curl lines that post it and an `npx edgeval run` line, so the printed lines work on
// any ports without editing a file. The fake answers with
// examples/basic/fake-script.json unless --fake-script names another script.
//
// Provider keys in the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY) are handed to the worker
// as secrets, and every entry of a git-ignored .dev.vars.local as well (scripts/lib/env-files.mjs).
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT, startLocalStack } from "./lib/local-stack.mjs";
import { claimStateDir } from "./lib/state-lock.mjs";
import { devSources, nextChange, superviseDev } from "./lib/dev-supervisor.mjs";

const USAGE = `npm run dev -- [options]
  --port N          the API's port (default 8787)
  --fake-port N     the fake LLM's port (default 9797)
  --no-fake         do not start the fake LLM
  --fake-script F   the fake's rules (default examples/basic/fake-script.json)
  --state-dir DIR   where D1, R2, the queues and the Durable Objects keep their state (default
                    .wrangler/state); one dev server per directory
  --local-observability  keep wrangler dev's local trace collector on (off by default: it shares
                    the worker's thread; README, "Local and deployed queue settings")
  --help            this text`;

function parseArgs(argv) {
  const opts = {
    port: 8787,
    fake: true,
    fakePort: 9797,
    fakeScript: path.join(REPO_ROOT, "examples/basic/fake-script.json"),
    stateDir: path.join(REPO_ROOT, ".wrangler/state"),
    localObservability: false,
    help: false,
  };
  const port = (flag, v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${flag} needs a port number 1-65535 (got ${JSON.stringify(v)})`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = () => inline ?? argv[++i];
    if (flag === "--port") opts.port = port(flag, value());
    else if (flag === "--no-fake") opts.fake = false;
    else if (flag === "--fake-port") opts.fakePort = port(flag, value());
    else if (flag === "--fake-script") opts.fakeScript = path.resolve(value());
    else if (flag === "--state-dir") {
      const dir = value();
      if (!dir) throw new Error(`--state-dir needs a directory\n${USAGE}`);
      opts.stateDir = path.resolve(dir);
    } else if (flag === "--local-observability") opts.localObservability = true;
    else if (flag === "--help" || flag === "-h") opts.help = true;
    else throw new Error(`unknown option ${argv[i]}\n${USAGE}`);
  }
  return opts;
}

/** examples/basic as a POST /v1/runs body, every model's base_url set to the fake at `fakeUrl`. */
function exampleRunBody(fakeUrl) {
  const read = (f) => JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "examples/basic", f), "utf8"));
  return { benchmark: read("benchmark.json"), config: exampleConfig(fakeUrl), run_name: "examples/basic via npm run dev" };
}

/** examples/basic/config.json with every model's base_url set to the fake at `fakeUrl` (for `edgeval run --config`). */
function exampleConfig(fakeUrl) {
  const config = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "examples/basic/config.json"), "utf8"));
  const point = (m) => (m.base_url ? { ...m, base_url: `${fakeUrl}/v1` } : m);
  return { ...config, answering_models: config.answering_models.map(point), parsing_models: config.parsing_models.map(point) };
}

/** wrangler dev warns about the [ai] binding at every start; say what it means here instead. */
const AI_WARNING = /AI bindings always access remote resources/;
const AI_NOTE =
  "[dev] (wrangler's warning about AI bindings and usage charges: locally the AI binding is never called; workers_ai models' jobs end at once with a bad_request failure. See README, Local development.)";

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    console.log(USAGE);
    return 0;
  }
  const secrets = {};
  for (const k of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"]) if (process.env[k]) secrets[k] = process.env[k];

  let release;
  try {
    release = claimStateDir(opts.stateDir);
  } catch (err) {
    console.error(`[dev] ${err.message}`);
    return 1;
  }
  process.on("exit", release);

  const start = (first) =>
    startLocalStack({
      port: opts.port,
      persistTo: opts.stateDir,
      // wrangler dev rebuilds and restarts the worker when a source file changes (npm start and the
      // benches run the deploy bundle on workerd without its dev proxy: scripts/lib/local-runtime.mjs).
      server: "wrangler-dev",
      fake: opts.fake ? { port: opts.fakePort, script: opts.fakeScript } : false,
      secrets,
      localObservability: opts.localObservability,
      onLog: (l) => console.log(AI_WARNING.test(l) ? AI_NOTE : l),
      say: (m) => console.log(`[dev] ${m}`),
    }).then((stack) => {
      console.log(first ? readyText(stack, secrets, opts.stateDir) : `[dev] started again: ${stack.url}`);
      return stack;
    });
  try {
    // Runs until Ctrl-C: a change that stops the worker from starting waits for the next change (dev-supervisor.mjs).
    await superviseDev({ start, waitForChange: () => nextChange(devSources(REPO_ROOT)), say: (m) => console.error(`[dev] ${m}`) });
  } catch (err) {
    if (err?.code === "EADDRINUSE") {
      console.error(`[dev] port ${err.port ?? opts.fakePort} is in use (another fake LLM?); use --fake-port N or --no-fake`);
    } else {
      console.error(`[dev] ${err?.message ?? err}`);
    }
    return 1;
  }
  return 1;
}

function readyText(stack, secrets, stateDir) {
  const auth = `-H "Authorization: Bearer ${stack.token}"`;
  const keys = Object.keys(secrets).length ? Object.keys(secrets).join(", ") : "none from the environment";
  const local = stack.localVarNames.length ? stack.localVarNames.join(", ") : "none (.dev.vars.local is absent or empty)";
  let body = "@run.json";
  let fakeLine = "Fake LLM: not started (--no-fake).";
  let cliLine = "";
  let bodyNote = 'run.json is {"benchmark": …, "config": …, "run_name": "…"}; examples/basic/README.md shows how to build one.';
  if (stack.fake) {
    const file = path.join(REPO_ROOT, `.wrangler/dev/port-${stack.port}/example-run.json`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(exampleRunBody(stack.fake.url), null, 2)}\n`);
    const configFile = path.join(path.dirname(file), "config.json");
    fs.writeFileSync(configFile, `${JSON.stringify(exampleConfig(stack.fake.url), null, 2)}\n`);
    cliLine = `\n  npx edgeval run examples/basic/benchmark.json --config ${path.relative(process.cwd(), configFile)} --url ${stack.url} --token ${stack.token} --fail-under 0.25 --max-errors 2`;
    body = `@${path.relative(process.cwd(), file)}`;
    fakeLine = `Fake LLM: ${stack.fake.url} (OpenAI wire at ${stack.fake.url}/v1, Anthropic at ${stack.fake.url}); use "interface": "openai_compatible", "base_url": "${stack.fake.url}/v1" in a model config.`;
    bodyNote = `${body.slice(1)} is examples/basic with every base_url set to ${stack.fake.url}/v1 (written for this server; the lines above run from ${process.cwd()}).`;
  }
  return `
edgeval dev server: ${stack.url}   (state in ${path.relative(process.cwd(), stateDir) || "."}, Ctrl-C to stop)
${fakeLine}
Keys for the worker: ${keys}; from .dev.vars.local: ${local}

  curl -s ${stack.url}/health
  RUN_ID=$(curl -s -X POST ${stack.url}/v1/runs ${auth} -H "content-type: application/json" --data-binary ${body} | node -pe 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")); r.run_id ?? JSON.stringify(r)'); echo "run $RUN_ID"
  curl -s ${stack.url}/v1/runs/$RUN_ID ${auth}
  curl -s "${stack.url}/v1/runs/$RUN_ID/results?limit=100" ${auth}
${cliLine}

${bodyNote}
`;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`[dev] ${err?.message ?? err}`);
    process.exit(2);
  },
);
