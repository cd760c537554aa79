// A small MCP server for the tests (plain Node, no dependencies): the Streamable HTTP transport
// with two tools, enough to drive the answering agent end to end.
//
//   POST /mcp/<tag>       JSON answers
//   POST /sse/<tag>       the same, each answer as a one-event event stream
//   POST /auth/<tag>      JSON answers; 401 unless `Authorization: Bearer test-mcp-token`
//   GET  /stats/<tag>     {initialize, tools_list, calls: {tool: n}, sessions_refused}
//
// Tools: `capital_of {country}` → the capital's name (an isError result "no capital found" for an
// unknown country); `population_of {city}` → the population as digits. Every request after
// initialize must carry the Mcp-Session-Id it was given (else 400, counted in sessions_refused).
// The `<tag>` keeps each test's counts apart on the shared server.
import http from "node:http";
import { readBody, sendJson as json } from "../fake-llm/server.mjs";

const CAPITALS = { France: "Paris", Japan: "Tokyo", Peru: "Lima" };
const POPULATIONS = { Paris: "2102650", Tokyo: "14094034", Lima: "10092000" };
export const MCP_TEST_TOKEN = "test-mcp-token";

const TOOLS = [
  {
    name: "capital_of",
    description: "The capital city of a country.",
    inputSchema: { type: "object", properties: { country: { type: "string" } }, required: ["country"] },
  },
  {
    name: "population_of",
    description: "The population of a city.",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
];

function runTool(name, args) {
  if (name === "capital_of") {
    const capital = CAPITALS[args?.country];
    return capital
      ? { content: [{ type: "text", text: capital }] }
      : { content: [{ type: "text", text: `no capital found for ${args?.country}` }], isError: true };
  }
  if (name === "population_of") {
    const n = POPULATIONS[args?.city];
    return n
      ? { content: [{ type: "text", text: n }] }
      : { content: [{ type: "text", text: `unknown city ${args?.city}` }], isError: true };
  }
  return null;
}

export async function startMcpServer({ port = 0, host = "127.0.0.1" } = {}) {
  const stats = new Map();
  const sessions = new Set();
  let nextSession = 1;
  const statsOf = (tag) => {
    if (!stats.has(tag)) stats.set(tag, { initialize: 0, tools_list: 0, calls: {}, sessions_refused: 0 });
    return stats.get(tag);
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://mcp");
    const [, mode, tag = ""] = url.pathname.split("/");
    if (req.method === "GET" && mode === "stats") return json(res, 200, statsOf(tag));
    if (req.method !== "POST" || !["mcp", "sse", "auth"].includes(mode)) return json(res, 404, { error: "not found" });
    if (mode === "auth" && req.headers.authorization !== `Bearer ${MCP_TEST_TOKEN}`) return json(res, 401, { error: "unauthorized" });
    let msg;
    try {
      msg = JSON.parse(await readBody(req));
    } catch {
      return json(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
    }
    const s = statsOf(tag);
    const headers = {};
    if (msg.method === "initialize") {
      const id = `session-${nextSession++}`;
      sessions.add(id);
      headers["mcp-session-id"] = id;
      s.initialize += 1;
    } else if (!sessions.has(req.headers["mcp-session-id"])) {
      s.sessions_refused += 1;
      return json(res, 400, { jsonrpc: "2.0", id: msg.id ?? null, error: { code: -32000, message: "missing or unknown Mcp-Session-Id" } });
    }
    if (msg.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    let result;
    if (msg.method === "initialize") {
      result = {
        protocolVersion: msg.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "edgeval-test-mcp", version: "1" },
      };
    } else if (msg.method === "tools/list") {
      s.tools_list += 1;
      // Two pages, so the client's paging is exercised.
      result = msg.params?.cursor === "page2" ? { tools: [TOOLS[1]] } : { tools: [TOOLS[0]], nextCursor: "page2" };
    } else if (msg.method === "tools/call") {
      const name = msg.params?.name;
      s.calls[name] = (s.calls[name] ?? 0) + 1;
      result = runTool(name, msg.params?.arguments);
      if (!result)
        return reply(res, mode, headers, { jsonrpc: "2.0", id: msg.id, error: { code: -32602, message: `unknown tool ${name}` } });
    } else {
      return reply(res, mode, headers, { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "method not found" } });
    }
    return reply(res, mode, headers, { jsonrpc: "2.0", id: msg.id, result });
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  const actual = server.address().port;
  return {
    port: actual,
    url: `http://${host}:${actual}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function reply(res, mode, headers, body) {
  if (mode !== "sse") return json(res, 200, body, headers);
  // A notification first, then the response: the client must pick the response by its id.
  const events = `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "working" } })}\n\nevent: message\ndata: ${JSON.stringify(body)}\n\n`;
  res.writeHead(200, { "content-type": "text/event-stream", ...headers });
  res.end(events);
}
