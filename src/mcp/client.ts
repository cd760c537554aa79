/**
 * A minimal MCP client over the Streamable HTTP transport (MCP 2025-06-18): JSON-RPC requests
 * POSTed to the server's URL, each answered with a JSON body or an event stream that carries the
 * response; the server's `Mcp-Session-Id` is sent back on every later request. Only what an
 * answering agent needs: initialize, tools/list (paged), tools/call.
 *
 * Not the official SDK: its runtime dependencies include express, cors and cross-spawn (server
 * and stdio sides an edge client never loads), and its Client validates tool output schemas with
 * Ajv, which compiles validators with `new Function` — refused by workerd — unless a second
 * validator package is added. Four JSON-RPC methods are less code than that wiring.
 *
 * Every request goes through the `fetch` it is given (the outbound policy's guarded fetch at the
 * edge). Failures are `McpError`s with a transient flag, never thrown past `McpSession`'s methods.
 */

export const MCP_PROTOCOL_VERSION = "2025-06-18";

export interface McpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface McpError {
  message: string;
  /** A later attempt may succeed (network failure, 5xx, 429, timeout). */
  transient: boolean;
  status?: number;
}

export type McpResult<T> = { ok: true; value: T } | { ok: false; error: McpError };

export interface McpSessionOptions {
  url: string;
  fetch: typeof fetch;
  headers?: Record<string, string>;
  /** Milliseconds until a server's answer starts (Karenina's mcp_http_timeout, 30 s). */
  httpTimeoutMs: number;
  /** Milliseconds to read an event-stream answer to its end (Karenina's mcp_sse_read_timeout, 300 s). */
  sseReadTimeoutMs: number;
}

/** Most pages of tools/list read; a server that pages on past this is cut off there. */
const MAX_TOOL_PAGES = 20;

export class McpSession {
  private sessionId: string | null = null;
  private nextId = 1;

  constructor(private readonly opts: McpSessionOptions) {}

  async initialize(): Promise<McpResult<void>> {
    const init = await this.request("initialize", {
      protocolVersion: MCP_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "edgeval", version: "0.1.0" },
    });
    if (!init.ok) return init;
    return this.notify("notifications/initialized");
  }

  async listTools(): Promise<McpResult<McpTool[]>> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const res = await this.request("tools/list", cursor ? { cursor } : {});
      if (!res.ok) return res;
      const body = res.value as { tools?: unknown; nextCursor?: unknown };
      for (const t of Array.isArray(body.tools) ? body.tools : []) {
        if (!t || typeof t !== "object" || typeof (t as McpTool).name !== "string") continue;
        const tool = t as Partial<McpTool> & { name: string };
        tools.push({
          name: tool.name,
          description: typeof tool.description === "string" ? tool.description : "",
          inputSchema: tool.inputSchema && typeof tool.inputSchema === "object" ? tool.inputSchema : { type: "object" },
        });
      }
      if (typeof body.nextCursor !== "string" || !body.nextCursor) break;
      cursor = body.nextCursor;
    }
    return { ok: true, value: tools };
  }

  /** The tool's text content, and whether the tool reported an error (`isError`). */
  async callTool(name: string, args: unknown): Promise<McpResult<{ text: string; isError: boolean }>> {
    const res = await this.request("tools/call", { name, arguments: args && typeof args === "object" ? args : {} });
    if (!res.ok) return res;
    const body = res.value as { content?: unknown; isError?: unknown; structuredContent?: unknown };
    const blocks = Array.isArray(body.content) ? body.content : [];
    const parts = blocks.map((b: { type?: unknown; text?: unknown }) =>
      b?.type === "text" && typeof b.text === "string" ? b.text : `[${String(b?.type ?? "unknown")} content]`,
    );
    if (parts.length === 0 && body.structuredContent !== undefined) parts.push(JSON.stringify(body.structuredContent));
    return { ok: true, value: { text: parts.join("\n"), isError: body.isError === true } };
  }

  private async notify(method: string): Promise<McpResult<void>> {
    const res = await this.post({ jsonrpc: "2.0", method });
    if (!res.ok) return res;
    res.value.done();
    await res.value.response.body?.cancel().catch(() => {});
    return { ok: true, value: undefined };
  }

  private async request(method: string, params: unknown): Promise<McpResult<unknown>> {
    const id = this.nextId++;
    const res = await this.post({ jsonrpc: "2.0", id, method, params });
    if (!res.ok) return res;
    const { response, done } = res.value;
    if (method === "initialize") this.sessionId = response.headers.get("mcp-session-id");
    const type = response.headers.get("content-type") ?? "";
    const stream = /event-stream/i.test(type);
    // An event stream is bounded by mcp_sse_read_timeout alone; a JSON body still by mcp_http_timeout.
    if (stream) done();
    const message = stream ? await this.readStream(response, id) : await readJson(response).finally(done);
    if (!message.ok) return message;
    const m = message.value as { error?: { message?: unknown; code?: unknown }; result?: unknown };
    if (m.error)
      return fail(`${method}: the server answered error ${String(m.error.code ?? "")} ${String(m.error.message ?? "")}`.trim(), false);
    return { ok: true, value: m.result ?? {} };
  }

  /** Sends one message; `done` ends its mcp_http_timeout (the caller reads the body first, or hands a stream to its own timer). */
  private async post(body: unknown): Promise<McpResult<{ response: Response; done: () => void }>> {
    const headers: Record<string, string> = {
      ...this.opts.headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    if (this.sessionId) {
      headers["mcp-session-id"] = this.sessionId;
      headers["mcp-protocol-version"] = MCP_PROTOCOL_VERSION;
    }
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new DOMException("mcp_http_timeout", "TimeoutError")), this.opts.httpTimeoutMs);
    const done = () => clearTimeout(timer);
    let res: Response;
    try {
      res = await this.opts.fetch(this.opts.url, { method: "POST", headers, body: JSON.stringify(body), signal: abort.signal });
    } catch (err) {
      done();
      const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
      return fail(
        timedOut ? `no answer within ${this.opts.httpTimeoutMs / 1000} s (mcp_http_timeout)` : `could not reach the server: ${String(err)}`,
        true,
      );
    }
    if (!res.ok) {
      const detail = await res.text().catch(() => "");
      done();
      const transient = res.status === 429 || res.status >= 500;
      return {
        ok: false,
        error: { message: `HTTP ${res.status}${detail ? `: ${detail.slice(0, 300)}` : ""}`, transient, status: res.status },
      };
    }
    return { ok: true, value: { response: res, done } };
  }

  /** Reads server-sent events until the JSON-RPC response to `id` arrives (requests and notifications in between are skipped). */
  private async readStream(res: Response, id: number): Promise<McpResult<unknown>> {
    if (!res.body) return fail("the event stream has no body", true);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    const timer = setTimeout(() => reader.cancel().catch(() => {}), this.opts.sseReadTimeoutMs);
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end = buffer.search(/\r?\n\r?\n/);
        while (end >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
          const data = event
            .split(/\r?\n/)
            .filter((l) => l.startsWith("data:"))
            .map((l) => l.slice(5).replace(/^ /, ""))
            .join("\n");
          if (data) {
            const parsed = parseJson(data);
            if (parsed && typeof parsed === "object" && (parsed as { id?: unknown }).id === id) return { ok: true, value: parsed };
          }
          end = buffer.search(/\r?\n\r?\n/);
        }
      }
      return fail(
        `the event stream ended without the response (or ran past ${this.opts.sseReadTimeoutMs / 1000} s, mcp_sse_read_timeout)`,
        true,
      );
    } finally {
      clearTimeout(timer);
      reader.cancel().catch(() => {});
    }
  }
}

async function readJson(res: Response): Promise<McpResult<unknown>> {
  const text = await res.text().catch(() => null);
  const parsed = text === null ? undefined : parseJson(text);
  return parsed === undefined ? fail("the server's answer is not JSON", false) : { ok: true, value: parsed };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const fail = <T = never>(message: string, transient: boolean): McpResult<T> => ({ ok: false, error: { message, transient } });
