// Placeholder: replaced by the full fake LLM server.
import http from "node:http";
export async function startFakeLlm({ port = 0 } = {}) {
  const server = http.createServer((req, res) => { res.writeHead(200, { "content-type": "application/json" }); res.end("{}"); });
  await new Promise((r) => server.listen(port, "127.0.0.1", r));
  return { port: server.address().port, url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}
