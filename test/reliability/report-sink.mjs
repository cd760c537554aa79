// Where the reliability reports land on disk. Tests run inside workerd, which cannot write the
// host's files, so they POST each report here (test/reliability/write-report.ts); global-setup starts
// this server for the whole vitest run. Plain Node, no dependencies beyond zod's schema in report.ts.
//
//   POST /reports  body: a ReliabilityReport → writes <dir>/<name>.json; 400 naming the field otherwise
import http from "node:http";
import fs from "node:fs/promises";
import path from "node:path";

export async function startReportSink({ dir, validate }) {
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const send = (status, json) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(json));
    };
    if (req.method !== "POST" || req.url !== "/reports") return send(404, { error: "POST /reports only" });
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
