// Where workerd's memory is (Linux /proc + workerd's own inspector), for the memory benches.
//
// The local stack (scripts/lib/local-runtime.mjs) runs one workerd process: the runtime, which
// hosts the worker's isolate (with its Durable Objects) and miniflare's own isolates: the D1, R2, KV and queue
// simulators, each a Durable Object whose data is SQLite (and, for R2, blob files) under
// --persist-to. The runtime's inspector (workerd --inspector-addr) lists every one of those
// isolates, so each one's V8 heap can be read; what RSS holds beyond the heaps is native:
// SQLite page caches, buffers, and tcmalloc (workerd's allocator), which keeps freed pages.
// Under `wrangler dev` (npm run dev) a second workerd, wrangler's dev proxy, sits in front ("proxy").
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { inspectorCall } from "../../scripts/lib/workerd-gc.mjs";
import { OUR_TARGET } from "./inspector.mjs";

/** The workerd processes in process group `pgid`: pid and role ("runtime" has the inspector, "proxy" is wrangler's front). */
export function workerdProcesses(pgid) {
  const out = [];
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      if (stat.slice(stat.indexOf("(") + 1, close) !== "workerd") continue;
      if (Number(stat.slice(close + 2).split(" ")[2]) !== pgid) continue;
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      out.push({ pid: Number(pid), role: cmdline.includes("--inspector-addr") ? "runtime" : "proxy" });
    } catch {
      // ended while we looked
    }
  }
  return out;
}

/** MB from /proc/<pid>/status (VmRSS, RssAnon, RssFile, RssShmem, VmHWM) and smaps_rollup (Private_Dirty, AnonHugePages). */
export function procMemory(pid) {
  const mb = (text, key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? 0) / 1024;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    return {
      rss: mb(status, "VmRSS"),
      hwm: mb(status, "VmHWM"),
      anon: mb(status, "RssAnon"),
      file: mb(status, "RssFile"),
      shmem: mb(status, "RssShmem"),
      privateDirty: mb(rollup, "Private_Dirty"),
      anonHuge: mb(rollup, "AnonHugePages"),
    };
  } catch {
    return null;
  }
}

/** The TCP ports process `pid` listens on (from /proc/net/tcp and its socket fds). */
function listeningPorts(pid) {
  const inodes = new Set();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed while we looked
    }
  }
  const ports = [];
  for (const line of fs.readFileSync(`/proc/${pid}/net/tcp`, "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[3] === "0A" && inodes.has(f[9])) ports.push(Number.parseInt(f[1].split(":")[1], 16));
  }
  return ports;
}

/** workerd's own inspector port for the runtime process (the port whose /json/list answers with workerd's targets). */
export async function runtimeInspectorPort(pid) {
  for (const port of listeningPorts(pid)) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(2000) });
      const list = await res.json();
      if (Array.isArray(list) && list.some((t) => t.id === OUR_TARGET)) return port;
    } catch {
      // not the inspector
    }
  }
  return null;
}

/**
 * The V8 heap of every isolate the runtime hosts (MB used / allocated, ArrayBuffer backing stores),
 * keyed by workerd's target id: ours and miniflare's simulators and helpers, each read on a session
 * of its own. With `withoutOurs`, ours is left out: a session the bench holds on it (a profiler's;
 * bench/lib/inspector.mjs) would lose its answers to a second one, so it is read through that one.
 */
export async function isolateHeaps(port, { withoutOurs = false } = {}) {
  const list = await (await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(5000) })).json();
  const out = {};
  for (const t of list.filter((x) => !(withoutOurs && x.id === OUR_TARGET) && !x.id.includes("#"))) {
    try {
      out[t.id] = heapFigures(await inspectorCall(t.webSocketDebuggerUrl, "Runtime.getHeapUsage"));
    } catch (err) {
      out[t.id] = { error: String(err?.message ?? err) };
    }
  }
  return out;
}

/** Runtime.getHeapUsage in MB. */
const heapFigures = (u) => ({ used: u.usedSize / 2 ** 20, total: u.totalSize / 2 ** 20, buffers: (u.backingStorageSize ?? 0) / 2 ** 20 });

/**
 * A full snapshot: every workerd process's /proc figures, and the heaps of the runtime's isolates.
 * `inspector`: a session the bench holds on our isolate (bench/lib/inspector.mjs), to read our heap
 * through (without it, ours is read on a session of its own).
 */
export async function workerdMemory(pgid, { heaps = true, inspector = null } = {}) {
  const procs = workerdProcesses(pgid).map((p) => ({ ...p, mem: procMemory(p.pid) }));
  const runtime = procs.find((p) => p.role === "runtime");
  let isolates = null;
  if (heaps && runtime) {
    const port = await runtimeInspectorPort(runtime.pid);
    if (port) isolates = await isolateHeaps(port, { withoutOurs: inspector !== null });
    if (isolates && inspector) {
      try {
        const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), 10_000).unref());
        isolates[OUR_TARGET] = heapFigures(await Promise.race([inspector.send("Runtime.getHeapUsage"), timeout]));
      } catch (err) {
        isolates[OUR_TARGET] = { error: String(err?.message ?? err) };
      }
    }
  }
  return { procs, isolates };
}

export { OUR_TARGET };

/** One line: each process's RSS (anon/file), and the isolates' heaps (ours, miniflare's summed, the largest of theirs). */
export function formatMemory({ procs, isolates }) {
  const p = procs
    .map(
      (x) =>
        `${x.role} ${x.mem?.rss.toFixed(0)} MB (anon ${x.mem?.anon.toFixed(0)}, file ${x.mem?.file.toFixed(0)}, hwm ${x.mem?.hwm.toFixed(0)})`,
    )
    .join("; ");
  if (!isolates) return p;
  const failed = Object.entries(isolates).filter(([, v]) => v.error);
  if (failed.length) return `${p}; V8 heaps: n/a (${failed.map(([id, v]) => `${id}: ${v.error}`).join("; ")})`;
  const entries = Object.entries(isolates).filter(([, v]) => !v.error);
  const ours = entries.filter(([id]) => id === OUR_TARGET);
  const theirs = entries.filter(([id]) => id !== OUR_TARGET);
  const sum = (xs, k) => xs.reduce((s, [, v]) => s + v[k], 0);
  const top = theirs.sort((a, b) => b[1].total - a[1].total).slice(0, 3);
  return `${p}; V8 heaps: ${ours.length ? `ours used ${sum(ours, "used").toFixed(0)} / allocated ${sum(ours, "total").toFixed(0)} MB (+${sum(ours, "buffers").toFixed(0)} buffers)` : "ours not read"}, miniflare's ${theirs.length} isolates used ${sum(theirs, "used").toFixed(0)} / allocated ${sum(theirs, "total").toFixed(0)} MB (largest ${top.map(([id, v]) => `${id} ${v.total.toFixed(0)}`).join(", ")})`;
}

// tcmalloc's and SQLite's own counters, read by calling into the runtime with gdb (workerd links
// tcmalloc statically, so glibc's MALLOC_* settings do not apply to it). Opt-in: it needs gdb and
// ptrace, and stops the process for a moment.
const ALLOCATOR_GDB = `set pagination off
set confirm off
set $v = (unsigned long*) malloc(8)
printf "sqlite %ld\\n", (long) sqlite3_memory_used()
set $ok = (int) MallocExtension_Internal_GetNumericProperty("generic.current_allocated_bytes", 31, $v)
printf "allocated %lu\\n", *$v
set $ok = (int) MallocExtension_Internal_GetNumericProperty("generic.physical_memory_used", 28, $v)
printf "physical %lu\\n", *$v
set $ok = (int) MallocExtension_Internal_GetNumericProperty("tcmalloc.pageheap_free_bytes", 28, $v)
printf "pageheap_free %lu\\n", *$v
call (void) free($v)
detach
quit
`;
const RELEASE_GDB = `set pagination off
set confirm off
call (void) MallocExtension_Internal_ReleaseMemoryToSystem(0xffffffffffff)
detach
quit
`;

function gdbRun(pid, script) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "edgeval-gdb-")), "cmds");
  fs.writeFileSync(file, script);
  try {
    return execFileSync("gdb", ["-p", String(pid), "-batch", "-x", file], {
      encoding: "utf8",
      timeout: 120_000,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

/**
 * MB the runtime's allocator holds: tcmalloc's live allocations (`allocated`), what it has from the
 * OS (`physical`), its free page heap, and SQLite's heap (page caches of D1 and Durable Object
 * storage). With `release`, afterwards asks tcmalloc to hand every free page back and reads RSS
 * again: what RSS drops is memory the allocator kept, not memory in use. Null without gdb.
 */
export function allocatorStats(pid, { release = false } = {}) {
  const read = () => {
    const out = gdbRun(pid, ALLOCATOR_GDB);
    const field = (name) => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(out)?.[1] ?? Number.NaN) / 2 ** 20;
    return { sqlite: field("sqlite"), allocated: field("allocated"), physical: field("physical"), pageheapFree: field("pageheap_free") };
  };
  try {
    const stats = read();
    if (!release) return stats;
    const rssBefore = procMemory(pid)?.rss ?? Number.NaN;
    gdbRun(pid, RELEASE_GDB);
    return { ...stats, releasedMb: rssBefore - (procMemory(pid)?.rss ?? Number.NaN) };
  } catch {
    return null;
  }
}

/** One line of allocatorStats. */
export const formatAllocator = (a) =>
  a
    ? `tcmalloc live ${a.allocated.toFixed(0)} MB of ${a.physical.toFixed(0)} MB from the OS (page heap free ${a.pageheapFree.toFixed(0)}), SQLite ${a.sqlite.toFixed(0)} MB${a.releasedMb === undefined ? "" : `; handing free pages back lowered RSS by ${a.releasedMb.toFixed(0)} MB`}`
    : "allocator: n/a (needs gdb and ptrace)";
