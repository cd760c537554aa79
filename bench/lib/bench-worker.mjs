// A bench's own small worker (bench/binding-costs, bench/floor) on the local stack: local bindings
// only, state in a throwaway directory. Two ways to run it, as edgeval's own stack has:
// - "local-runtime": scripts/lib/local-runtime.mjs, what npm start and bench/throughput run
//   edgeval on (the deploy bundle on one workerd; model fetches straight out; D1 migrations from
//   `migrations/` beside the config);
// - "wrangler-dev": `wrangler dev`, with its dev proxy and miniflare's outbound interceptor, and
//   its local trace collector off as in bench/throughput (X_LOCAL_OBSERVABILITY=true turns it on).
// Either runs in its own process group, so `pid` is what bench/lib/proc-cpu.mjs reads workerd's
// threads by.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, RUNTIME_READY_LINE } from "../../scripts/lib/local-stack.mjs";
import { REPO_ROOT } from "../../scripts/lib/repo-root.mjs";
import { nodeBinary } from "../../scripts/lib/wrangler-process.mjs";

/**
 * Starts `config` (a path under the repository) and resolves once `readyPath` answers 2xx.
 * `stateRoot`: where the throwaway state directory goes (the OS temp dir by default).
 * @param {string} config
 * @param {{ runtime?: "local-runtime" | "wrangler-dev", readyPath?: string, stateRoot?: string, readyTimeoutMs?: number }} [opts]
 * @returns {Promise<{ base: string, pid: number, inspectorPort: number, log: () => string, stop: () => void }>}
 */
export async function startBenchWorker(
  config,
  { runtime = "local-runtime", readyPath = "/", stateRoot = os.tmpdir(), readyTimeoutMs = 60_000 } = {},
) {
  const temp = fs.mkdtempSync(path.join(stateRoot, `edgeval-${path.basename(path.dirname(config))}-`));
  const state = path.join(temp, "state");
  const bundle = path.join(temp, "bundle");
  fs.mkdirSync(bundle);
  const port = await freePort();
  const inspectorPort = await freePort();
  const common = [
    "--config",
    path.join(REPO_ROOT, config),
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    state,
  ];
  const args =
    runtime === "wrangler-dev"
      ? [
          path.join(REPO_ROOT, "node_modules/wrangler/bin/wrangler.js"),
          "dev",
          "--local",
          "--ip",
          "127.0.0.1",
          "--show-interactive-dev-session=false",
          ...common,
        ]
      : [path.join(REPO_ROOT, "scripts/lib/local-runtime.mjs"), ...common, "--bundle-dir", bundle];
  const child = spawn(nodeBinary(), args, {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      NO_COLOR: "1",
      X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY ?? "false",
    },
  });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  let exited = false;
  child.once("exit", () => (exited = true));
  const stop = () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
    fs.rmSync(temp, { recursive: true, force: true });
  };
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    // The local runtime listens only once its migrations are applied, and says so.
    const listening = runtime === "wrangler-dev" || log.includes(RUNTIME_READY_LINE);
    try {
      if (listening && (await fetch(`${base}${readyPath}`)).ok) break;
    } catch {
      // not listening yet
    }
    if (exited || Date.now() > deadline) {
      stop();
      throw new Error(
        `${runtime} (${config}) ${exited ? "exited before it was ready" : `was not ready within ${readyTimeoutMs / 1000} s`}:\n${log.slice(-2000)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { base, pid: child.pid, inspectorPort, log: () => log, stop };
}
