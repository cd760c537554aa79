// CPU time of the workerd threads a `wrangler dev` started (Linux /proc; null elsewhere). wrangler
// runs in its own process group (scripts/lib/local-stack.mjs), and workerd stays in it.
import fs from "node:fs";

/** CPU ms per workerd thread in process group `pgid`, keyed "pid/tid". */
export function workerdThreadCpu(pgid) {
  if (!pgid || !fs.existsSync("/proc/self/stat")) return null;
  const ms = new Map();
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const proc = parseStat(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
      if (proc.comm !== "workerd" || Number(proc.fields[2]) !== pgid) continue;
      for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
        const { fields } = parseStat(fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8"));
        ms.set(`${pid}/${tid}`, (Number(fields[11]) + Number(fields[12])) * 10); // utime + stime, 100 ticks/s
      }
    } catch {
      // the process ended while we looked
    }
  }
  return ms;
}

/** CPU ms between two readings: the busiest thread, and all threads together. */
export function cpuBetween(before, after) {
  if (!before || !after) return null;
  let busiest = 0;
  let total = 0;
  for (const [id, t] of after) {
    const d = t - (before.get(id) ?? 0);
    busiest = Math.max(busiest, d);
    total += d;
  }
  return { busiest, total };
}

/** Summed VmRSS (MB) of the workerd processes in process group `pgid` (the worker's isolate and the local simulators). */
export function workerdRssMb(pgid) {
  let kb = 0;
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const { comm, fields } = parseStat(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
      if (comm !== "workerd" || Number(fields[2]) !== pgid) continue;
      kb += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // ended while we looked
    }
  }
  return kb / 1024;
}

/** The workerd processes of process group `pgid` (local stacks run one: every isolate is a thread's work in it). */
export function workerdPids(pgid) {
  const pids = [];
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const { comm, fields } = parseStat(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
      if (comm === "workerd" && Number(fields[2]) === pgid) pids.push(Number(pid));
    } catch {
      // ended while we looked
    }
  }
  return pids;
}

/** /proc stat line: the command (in parentheses, may hold spaces) and the fields after it (state first). */
function parseStat(line) {
  const close = line.lastIndexOf(")");
  return { comm: line.slice(line.indexOf("(") + 1, close), fields: line.slice(close + 2).split(" ") };
}
