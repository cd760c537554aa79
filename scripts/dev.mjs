#!/usr/bin/env node
// npm run dev — the API on http://127.0.0.1:8787 with local state kept in .wrangler/state, plus the
// fake LLM on http://127.0.0.1:9797 (unless --no-fake). Ctrl-C stops both.
//
//   npm run dev -- [--port 8787] [--no-fake] [--fake-port 9797] [--fake-script examples/basic/fake-script.json]
//
// Provider keys in the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY) are handed to the worker
// as secrets; without them wrangler reads .dev.vars as usual.
import path from "node:path";
import { REPO_ROOT, startLocalStack } from "./lib/local-stack.mjs";

function parseArgs(argv) {
  const opts = { port: 8787, fake: true, fakePort: 9797, fakeScript: undefined };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = () => inline ?? argv[++i];
    if (flag === "--port") opts.port = Number(value());
    else if (flag === "--no-fake") opts.fake = false;
    else if (flag === "--fake-port") opts.fakePort = Number(value());
    else if (flag === "--fake-script") opts.fakeScript = path.resolve(value());
    else throw new Error(`unknown option ${argv[i]} (use --port, --no-fake, --fake-port, --fake-script)`);
  }
  return opts;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const secrets = {};
  for (const k of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"]) if (process.env[k]) secrets[k] = process.env[k];

  let stack;
  try {
    stack = await startLocalStack({
      port: opts.port,
      persistTo: path.join(REPO_ROOT, ".wrangler/state"),
      fake: opts.fake ? { port: opts.fakePort, script: opts.fakeScript } : false,
      secrets,
      onLog: (l) => console.log(l),
      say: (m) => console.log(`[dev] ${m}`),
    });
  } catch (err) {
    if (err?.code === "EADDRINUSE") {
      console.error(`[dev] port ${err.port ?? opts.fakePort} is in use (another fake LLM?); use --fake-port N or --no-fake`);
    } else {
      console.error(`[dev] ${err?.message ?? err}`);
    }
    return 1;
  }

  const t = stack.token;
  const fakeLine = stack.fake
    ? `Fake LLM: ${stack.fake.url} (OpenAI wire at ${stack.fake.url}/v1, Anthropic at ${stack.fake.url}); use "interface": "openai_compatible", "base_url": "${stack.fake.url}/v1" in a model config.`
    : "Fake LLM: not started (--no-fake).";
  console.log(`
edgeval dev server: ${stack.url}   (state in .wrangler/state, Ctrl-C to stop)
${fakeLine}
Keys for the worker: ${Object.keys(secrets).length ? Object.keys(secrets).join(", ") : "none from the environment (.dev.vars)"}

  curl -s ${stack.url}/health
  curl -s -X POST ${stack.url}/v1/runs -H "Authorization: Bearer ${t}" -H "content-type: application/json" --data-binary @run.json
  curl -s ${stack.url}/v1/runs/RUN_ID -H "Authorization: Bearer ${t}"
  curl -s "${stack.url}/v1/runs/RUN_ID/results?limit=100" -H "Authorization: Bearer ${t}"

run.json is {"benchmark": …, "config": …, "run_name": "…"}; examples/basic/README.md shows how to build one.
`);
  const { code, signal } = await stack.exited;
  console.error(`[dev] wrangler dev exited (${code ?? signal})`);
  await stack.stop();
  return code ?? 1;
}

main().then((code) => process.exit(code));
