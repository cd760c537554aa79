#!/usr/bin/env node
// The local runtime: the worker's deploy bundle on one workerd, through miniflare, with every binding
// local. startLocalStack (local-stack.mjs) runs it as a child process for npm start, the e2e tests and
// the benches; `npm run dev` runs `wrangler dev` instead, for its live reload.
//
//   node scripts/lib/local-runtime.mjs --config <wrangler.toml> --persist-to <dir> --port <p>
//        --inspector-port <p> --bundle-dir <empty dir> [--env-file <file>]… [--var NAME:value]…
//
// Why not `wrangler dev`: it puts a second workerd in front of the worker (its dev proxy, which
// holds requests while it reloads and routes each one through a Durable Object). Production has no
// such hop; locally it cost ~3.5 ms on every request (GET /health p50 3.3–5.0 ms through it, 0.8 ms
// straight to the worker's socket; bench/judge at concurrency 1: 15.6 vs 12.2 ms p50, load ~4) and
// a process of its own (80–360 MB RSS). Here the bundle is what `wrangler deploy` uploads (built
// with `wrangler deploy --dry-run`), and the bindings are what wrangler dev derives from the config
// (wrangler's unstable_getMiniflareWorkerOptions), with the state in the same --persist-to layout
// (`<dir>/v3`, where `wrangler d1 migrations apply --local --persist-to` writes).
//
// It runs a garbage-collection pacer (workerd-gc.mjs): once workerd's RSS is 128 MB above the idle
// stack's, a full collection in every isolate each time it grows another 48 MB, so a long run's
// garbage (native buffers held by dead JS objects, which V8 does not hurry to collect) does not pile
// up: 20,000 jobs through bench/sharded-run ended 330 MB above 2,000 without it.
// EDGEVAL_LOCAL_GC_PACER=off turns it off (to measure what it does), =log prints each round.
//
// The worker's own fetches (every model call) go straight to the network, not through miniflare's
// outbound interceptor: a worker miniflare puts between every user worker and the network, so that
// each fetch is a second request inside workerd (to the interceptor, which drops CF-Connecting-IP,
// adds CF-Worker and sends it on). edgeval sets neither header on its requests, and deployed,
// Cloudflare adds CF-Worker itself. That hop cost ~13 % of workerd's CPU in bench/throughput (N 400,
// no flags, 5 runs each alternated, 29 Nov, idle machine: 2.76 against 3.17 ms per result).
// Miniflare has no option for it (stripCfConnectingIp: false keeps the hop and measured the same),
// so bypassOutboundInterceptor() changes the user worker's service as miniflare builds it; it warns
// if miniflare no longer builds it that way. EDGEVAL_LOCAL_OUTBOUND_INTERCEPTOR=on keeps the hop.
//
// Requests reach the worker on a socket of its own (miniflare's `unsafeDirectSockets`), not through
// miniflare's entry worker, which routes every request through a second service in workerd to add
// what production's front end adds (a request.cf placeholder, Accept-Encoding negotiation, pretty
// error pages, route matching; edgeval uses none of them). That hop cost GET /health ~0.7 ms p50 and
// ~0.4 ms of workerd CPU a request (1.3–1.6 against 0.6 ms, load 3–4, 29 Nov). Miniflare's own
// socket stays (on a free port) for its bindings API, which applyMigrations uses.
//
// It fires the worker's Cron Triggers, which no local workerd fires by itself (local-cron.mjs: each
// minute's matching crons, through miniflare's trigger route; EDGEVAL_LOCAL_CRONS=off turns it off).
//
// It applies the D1 migrations not yet applied, then prints "edgeval local runtime ready on <url>"
// (local-stack.mjs waits for that line), passes the worker's console output through, and disposes
// of workerd on SIGTERM/SIGINT.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare, PLUGINS } from "miniflare";
import { unstable_getMiniflareWorkerOptions, unstable_splitSqlQuery } from "wrangler";
import { readEnvFile } from "./env-files.mjs";
import { configCrons, fireScheduled, startLocalCron } from "./local-cron.mjs";
import { RUNTIME_READY_LINE } from "./local-stack.mjs";
import { REPO_ROOT } from "./repo-root.mjs";
import { listenerPid, startGcPacer } from "./workerd-gc.mjs";
import { WRANGLER_JS } from "./wrangler-process.mjs";

function parseArgs(argv) {
  const o = { envFiles: [], vars: {} };
  for (let i = 0; i < argv.length; i++) {
    const value = argv[++i];
    if (value === undefined) throw new Error(`${argv[i - 1]} needs a value`);
    switch (argv[i - 1]) {
      case "--config":
        o.config = path.resolve(value);
        break;
      case "--persist-to":
        o.persistTo = path.resolve(value);
        break;
      case "--port":
        o.port = Number(value);
        break;
      case "--inspector-port":
        o.inspectorPort = Number(value);
        break;
      case "--bundle-dir":
        o.bundleDir = path.resolve(value);
        break;
      case "--env-file":
        o.envFiles.push(value);
        break;
      case "--var": {
        const at = value.indexOf(":");
        o.vars[value.slice(0, at)] = value.slice(at + 1);
        break;
      }
      default:
        throw new Error(`unknown option ${argv[i - 1]}`);
    }
  }
  for (const k of ["config", "persistTo", "port", "inspectorPort", "bundleDir"]) if (o[k] === undefined) throw new Error(`missing --${k}`);
  return o;
}

/**
 * Points the user worker's global outbound where miniflare points its outbound interceptor's own
 * (the network), so the worker's fetches skip the interceptor (see the top of this file). Miniflare
 * builds each worker's workerd services in its core plugin's getServices; the user worker's service
 * names the interceptor (`outbound:<worker index>`) as its globalOutbound. Returns a function that
 * says whether the bypass took effect once miniflare has built its config.
 */
function bypassOutboundInterceptor() {
  let bypassed = false;
  const core = PLUGINS?.core;
  if (typeof core?.getServices !== "function") return () => bypassed;
  const getServices = core.getServices;
  core.getServices = async function (options) {
    const built = await getServices.call(this, options);
    const services = Array.isArray(built) ? built : (built?.services ?? []);
    const interceptorName = `outbound:${options.workerIndex}`;
    const interceptor = services.find((s) => s.name === interceptorName);
    if (interceptor?.worker) {
      for (const s of services) {
        if (s.worker?.globalOutbound?.name !== interceptorName) continue;
        s.worker.globalOutbound = interceptor.worker.globalOutbound;
        bypassed = true;
      }
    }
    return built;
  };
  return () => bypassed;
}

/** `wrangler deploy --dry-run`: the bundle production runs (index.js plus its wasm modules). */
function buildBundle(config, outDir) {
  const res = spawnSync(process.execPath, [WRANGLER_JS, "deploy", "--dry-run", "--outdir", outDir, "--config", config], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", FORCE_COLOR: "0", NO_COLOR: "1" },
  });
  if (res.status !== 0)
    throw new Error(`Build failed: wrangler deploy --dry-run exited ${res.status ?? res.signal}\n${res.stdout}\n${res.stderr}`);
  // wrangler names each wasm module by its hash ("<sha1>-wasm") and imports it by that name.
  const files = fs.readdirSync(outDir).filter((f) => f === "index.js" || /(\.|-)wasm$/.test(f));
  if (!files.includes("index.js")) throw new Error(`Build failed: no index.js in ${outDir}`);
  fs.writeFileSync(path.join(outDir, LOCAL_ENTRY), LOCAL_ENTRY_SOURCE);
  return [LOCAL_ENTRY, ...files].map((f) => ({ type: f.endsWith(".js") ? "ESModule" : "CompiledWasm", path: path.join(outDir, f) }));
}

const LOCAL_ENTRY = "local-entry.js";
/**
 * The bundle's entry with one addition, as wrangler dev adds it to what it runs: a request body
 * the worker did not read (a 413 for a body over its limit, a 401 before the body) is read to its
 * end before the response goes. Locally workerd otherwise answers and closes the connection while
 * the client is still sending, and the client sees "other side closed" instead of the answer
 * (openapi-contract's 1.1 MB body, sometimes). Deployed, Cloudflare's front end takes the body.
 */
const LOCAL_ENTRY_SOURCE = `import worker from "./index.js";
export * from "./index.js";
export default {
  ...worker,
  async fetch(request, env, ctx) {
    try {
      return await worker.fetch(request, env, ctx);
    } finally {
      if (request.body !== null && !request.bodyUsed) {
        try {
          const reader = request.body.getReader();
          while (!(await reader.read()).done) {}
        } catch {}
      }
    }
  },
};
`;

/**
 * The D1 migrations not yet applied (wrangler.toml `migrations_dir`), applied through the running
 * worker's D1 binding and recorded in `d1_migrations` as `wrangler d1 migrations apply` records
 * them. In-process, because a `wrangler d1 migrations apply --local` of its own boots another
 * miniflare: 5–13 s of every start here.
 */
async function applyMigrations(mf, migrationsDir) {
  const db = await mf.getD1Database("DB");
  await db.exec(
    "CREATE TABLE IF NOT EXISTS d1_migrations(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL);",
  );
  const applied = new Set((await db.prepare("SELECT name FROM d1_migrations").all()).results.map((r) => r.name));
  const files = fs
    .readdirSync(migrationsDir)
    .filter((f) => f.endsWith(".sql"))
    .sort();
  for (const name of files.filter((f) => !applied.has(f))) {
    const statements = unstable_splitSqlQuery(fs.readFileSync(path.join(migrationsDir, name), "utf8"));
    // One batch per migration: it is applied whole or not at all, its record with it.
    await db.batch([...statements.map((q) => db.prepare(q)), db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(name)]);
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  // The caller owns the bundle's directory and deletes it: miniflare's own exit handlers end this
  // process on SIGTERM before a handler of ours could.
  const outDir = o.bundleDir;
  let mf;
  let stopping = false;
  const stop = async (code) => {
    if (stopping) return;
    stopping = true;
    await mf?.dispose().catch(() => {});
    process.exit(code);
  };
  process.on("SIGTERM", () => stop(143));
  process.on("SIGINT", () => stop(130));
  try {
    const modules = buildBundle(o.config, outDir);
    const keepInterceptor = process.env.EDGEVAL_LOCAL_OUTBOUND_INTERCEPTOR === "on";
    const interceptorBypassed = keepInterceptor ? () => true : bypassOutboundInterceptor();
    const { workerOptions } = unstable_getMiniflareWorkerOptions(o.config);
    // The AI binding only runs remotely; without it the worker ends workers_ai jobs as bad_request.
    delete workerOptions.ai;
    const bindings = { ...workerOptions.bindings };
    for (const file of o.envFiles) Object.assign(bindings, readEnvFile(file));
    Object.assign(bindings, o.vars);
    mf = new Miniflare(
      convertV4MiniflareOptions({
        ...workerOptions,
        name: "edgeval",
        bindings,
        modules,
        modulesRoot: outDir,
        modulesRules: undefined,
        host: "127.0.0.1",
        port: 0,
        unsafeDirectSockets: [{ host: "127.0.0.1", port: o.port }],
        inspectorPort: o.inspectorPort,
        resourcePersistencePath: path.join(o.persistTo, "v3"),
        // No request.cf from Cloudflare's API (there is no network): miniflare's placeholder.
        cf: false,
        // Warnings and errors only: one line per request costs the worker's thread and tells nothing.
        log: new Log(LogLevel.WARN),
        // /cdn-cgi/local/scheduled on miniflare's own socket: how local-cron.mjs fires the crons.
        unsafeTriggerHandlers: true,
      }),
    );
    const entry = await mf.ready;
    if (!interceptorBypassed())
      console.warn(
        "edgeval local runtime: miniflare's outbound interceptor could not be bypassed (miniflare no longer builds its services as this script expects); model calls still work, each with an extra hop",
      );
    await applyMigrations(mf, path.resolve(path.dirname(o.config), "migrations"));
    if (process.env.EDGEVAL_LOCAL_GC_PACER !== "off") {
      const pid = listenerPid(o.inspectorPort);
      // EDGEVAL_LOCAL_GC_PACER=log prints each round (RSS before → after, isolates that did not answer).
      const onCollect =
        process.env.EDGEVAL_LOCAL_GC_PACER === "log"
          ? (r) =>
              console.warn(
                `${new Date().toISOString().slice(11, 23)} gc pacer: ${r.collected} isolates in ${r.ms} ms, RSS ${Math.round(r.before)} → ${Math.round(r.after)} MB${r.silent.length ? `; no answer: ${r.silent.join(", ")}` : ""}`,
              )
          : undefined;
      if (pid) startGcPacer({ port: o.inspectorPort, pid, onCollect });
      else console.warn("edgeval local runtime: workerd's process not found; no garbage-collection pacer");
    }
    if (process.env.EDGEVAL_LOCAL_CRONS !== "off") {
      startLocalCron({
        crons: await configCrons(o.config),
        fire: (cron, minute) => fireScheduled(entry.origin, cron, minute),
        onError: (cron, err) => console.warn(`edgeval local runtime: cron "${cron}" failed: ${err?.message ?? err}`),
      });
    }
    console.log(`${RUNTIME_READY_LINE}${(await mf.unsafeGetDirectURL("edgeval")).origin}`);
  } catch (err) {
    console.error(String(err?.stack ?? err));
    await stop(1);
  }
}

main();
