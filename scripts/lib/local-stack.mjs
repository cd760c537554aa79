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
//
// Its parts: the worker's env files and tokens (env-files.mjs), the job queue's settings and sharded
// config (job-queue-config.mjs), the child processes and their masked output (wrangler-process.mjs),
// the D1 migrations for wrangler dev (d1-migrations.mjs). REPO_ROOT and LOCAL_JOB_QUEUE are
// re-exported here.
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { applyMigrations } from "./d1-migrations.mjs";
import { localToken, workerEnvEntries } from "./env-files.mjs";
import { LOCAL_JOB_QUEUE, writeShardedConfig } from "./job-queue-config.mjs";
import { configCrons, fireScheduled, startLocalCron } from "./local-cron.mjs";
import { REPO_ROOT } from "./repo-root.mjs";
import { makeMask, runNodeScript, WRANGLER_JS } from "./wrangler-process.mjs";

// For the scripts, benches and e2e tests that import them next to startLocalStack.
export { LOCAL_JOB_QUEUE } from "./job-queue-config.mjs";
export { REPO_ROOT } from "./repo-root.mjs";

const LOCAL_RUNTIME_JS = path.join(REPO_ROOT, "scripts/lib/local-runtime.mjs");
/** What local-runtime.mjs prints once its migrations are applied and the worker answers. */
export const RUNTIME_READY_LINE = "edgeval local runtime ready on ";

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

// ---- the worker process: ready yet, still alive? -----------------------------------------------

/** Polls GET /health until it answers; fails as soon as the process exits or reports a failed build. */
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

  /** @type {{ child?: import("node:child_process").ChildProcess, exited?: Promise<unknown>, secretsDir?: string, configFile?: string, bundleDir?: string, stopped?: Promise<void>, stopCron?: () => void }} */
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
      st.stopCron?.();
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
      st.stopCron?.();
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
    // wrangler dev does not fire the crons either; local-runtime.mjs fires its own.
    if (devServer && process.env.EDGEVAL_LOCAL_CRONS !== "off") {
      st.stopCron = startLocalCron({
        crons: await configCrons(st.configFile ?? path.join(REPO_ROOT, "wrangler.toml")),
        fire: (cron, minute) => fireScheduled(stack.url, cron, minute),
        onError: (cron, err) => say(`cron "${cron}" failed: ${err?.message ?? err}`),
      });
    }
    say(
      `${devServer ? "wrangler dev" : "local runtime"} ready on ${stack.url} in ${(stack.readyMs / 1000).toFixed(1)} s (pid ${run.child.pid})`,
    );
    return stack;
  } catch (err) {
    await stack.stop();
    throw err;
  }
}

/** A hint for failure messages when wrangler restarted the worker during a run. */
export const reloadHint = (stack) =>
  stack.reloads > 0
    ? `Note: wrangler dev restarted the worker ${stack.reloads} time(s) during the run because source files changed; queued jobs may have been lost. Re-run when the tree is quiet.`
    : "";

/** A delay that does not keep the process alive on its own. */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms).unref());
