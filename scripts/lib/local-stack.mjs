// The local stack: the fake LLM server (optional) plus the worker with every binding local: its
// deploy bundle on workerd (local-runtime.mjs; npm start, the e2e tests, the benches), or
// `wrangler dev` (`server: "wrangler-dev"`; npm run dev, for its live reload).
//
//   const stack = await startLocalStack({ fake: { script: "examples/basic/fake-script.json" },
//                                         secrets: { OPENAI_API_KEY: key } });
//   … stack.url, stack.token, stack.fake?.url …
//   await stack.stop();
//
// - D1 migrations are applied to the same --persist-to directory wrangler dev then uses; by default
//   that is a fresh temp dir, so every run starts from an empty database, queue, DO and bucket.
// - Secrets (provider keys) and every entry of the git-ignored .dev.vars.local go to the worker
//   through a temporary env file (mode 0600, in its own temp dir) passed with --env-file, next to
//   .dev.vars; it is deleted on stop, on exit and on SIGINT/SIGTERM. Secret values are masked in
//   any wrangler output we print.
// - The runtime (or wrangler) runs under `<node22>` in its own process group; stop() signals it by
//   PID, waits for it to exit, then kills what is left of that group (workerd among it).
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const WRANGLER_JS = path.join(REPO_ROOT, "node_modules/wrangler/bin/wrangler.js");
const LOCAL_RUNTIME_JS = path.join(REPO_ROOT, "scripts/lib/local-runtime.mjs");
/** What local-runtime.mjs prints once its migrations are applied and the worker answers. */
export const RUNTIME_READY_LINE = "edgeval local runtime ready on ";
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

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {net.AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}

/** Parses a dotenv-style file (KEY=value, # comments, optional quotes). */
export function readEnvFile(file) {
  if (!fs.existsSync(file)) return {};
  const out = {};
  for (const line of fs.readFileSync(file, "utf8").split(/\r?\n/)) {
    const m = line.match(/^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/);
    if (!m) continue;
    out[m[1]] = m[2].replace(/^(["'])(.*)\1$/, "$2");
  }
  return out;
}

/**
 * The job queue and consumer settings of every local stack (npm start, npm run dev, the e2e tests,
 * and bench/throughput with no flags), chosen by measurement (README, "Local and deployed queue
 * settings"). A local queue delivers one batch at a time and waits for its invocation to end before
 * the next, so the local stack splits the job queue into shards and runs each batch's jobs all side
 * by side: 4 shards × batches of 100 with JOB_CONCURRENCY 100 puts 400 jobs in flight. Measured with
 * bench/throughput (N 400, L 500 ms, C 64), one run each at load ~5: 4 × 100 × J 100 → 1.14,
 * 8 × 50 × J 50 → 1.13, 12 × 10 × J 6 → 1.47, 16 × 6 × J 6 → 1.33, and wrangler.toml's own one queue of
 * 10 with J 4 → ~20 (issue 19). With J ≤ 6 (production's connection limit) each batch waits for its
 * slowest job before the queue delivers the next, so small batches leave slots idle locally.
 * Production runs one queue (wrangler.toml): there a backlog scales consumers out to parallel
 * invocations, each within 6 outgoing connections.
 */
export const LOCAL_JOB_QUEUE = Object.freeze({ shards: 4, batchSize: 100, batchTimeoutS: 0.1, jobConcurrency: 100 });

/** Names whose values are masked in printed wrangler output when they come from .dev.vars.local. */
const SECRET_NAME = /(^|_)(KEY|TOKEN|SECRET|PASSWORD|PEPPER|KEKS?)$/;

/**
 * What the worker gets besides .dev.vars: every entry of the git-ignored `.dev.vars.local`
 * (EDGEVAL_KEY_ORIGINS, a TAVILY_API_KEY, any var), then the secrets the script passes (keys
 * from the environment), which win. `mask` lists the values to hide in printed output: every
 * script secret, and the .dev.vars.local values whose names look secret (…_KEY, …TOKEN, …).
 *
 * @param {Record<string, string>} secrets
 * @param {string} [file] default: .dev.vars.local in the repo
 */
export function workerEnvEntries(secrets, file = path.join(REPO_ROOT, ".dev.vars.local")) {
  const local = readEnvFile(file);
  const entries = { ...local, ...secrets };
  const mask = [
    ...Object.values(secrets),
    ...Object.entries(local)
      .filter(([k]) => SECRET_NAME.test(k))
      .map(([, v]) => v),
  ];
  return { entries, mask, localNames: Object.keys(local) };
}

/** The API token the local worker accepts (from .dev.vars unless overridden). */
export const localToken = () => readEnvFile(path.join(REPO_ROOT, ".dev.vars")).EDGEVAL_API_TOKEN ?? "edgeval-local-dev-token";

/** The operator's token for /v1/admin on the local worker (from .dev.vars). */
export const localAdminToken = () => readEnvFile(path.join(REPO_ROOT, ".dev.vars")).EDGEVAL_ADMIN_TOKEN ?? "edgeval-local-admin-token";

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

// ---- process-wide cleanup: every live stack is stopped on exit and on Ctrl-C -------------------

const live = new Set();
let handlersInstalled = false;
function installExitHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  // Last resort, synchronous: kill what we started and delete temp files.
  process.on("exit", () => {
    for (const s of live) s.stopSync();
  });
  for (const [sig, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ]) {
    process.once(sig, () => {
      process.stderr.write(`\n${sig}: stopping the local stack…\n`);
      Promise.allSettled([...live].map((s) => s.stop())).finally(() => process.exit(code));
    });
  }
}

// ---- wrangler subprocesses ---------------------------------------------------------------------

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

function makeMask(secretValues) {
  const values = secretValues.filter((v) => typeof v === "string" && v.length >= 4);
  return (line) => values.reduce((l, v) => l.split(v).join("***"), line);
}

/** EDGEVAL_WRANGLER_LOG=<file> appends every (masked) wrangler line to that file, for debugging. */
function logFileWriter() {
  const file = process.env.EDGEVAL_WRANGLER_LOG;
  if (!file) return undefined;
  return (line) => fs.appendFileSync(file, `${line}\n`);
}

function runWrangler(args, opts) {
  return runNodeScript(WRANGLER_JS, args, opts);
}

function runNodeScript(script, args, { mask, onLine, detached = false, env = {} }) {
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

/** Applies the D1 migrations to the local database kept in `persistTo`. */
export async function applyMigrations({ persistTo, onLine, mask = (l) => l }) {
  const args = ["d1", "migrations", "apply", "edgeval-db", "--local"];
  if (persistTo) args.push("--persist-to", persistTo);
  const run = runWrangler(args, { mask, onLine });
  const { code, signal, error } = await run.exited;
  if (code !== 0) {
    throw new Error(`wrangler d1 migrations apply failed (${error?.message ?? `exit ${code ?? signal}`}):\n${run.tail()}`);
  }
}

async function waitForHealth(url, { timeoutMs, exited, tail, failed = () => false, ready = () => true, what = "wrangler dev" }) {
  const deadline = Date.now() + timeoutMs;
  let early = null;
  exited.then((r) => (early = r));
  while (Date.now() < deadline) {
    if (early) throw new Error(`${what} exited before it was ready (exit ${early.code ?? early.signal}):\n${tail()}`);
    if (failed()) {
      await sleep(500); // let the rest of the error report arrive
      throw new Error(`${what} could not build the worker:\n${tail(60)}`);
    }
    if (!ready()) {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} was not ready within ${Math.round(timeoutMs / 1000)} s:\n${tail()}`);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts the fake LLM (when `fake` is given) and the worker, and waits for GET /health.
 *
 * @param {object} [opts]
 * @param {false | { script?: string | object, port?: number, latencyMs?: number }} [opts.fake] start the fake LLM server
 * @param {Record<string, string>} [opts.secrets] worker secrets (e.g. OPENAI_API_KEY); never printed, never left on disk
 * @param {Record<string, string>} [opts.vars] extra plain worker vars (--var)
 * @param {string} [opts.localVarsFile] entries passed to the worker as well (default: .dev.vars.local; see workerEnvEntries)
 * @param {false | { shards?: number, batchSize?: number, batchTimeoutS?: number, jobConcurrency?: number }} [opts.jobQueue]
 *   the job queue of the generated config, over LOCAL_JOB_QUEUE: split into `shards` queues (locally
 *   each delivers one batch at a time, so S shards run S batches side by side, as production's
 *   parallel invocations do), their consumers' batch size / timeout, and JOB_CONCURRENCY (a var in
 *   `vars` wins). `false`: wrangler.toml as it is (one queue, production's settings).
 * @param {number} [opts.port] worker port (default: a free one)
 * @param {string} [opts.persistTo] local state dir (default: a fresh temp dir, deleted on stop)
 * @param {string} [opts.stateRoot] where that fresh temp dir is made (default: the OS temp dir)
 * @param {number} [opts.readyTimeoutMs]
 * @param {"workerd" | "wrangler-dev"} [opts.server] what runs the worker: its deploy bundle on workerd without a
 *   dev proxy (default), or `wrangler dev`, which rebuilds on source changes (npm run dev)
 * @param {boolean} [opts.localObservability] true: run `wrangler dev` with its local trace collector on (default off)
 * @param {boolean} [opts.gcPacer] false: no garbage-collection pacer in the runtime (for a bench that profiles the
 *   worker's isolate over its inspector; default on, as npm start runs)
 * @param {boolean} [opts.outboundInterceptor] true: the worker's fetches pass through miniflare's outbound interceptor,
 *   as miniflare sets it up (default: they go straight out; local-runtime.mjs says why)
 * @param {(line: string) => void} [opts.onLog] every wrangler output line (masked)
 * @param {(msg: string) => void} [opts.say] progress lines of the stack itself
 */
export async function startLocalStack(opts = {}) {
  const { fake: fakeOpts = false, secrets = {}, vars = {}, readyTimeoutMs = 120_000, onLog, say = () => {} } = opts;
  const workerEnv = workerEnvEntries(secrets, opts.localVarsFile);
  for (const [k, v] of Object.entries(workerEnv.entries)) {
    if (typeof v !== "string" || /[\r\n]/.test(v) || (v.includes("'") && v.includes('"'))) {
      throw new Error(`${k in secrets ? "secret" : ".dev.vars.local entry"} ${k}: value must be a single line without both ' and "`);
    }
  }
  installExitHandlers();
  const mask = makeMask(workerEnv.mask);
  const ownState = !opts.persistTo;
  const persistTo = opts.persistTo ?? fs.mkdtempSync(path.join(opts.stateRoot ?? os.tmpdir(), "edgeval-state-"));
  const token = secrets.EDGEVAL_API_TOKEN ?? localToken();

  /** @type {{ child?: import("node:child_process").ChildProcess, exited?: Promise<unknown>, secretsDir?: string, configFile?: string, bundleDir?: string, stopped?: Promise<void> }} */
  const st = {};
  const stack = {
    url: "",
    port: 0,
    /** wrangler dev's DevTools inspector (the worker's isolate, Durable Objects included). */
    inspectorPort: 0,
    /** wrangler dev's PID, also its process group (workerd runs inside it). */
    pid: 0,
    token,
    persistTo,
    /** How often wrangler dev restarted the worker after it was ready (source files changed). */
    reloads: 0,
    /** Milliseconds from spawning wrangler dev to a healthy /health (0 until then). */
    readyMs: 0,
    /** Resolves with {code, signal} when wrangler dev exits. */
    exited: null,
    /** @type {null | { url: string, port: number, stats: () => any, close: () => Promise<void> }} */
    fake: null,
    /** Names passed through from .dev.vars.local (values never printed). */
    localVarNames: /** @type {string[]} */ ([]),
    /** The last lines of its output (replaced by the running process's once it starts). */
    tail: (_n = 40) => "",
    stopSync() {
      if (st.child?.pid && alive(st.child.pid)) {
        try {
          process.kill(-st.child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      removeTemp();
      live.delete(stack);
    },
    /** Stops wrangler (SIGTERM by PID, then SIGKILL to its group), the fake, and deletes temp files. */
    stop() {
      st.stopped ??= (async () => {
        const child = st.child;
        if (child?.pid && child.exitCode === null && child.signalCode === null) {
          child.kill("SIGTERM");
          const timedOut = await Promise.race([st.exited.then(() => false), sleep(8000).then(() => true)]);
          if (timedOut) say(`wrangler (pid ${child.pid}) ignored SIGTERM for 8 s; killing its process group`);
        }
        if (child?.pid) {
          try {
            process.kill(-child.pid, "SIGKILL"); // workerd and anything else wrangler left in its group
          } catch {
            // the group is already empty
          }
          await st.exited;
        }
        if (stack.fake) await stack.fake.close();
        removeTemp();
        live.delete(stack);
      })();
      return st.stopped;
    },
  };
  function removeTemp() {
    if (st.configFile) fs.rmSync(st.configFile, { force: true });
    if (st.bundleDir) fs.rmSync(st.bundleDir, { recursive: true, force: true });
    if (st.secretsDir) fs.rmSync(st.secretsDir, { recursive: true, force: true });
    if (ownState) fs.rmSync(persistTo, { recursive: true, force: true });
  }
  live.add(stack);

  try {
    if (fakeOpts) {
      const { startFakeLlm } = await import("../../test/fake-llm/server.mjs");
      const script = typeof fakeOpts.script === "string" ? path.resolve(REPO_ROOT, fakeOpts.script) : fakeOpts.script;
      stack.fake = await startFakeLlm({ port: fakeOpts.port ?? 0, host: "127.0.0.1", script, latencyMs: fakeOpts.latencyMs ?? 0 });
      say(`fake LLM on ${stack.fake.url}`);
    }

    // wrangler dev only where asked for (npm run dev: live reload), or for its local trace collector.
    const devServer = opts.server === "wrangler-dev" || opts.localObservability === true;
    if (devServer) {
      const t0 = Date.now();
      await applyMigrations({ persistTo, mask, onLine: onLog });
      say(`D1 migrations applied to ${persistTo} (${Date.now() - t0} ms)`);
    } // else local-runtime.mjs applies them before it says it is ready

    const port = opts.port ?? (await freePort());
    const inspectorPort = await freePort();
    const args = devServer ? ["dev", "--local", "--ip", "127.0.0.1", "--show-interactive-dev-session=false", "--log-level", "info"] : [];
    args.push("--port", String(port), "--inspector-port", String(inspectorPort), "--persist-to", persistTo);
    // Local mode (src/env.ts isLocalMode) even when .dev.vars is missing or edited.
    const jobQueue = opts.jobQueue === false ? null : { ...LOCAL_JOB_QUEUE, ...opts.jobQueue };
    const queueVars = jobQueue ? { JOB_CONCURRENCY: String(jobQueue.jobConcurrency) } : {};
    for (const [k, v] of Object.entries({ EDGEVAL_ENV: "local", ...queueVars, ...vars })) args.push("--var", `${k}:${v}`);
    if (jobQueue) {
      st.configFile = writeShardedConfig(jobQueue);
      args.push("--config", st.configFile);
      say(
        `job queue: ${jobQueue.shards} shard(s) × batches of ${jobQueue.batchSize}, JOB_CONCURRENCY ${vars.JOB_CONCURRENCY ?? jobQueue.jobConcurrency} (${path.basename(st.configFile)})`,
      );
    }
    if (workerEnv.localNames.length > 0) say(`passing ${workerEnv.localNames.join(", ")} from .dev.vars.local to the worker`);
    stack.localVarNames = workerEnv.localNames;
    if (Object.keys(workerEnv.entries).length > 0) {
      // --env-file replaces wrangler's own .dev.vars lookup, so pass .dev.vars first, then
      // .dev.vars.local's entries and the secrets.
      st.secretsDir = fs.mkdtempSync(path.join(os.tmpdir(), "edgeval-secrets-"));
      fs.chmodSync(st.secretsDir, 0o700);
      const file = path.join(st.secretsDir, "worker.env");
      const body = Object.entries(workerEnv.entries).map(([k, v]) => (v.includes("'") ? `${k}="${v}"` : `${k}='${v}'`));
      fs.writeFileSync(file, `${body.join("\n")}\n`, { mode: 0o600 });
      const devVars = path.join(REPO_ROOT, ".dev.vars");
      if (fs.existsSync(devVars)) args.push("--env-file", devVars);
      args.push("--env-file", file);
    }
    const t1 = Date.now();
    // wrangler dev keeps watching after a failed build instead of exiting; fail fast instead of
    // waiting for the ready timeout.
    let buildFailed = false;
    let runtimeReady = false;
    const onLine = (line) => {
      runtimeReady ||= line.startsWith(RUNTIME_READY_LINE);
      if (!stack.readyMs) buildFailed ||= /Build failed|Could not resolve/.test(line);
      // wrangler dev rebuilds and restarts the worker when a source file changes, which can drop
      // queued jobs; scripts mention it when a run stalls or fails.
      else if (/Reloading local server|Detected changes, restarted server/.test(line)) stack.reloads += 1;
      onLog?.(line);
    };
    // wrangler dev streams a trace of every invocation, fetch and Durable Object call to its local
    // observability collector (X_LOCAL_OBSERVABILITY, on by wrangler's default; its local explorer
    // shows it). That collector runs on workerd's one thread beside the worker: bench/throughput
    // measured it at ~13 % of workerd's samples and ratio 1.10–1.12 against 1.08–1.09 without, a
    // cost production's tracing does not put on the worker. So it is off unless asked for.
    const env = { X_LOCAL_OBSERVABILITY: opts.localObservability === true ? "true" : "false" };
    // The runtime's garbage-collection pacer (workerd-gc.mjs) opens inspector sessions; a CPU
    // profile holds one on the worker's isolate the whole time, and workerd answers neither of two.
    if (opts.gcPacer === false) env.EDGEVAL_LOCAL_GC_PACER = "off";
    if (opts.outboundInterceptor === true) env.EDGEVAL_LOCAL_OUTBOUND_INTERCEPTOR = "on";
    if (!devServer && !args.includes("--config")) args.push("--config", path.join(REPO_ROOT, "wrangler.toml"));
    if (!devServer) {
      st.bundleDir = fs.mkdtempSync(path.join(os.tmpdir(), "edgeval-bundle-"));
      args.push("--bundle-dir", st.bundleDir);
    }
    const run = runNodeScript(devServer ? WRANGLER_JS : LOCAL_RUNTIME_JS, args, { mask, onLine, detached: true, env });
    st.child = run.child;
    st.exited = run.exited;
    stack.tail = run.tail;
    stack.exited = run.exited;
    stack.port = port;
    stack.inspectorPort = inspectorPort;
    stack.pid = run.child.pid ?? 0;
    stack.url = `http://127.0.0.1:${port}`;
    await waitForHealth(stack.url, {
      timeoutMs: readyTimeoutMs,
      exited: run.exited,
      tail: run.tail,
      failed: () => buildFailed,
      ready: () => devServer || runtimeReady,
      what: devServer ? "wrangler dev" : "the local runtime",
    });
    stack.readyMs = Date.now() - t1;
    say(
      `${devServer ? "wrangler dev" : "local runtime"} ready on ${stack.url} in ${(stack.readyMs / 1000).toFixed(1)} s (pid ${run.child.pid})`,
    );
    return stack;
  } catch (err) {
    await stack.stop();
    throw err;
  }
}

let configFiles = 0;

/**
 * wrangler.toml with the job queue's consumer batch settings replaced and shards JOBS_1… added
 * (same consumer settings, same dead-letter queue). Written next to wrangler.toml, because the
 * config's relative paths (main, migrations) resolve from its own directory; deleted on stop.
 */
export function writeShardedConfig({ shards = 1, batchSize, batchTimeoutS }) {
  const base = fs.readFileSync(path.join(REPO_ROOT, "wrangler.toml"), "utf8");
  const block = /\[\[queues\.consumers\]\]\nqueue = "edgeval-jobs"\n(?:(?!\[)[^\n]*\n)*/;
  const found = base.match(block);
  if (!found) throw new Error('wrangler.toml has no [[queues.consumers]] block for "edgeval-jobs"');
  let consumer = found[0];
  if (batchSize !== undefined) consumer = consumer.replace(/max_batch_size = \d+/, `max_batch_size = ${batchSize}`);
  if (batchTimeoutS !== undefined) consumer = consumer.replace(/max_batch_timeout = [\d.]+/, `max_batch_timeout = ${batchTimeoutS}`);
  let text = base.replace(found[0], consumer);
  for (let i = 1; i < shards; i++) {
    text += `\n[[queues.producers]]\nbinding = "JOBS_${i}"\nqueue = "edgeval-jobs-${i}"\n`;
    text += `\n${consumer.replace('queue = "edgeval-jobs"', `queue = "edgeval-jobs-${i}"`)}`;
  }
  // One file per stack: a process may run several (e.g. a test file).
  const file = path.join(REPO_ROOT, `.wrangler.local-${process.pid}-${++configFiles}.toml`);
  fs.writeFileSync(file, `# generated by scripts/lib/local-stack.mjs for one local run; deleted when it stops\n${text}`);
  return file;
}

/** A hint for failure messages when wrangler restarted the worker during a run. */
export const reloadHint = (stack) =>
  stack.reloads > 0
    ? `Note: wrangler dev restarted the worker ${stack.reloads} time(s) during the run because source files changed; queued jobs may have been lost. Re-run when the tree is quiet.`
    : "";

/** A delay that does not keep the process alive on its own. */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms).unref());
