/** The MCP client and toolbox in Node against test/mcp-server: paging, sessions, event streams, filter, overrides, policy, auth, scrubbing. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpSession } from "../../../src/mcp/client";
import { mcpTools } from "../../../src/mcp/toolbox";
import type { OutboundPolicy } from "../../../src/outbound/url-policy";
import { ModelConfig } from "../../../src/schemas/model-config";
// @ts-expect-error plain-Node module without types
import { MCP_TEST_TOKEN, startMcpServer } from "../../mcp-server/server.mjs";

let server: { url: string; close(): Promise<void> };
beforeAll(async () => {
  server = await startMcpServer();
});
afterAll(() => server.close());

const local: OutboundPolicy = { local: true, privateOrigins: new Set(), providerOrigins: new Set() };
const stats = async (tag: string): Promise<any> => (await fetch(`${server.url}/stats/${tag}`)).json();
const agent = (servers: Record<string, string>, extra: Record<string, unknown> = {}) =>
  ModelConfig.parse({ id: "a", interface: "openai", model_name: "m", mcp_urls_dict: servers, ...extra });
const noSecret = () => ({ ok: false as const, error: "none" });

describe("McpSession", () => {
  for (const mode of ["mcp", "sse"] as const) {
    it(`initializes, lists both pages of tools and calls one (${mode === "sse" ? "event-stream" : "JSON"} answers)`, async () => {
      const tag = `s-${mode}-${crypto.randomUUID().slice(0, 6)}`;
      const s = new McpSession({ url: `${server.url}/${mode}/${tag}`, fetch, httpTimeoutMs: 5_000, sseReadTimeoutMs: 5_000 });
      expect((await s.initialize()).ok).toBe(true);
      const tools = await s.listTools();
      expect(tools.ok && tools.value.map((t) => t.name)).toEqual(["capital_of", "population_of"]);
      expect(await s.callTool("capital_of", { country: "Japan" })).toEqual({ ok: true, value: { text: "Tokyo", isError: false } });
      expect(await s.callTool("capital_of", { country: "Mars" })).toEqual({
        ok: true,
        value: { text: "no capital found for Mars", isError: true },
      });
      // The session id came back on every request after initialize.
      expect(await stats(tag)).toEqual({ initialize: 1, tools_list: 2, calls: { capital_of: 2 }, sessions_refused: 0 });
    });
  }

  it("a server that does not answer in mcp_http_timeout is a transient failure", async () => {
    const hang = (() =>
      new Promise<Response>((_r, reject) => setTimeout(() => reject(new DOMException("t", "TimeoutError")), 50))) as typeof fetch;
    const s = new McpSession({ url: "https://mcp.example/x", fetch: hang, httpTimeoutMs: 10, sseReadTimeoutMs: 10 });
    const r = await s.initialize();
    expect(!r.ok && r.error).toMatchObject({ transient: true, message: expect.stringMatching(/mcp_http_timeout/) });
  });
});

/** A server that answers initialize at once with an event stream whose response arrives after `delayMs`; aborting the request ends the stream. */
function slowStream(delayMs: number): typeof fetch {
  return (async (_url: string, init: RequestInit) => {
    const msg = JSON.parse(String(init.body));
    if (msg.id === undefined) return new Response(null, { status: 202 });
    let t: ReturnType<typeof setTimeout> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(ctrl) {
        t = setTimeout(() => {
          ctrl.enqueue(new TextEncoder().encode(`data: ${JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: {} })}\n\n`));
          ctrl.close();
        }, delayMs);
        init.signal?.addEventListener("abort", () => (clearTimeout(t), ctrl.error(init.signal!.reason)));
      },
      // A reader that gives up cancels the stream without aborting the request: the answer must not come after.
      cancel() {
        clearTimeout(t);
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  }) as typeof fetch;
}

describe("event-stream answers and the two timeouts", () => {
  it("a stream longer than mcp_http_timeout but within mcp_sse_read_timeout is read", async () => {
    const s = new McpSession({ url: "https://mcp.example/x", fetch: slowStream(150), httpTimeoutMs: 30, sseReadTimeoutMs: 2_000 });
    expect((await s.initialize()).ok).toBe(true);
  });
  it("a stream past mcp_sse_read_timeout is a transient failure", async () => {
    const s = new McpSession({ url: "https://mcp.example/x", fetch: slowStream(500), httpTimeoutMs: 2_000, sseReadTimeoutMs: 40 });
    const r = await s.initialize();
    expect(!r.ok && r.error).toMatchObject({ transient: true, message: expect.stringMatching(/mcp_sse_read_timeout/) });
  });
});

describe("mcpTools", () => {
  it("offers the filtered tools with overridden descriptions and routes calls to their server", async () => {
    const tag = `t-${crypto.randomUUID().slice(0, 6)}`;
    const tools = mcpTools({ policy: local, secret: noSecret });
    const model = agent(
      { geo: `${server.url}/mcp/${tag}` },
      { mcp_tool_filter: ["population_of"], mcp_tool_description_overrides: { population_of: "How many people live there." } },
    );
    const opened = await tools.connect(model);
    if (!opened.ok) throw new Error(opened.error.message);
    expect(opened.servers).toEqual(["geo"]);
    expect(opened.toolbox.specs).toEqual([
      { name: "population_of", description: "How many people live there.", parameters: expect.objectContaining({ required: ["city"] }) },
    ]);
    expect(await opened.toolbox.call({ id: "1", name: "population_of", arguments: { city: "Lima" } })).toEqual({
      text: "10092000",
      is_error: false,
    });
    expect(await opened.toolbox.call({ id: "2", name: "capital_of", arguments: { country: "Peru" } })).toEqual({
      text: 'error: there is no tool named "capital_of"',
      is_error: true,
    });
    expect((await stats(tag)).calls).toEqual({ population_of: 1 });
  });

  it("refuses a tool name two servers offer", async () => {
    const r = await mcpTools({ policy: local, secret: noSecret }).connect(agent({ a: `${server.url}/mcp/d1`, b: `${server.url}/mcp/d2` }));
    expect(!r.ok && r.error.message).toMatch(/offered by servers "a" and "b"/);
  });

  it("sends nothing to a URL the outbound policy refuses (production: loopback)", async () => {
    const tag = `p-${crypto.randomUUID().slice(0, 6)}`;
    const production: OutboundPolicy = { ...local, local: false };
    const r = await mcpTools({ policy: production, secret: noSecret }).connect(agent({ geo: `${server.url}/mcp/${tag}` }));
    expect(!r.ok && r.error).toMatchObject({ kind: "bad_request", message: expect.stringMatching(/loopback|https/) });
    expect(await stats(tag)).toMatchObject({ initialize: 0 });
  });

  it("sends the named MCP secret as a bearer token, and scrubs secrets from tool output", async () => {
    const tag = `a-${crypto.randomUUID().slice(0, 6)}`;
    const url = `${server.url}/auth/${tag}`;
    const model = agent({ geo: url }, { mcp_auth_secrets: { geo: "GEO" } });
    expect((await mcpTools({ policy: local, secret: noSecret }).connect(model)).ok).toBe(false);
    const tools = mcpTools({
      policy: local,
      secret: (name, u) => (name === "GEO" && u === url ? { ok: true, value: MCP_TEST_TOKEN } : noSecret()),
      knownSecrets: () => ["Paris"],
    });
    const opened = await tools.connect(model);
    if (!opened.ok) throw new Error(opened.error.message);
    expect(await opened.toolbox.call({ id: "1", name: "capital_of", arguments: { country: "France" } })).toEqual({
      text: "[redacted]",
      is_error: false,
    });
  });
});
