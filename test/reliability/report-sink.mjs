// Where the reliability reports land on disk. Tests run inside workerd, which cannot write the
// host's files, so they POST each report here (test/reliability/write-report.ts); global-setup starts
// this server for the whole vitest run. Plain Node, no dependencies beyond zod's schema in report.ts.
//
//   POST /reports  body: a ReliabilityReport → writes <dir>/<name>.json; 400 naming the field otherwise
//   GET  /memory   {workerd_rss_mb}: the resident memory of the workerd processes this vitest run
//                  started (descendants of this process; other runs on the machine are not counted)
//   GET  /memory?collect=1  the same after a full garbage collection in every isolate of that workerd
//                  ({workerd_rss_mb, raw_rss_mb: before it, collected: isolates that answered}), when
//                  vitest runs with --inspect=<inspectorPort> (npm run reliability's soak lane); without
//                  an inspector, collected is 0 and workerd_rss_mb is raw_rss_mb.
import http from "node:http";
import fs from "node:fs/promises";
import path from "node:path";
import { collectAll } from "../../scripts/lib/workerd-gc.mjs";

/** `inspectorPort`: workerd's inspector (vitest --inspect), for /memory?collect=1. */
export async function startReportSink({ dir, validate, inspectorPort = null }) {
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const send = (status, json) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(json));
    };
    if (req.method === "GET" && req.url === "/memory") return send(200, { workerd_rss_mb: await workerdRssMb(process.pid) });
    if (req.method === "GET" && req.url === "/memory?collect=1") return send(200, await retainedMemory(inspectorPort));
    if (req.method !== "POST" || req.url !== "/reports") return send(404, { error: "POST /reports or GET /memory" });
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return send(400, { error: "body: not JSON" });
    }
    const problem = validate(body);
    if (problem) return send(400, { error: problem });
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, `${body.name}.json`), `${JSON.stringify(body, null, 2)}\n`);
    send(201, { written: `${body.name}.json` });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: server.address().port, close: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * RSS before and after a full collection in every isolate: what the workers retain, not the
 * garbage a busy isolate has not collected yet (scripts/lib/workerd-gc.mjs says why that is large).
 */
const answered = new Set();
async function retainedMemory(inspectorPort) {
  const raw = await workerdRssMb(process.pid);
  if (!inspectorPort) return { workerd_rss_mb: raw, raw_rss_mb: raw, collected: 0 };
  // The isolates that answered the first call are the ones asked after it (some of miniflare's never answer).
  const { collected } = await collectAll(inspectorPort, { answered }).catch(() => ({ collected: 0 }));
  return { workerd_rss_mb: await workerdRssMb(process.pid), raw_rss_mb: raw, collected };
}

/** Sum of VmRSS (MB) of the workerd processes descended from `root` (Linux /proc). */
async function workerdRssMb(root) {
  const procs = [];
  for (const pid of await fs.readdir("/proc").catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    const status = await fs.readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    const name = /^Name:\s*(.+)$/m.exec(status)?.[1];
    const ppid = Number(/^PPid:\s*(\d+)$/m.exec(status)?.[1]);
    const rssKb = Number(/^VmRSS:\s*(\d+)/m.exec(status)?.[1] ?? 0);
    if (name) procs.push({ pid: Number(pid), name, ppid, rssKb });
  }
  const parent = new Map(procs.map((p) => [p.pid, p.ppid]));
  const descends = (pid) => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  const kb = procs.filter((p) => p.name.startsWith("workerd") && descends(p.pid)).reduce((s, p) => s + p.rssKb, 0);
  return Math.round(kb / 1024);
}
