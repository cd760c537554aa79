// Full garbage collections in every isolate of a local workerd, through its own inspector.
//
// Why: in a local workerd much of the memory a job leaves behind is native (request and response
// buffers, I/O objects) held by JS objects that are already garbage. V8 does not see that native
// memory, so it does not hurry to collect them: an isolate that allocates little JS (miniflare's
// outbound interceptor, its D1 and R2 simulators) or whose old generation is far from its limit
// keeps them for minutes, and the process's RSS climbs with the work done (issue 19's 20,000-job
// run: +330 MB; issue 26's soak: 306 → 735 MB over 10,000 jobs). A full collection in every isolate
// gives it back: in the soak, each round freed ~70 MB in the worker's isolate and 30–70 MB in the
// simulators', and RSS went back to ~300 MB each time (/tmp probes, 29 Nov; see
// test/reliability/README.md and the README's "Memory of the local stack").
//
// `collectAll` is what a memory check calls before it samples (what is retained, not what is
// waiting for a collection); `startGcPacer` is what the local runtime runs so `npm start` does not
// hold a run's garbage (scripts/lib/local-runtime.mjs).
import fs from "node:fs";

/** workerd's inspector targets (one per isolate: the worker's and miniflare's). */
export async function inspectorTargets(port, timeoutMs = 3000) {
  const res = await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(timeoutMs) });
  const list = await res.json();
  // Targets whose id holds a "#" are miniflare's loopback services: their URL is not one ws accepts.
  return list.filter((t) => typeof t.webSocketDebuggerUrl === "string" && !t.id.includes("#"));
}

/**
 * One DevTools call on a fresh session (connect, call, close). workerd's inspector serves one session
 * per isolate: a second connection leaves both without answers, so nothing here holds a session open.
 */
export async function inspectorCall(url, method, timeoutMs = 5000) {
  // `ws` (miniflare's dependency, as bench/lib/inspector.mjs uses it): Node 20 has no WebSocket.
  const { WebSocket } = await import("ws");
  const ws = new WebSocket(url);
  const timer = setTimeout(() => ws.terminate(), timeoutMs);
  try {
    return await new Promise((resolve, reject) => {
      ws.once("error", reject);
      ws.once("close", () => reject(new Error(`${method}: no answer in ${timeoutMs} ms`)));
      ws.once("open", () => ws.send(JSON.stringify({ id: 1, method })));
      ws.on("message", (data) => {
        const msg = JSON.parse(String(data));
        if (msg.id !== 1) return;
        if (msg.error) reject(new Error(msg.error.message));
        else resolve(msg.result);
      });
    });
  } finally {
    clearTimeout(timer);
    ws.terminate();
  }
}

/**
 * A full collection in every isolate the inspector on `port` lists, side by side; `silent` lists the
 * isolates that did not answer. With `answered` (a Set kept across calls), an isolate that has never
 * answered is not asked again (some of miniflare's idle services never do) unless `retry`.
 * Resolves with {collected, silent, ms}.
 */
export async function collectAll(port, { timeoutMs = 5000, answered = null, retry = false } = {}) {
  const started = Date.now();
  const targets = (await inspectorTargets(port)).filter((t) => !answered || retry || answered.size === 0 || answered.has(t.id));
  const outcomes = await Promise.all(
    targets.map((t) =>
      inspectorCall(t.webSocketDebuggerUrl, "HeapProfiler.collectGarbage", timeoutMs).then(
        () => ({ id: t.id, ok: true }),
        () => ({ id: t.id, ok: false }),
      ),
    ),
  );
  const silent = outcomes.filter((o) => !o.ok).map((o) => o.id);
  for (const o of outcomes) if (o.ok) answered?.add(o.id);
  return { collected: outcomes.length - silent.length, silent, ms: Date.now() - started };
}

/** The pid of the process listening on TCP `port` (workerd, miniflare's child), from /proc; null elsewhere. */
export function listenerPid(port) {
  try {
    const inode = fs
      .readFileSync("/proc/net/tcp", "utf8")
      .split("\n")
      .slice(1)
      .map((l) => l.trim().split(/\s+/))
      .find((f) => f[3] === "0A" && Number.parseInt(f[1]?.split(":")[1] ?? "", 16) === port)?.[9];
    if (!inode) return null;
    for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      try {
        for (const fd of fs.readdirSync(`/proc/${pid}/fd`))
          if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`) return Number(pid);
      } catch {
        // not ours to read, or ended
      }
    }
  } catch {
    // no /proc (not Linux)
  }
  return null;
}

/** VmRSS of `pid` in MB, or NaN when it has ended. */
export function rssMb(pid) {
  try {
    return Number(/^VmRSS:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

/**
 * Collects in every isolate whenever the process's RSS has grown `growthMb` since the last
 * collection and is `headroomMb` above what it was when the pacer started (checked every
 * `everyMs`): an idle stack is left alone, a busy one pays a collection every few seconds (the
 * worker's isolate: 30–300 ms of its thread each, 29 Nov). Each isolate is asked on its own, so one
 * that is slow to answer does not hold back the others.
 *
 * An isolate that has answered once is asked every round, even after a round it missed: the
 * worker's own isolate is busiest exactly when its garbage grows, and may miss a deadline then.
 * Dropping it until it answered again left it uncollected for nine rounds, a whole 20,000-job run
 * (bench/sharded-run, 6 Dec: RSS 423–502 MB at its end against 260–340 MB). An isolate that has
 * never answered (some of miniflare's idle services never do) is asked again every tenth round.
 * `onCollect` hears of each round once its isolates have answered. `io` replaces the process and
 * inspector reads (tests). Returns stop().
 */
export function startGcPacer({
  port,
  pid,
  growthMb = 48,
  headroomMb = 128,
  everyMs = 500,
  timeoutMs = 5000,
  onCollect = () => {},
  io = {
    rss: () => rssMb(pid),
    targets: () => inspectorTargets(port),
    collect: (target) => inspectorCall(target.webSocketDebuggerUrl, "HeapProfiler.collectGarbage", timeoutMs),
  },
}) {
  // Below this nothing is collected: a short burst of work (bench/throughput's 400 jobs) leaves its
  // garbage to V8 rather than pay for collections it would not need (they cost ~0.4 ms of workerd CPU
  // per result there at a 48 MB step), and an idle stack is never touched.
  const quiet = io.rss() + headroomMb;
  /** Isolates that have answered a collection: every round asks them. */
  const answered = new Set();
  const inFlight = new Set();
  let targets = [];
  let rounds = 0;
  let floor = io.rss();
  const round = async (before) => {
    // Every tenth round (the first too) lists the isolates again and asks those that never answered.
    const retry = ++rounds % 10 === 1;
    if (retry) targets = await io.targets();
    const asked = targets.filter((t) => !inFlight.has(t.id) && (retry || answered.has(t.id)));
    const started = Date.now();
    const outcomes = await Promise.all(
      asked.map(async (t) => {
        inFlight.add(t.id);
        try {
          await io.collect(t);
          answered.add(t.id);
          return true;
        } catch {
          return false;
        } finally {
          inFlight.delete(t.id);
          // The next round starts from what this collection left (RSS falls back only so far: the
          // allocator keeps some), as soon as it is done, not when the slowest isolate answers.
          floor = Math.min(floor, io.rss());
        }
      }),
    );
    const silent = asked.filter((_, i) => !outcomes[i]).map((t) => t.id);
    onCollect({ collected: outcomes.length - silent.length, silent, ms: Date.now() - started, before, after: io.rss() });
  };
  const timer = setInterval(() => {
    const now = io.rss();
    if (!(now >= Math.max(floor + growthMb, quiet))) return;
    // Raised at once so the ticks until this round is done do not start another from the same growth.
    floor = now;
    round(now).catch(() => {
      // the runtime is stopping or restarting: the next growth starts another round
    });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
