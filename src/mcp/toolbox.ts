/**
 * An answering model's MCP servers as one `AgentToolbox` (src/pipeline/agent): every server is
 * opened (initialize, tools/list), `mcp_tool_filter` keeps only the named tools,
 * `mcp_tool_description_overrides` replaces descriptions, and each call goes to the server that
 * offered the tool. A tool name offered by two servers is refused (the model could not say which).
 *
 * URLs pass the outbound policy twice: here before anything is sent (a clear refusal), and in
 * the guarded fetch for every request. Auth headers come from the tenant's secrets by name
 * (`mcp_auth_secrets`), never from the config.
 */
import type { LlmError, ToolCall } from "../llm/port";
import type { AgentToolsPort } from "../pipeline/agent/answering-agent";
import type { AgentToolbox, ToolOutcome } from "../core-shared/agent-types";
import { mcpConfig, type ModelConfig } from "../schemas/model-config";
import { guardedFetch } from "../outbound/guarded-fetch";
import { scrubDeep } from "../llm/scrubbing";
import { type OutboundPolicy, outboundUrlIssue } from "../outbound/url-policy";
import { type McpError, McpSession } from "./client";

/** Karenina's defaults (the MCP SDK's): 30 s per request, 300 s for an event stream. */
const DEFAULT_HTTP_TIMEOUT_S = 30;
const DEFAULT_SSE_READ_TIMEOUT_S = 300;
/** The most of one tool result the agent is shown. */
export const MAX_TOOL_TEXT = 16_000;

export interface McpToolsDeps {
  policy: OutboundPolicy;
  /** The tenant's MCP token `name` for `url` (src/tenants/key-ring.ts mcpSecret), or why not. */
  secret: (name: string, url: string) => { ok: true; value: string } | { ok: false; error: string };
  /** Every secret the tenant could send, replaced in tool output before the agent or the trace sees it. */
  knownSecrets?: () => readonly string[];
  /** The network fetch under the guard (tests pass their own). */
  fetch?: typeof fetch;
}

/** MCP answers that may pass the guard besides JSON: an event stream, or a bodiless 202 to a notification. */
const mcpAnswer = (res: Response) => res.status === 202 || /event-stream/i.test(res.headers.get("content-type") ?? "");

export function mcpTools(deps: McpToolsDeps): AgentToolsPort {
  const fetcher = guardedFetch(deps.policy, "endpoint", deps.fetch, { alsoAccept: mcpAnswer });
  return {
    async connect(model: ModelConfig) {
      const mcp = mcpConfig(model);
      if (!mcp) return refused("the model has no MCP servers");
      const sessions = new Map<string, McpSession>();
      const owner = new Map<string, string>();
      const specs: AgentToolbox["specs"] = [];
      for (const [server, url] of Object.entries(mcp.servers)) {
        const issue = outboundUrlIssue(url, deps.policy, "endpoint");
        if (issue) return refused(`MCP server "${server}": ${issue}`);
        const headers: Record<string, string> = {};
        const secretName = mcp.auth_secrets?.[server];
        if (secretName) {
          const token = deps.secret(secretName, url);
          if (!token.ok) return refused(`MCP server "${server}" (mcp_auth_secrets): ${token.error}`);
          headers.authorization = `Bearer ${token.value}`;
        }
        const session = new McpSession({
          url,
          fetch: fetcher,
          headers,
          httpTimeoutMs: (mcp.http_timeout_s ?? DEFAULT_HTTP_TIMEOUT_S) * 1000,
          sseReadTimeoutMs: (mcp.sse_read_timeout_s ?? DEFAULT_SSE_READ_TIMEOUT_S) * 1000,
        });
        const init = await session.initialize();
        if (!init.ok) return failed(server, init.error);
        const listed = await session.listTools();
        if (!listed.ok) return failed(server, listed.error);
        for (const tool of listed.value) {
          if (mcp.tool_filter && !mcp.tool_filter.includes(tool.name)) continue;
          const other = owner.get(tool.name);
          if (other)
            return refused(`MCP tool "${tool.name}" is offered by servers "${other}" and "${server}"; keep one with mcp_tool_filter`);
          owner.set(tool.name, server);
          specs.push({
            name: tool.name,
            description: mcp.description_overrides?.[tool.name] ?? tool.description,
            parameters: tool.inputSchema,
          });
        }
        sessions.set(server, session);
      }
      const toolbox: AgentToolbox = {
        specs,
        async call(call: ToolCall): Promise<ToolOutcome> {
          const server = owner.get(call.name);
          const session = server ? sessions.get(server) : undefined;
          if (!session) return { text: `error: there is no tool named ${JSON.stringify(call.name)}`, is_error: true };
          const res = await session.callTool(call.name, call.arguments);
          if (!res.ok) return { text: `error: the tool call failed: ${res.error.message}`, is_error: true };
          const whole = scrubDeep(res.value.text, deps.knownSecrets?.() ?? []);
          const text = whole.length > MAX_TOOL_TEXT ? `${whole.slice(0, MAX_TOOL_TEXT)}\n… (cut at ${MAX_TOOL_TEXT} characters)` : whole;
          return { text, is_error: res.value.isError };
        },
      };
      return { ok: true as const, toolbox, servers: Object.keys(mcp.servers).sort() };
    },
  };
}

function refused(message: string): { ok: false; error: LlmError } {
  return { ok: false, error: { kind: "bad_request", message } };
}

/** A server that cannot be opened: transient failures hand the job back, others are the run's error. */
function failed(server: string, error: McpError): { ok: false; error: LlmError } {
  const message = `MCP server "${server}": ${error.message}`;
  return {
    ok: false,
    error: { kind: error.transient ? "connection" : "bad_request", message, ...(error.status ? { status: error.status } : {}) },
  };
}
