/**
 * The investigation agent's tools over the workspace port: list, read, grep. Read-only on
 * purpose — an evaluator inspects the answer's artifacts, it does not change them. Each tool's
 * output is capped so one call cannot flood the agent's context.
 */
import type { ToolCall, ToolSpec } from "../../llm/port";
import type { WorkspacePort } from "./types";

export const MAX_TOOL_OUTPUT = 8_000;
const MAX_LIST = 200;
const MAX_HITS = 50;

export const WORKSPACE_TOOLS: ToolSpec[] = [
  {
    name: "list_files",
    description: "List files in the workspace (path and size in bytes), optionally under a folder prefix. Check sizes before reading.",
    parameters: { type: "object", properties: { prefix: { type: "string" } } },
  },
  {
    name: "read_file",
    description: `Read a workspace file as text: at most ${MAX_TOOL_OUTPUT} characters from an optional character offset.`,
    parameters: { type: "object", properties: { path: { type: "string" }, offset: { type: "integer" } }, required: ["path"] },
  },
  {
    name: "grep",
    description: "Search workspace files for a regular expression; returns matching lines with path and line number.",
    parameters: { type: "object", properties: { pattern: { type: "string" }, prefix: { type: "string" } }, required: ["pattern"] },
  },
];

const str = (args: unknown, key: string): string | undefined => {
  const v = args && typeof args === "object" ? (args as Record<string, unknown>)[key] : undefined;
  return typeof v === "string" ? v : undefined;
};

/** Runs one tool call; a failure is reported to the agent as text, never thrown. */
export async function runTool(ws: WorkspacePort, call: ToolCall): Promise<string> {
  const a = call.arguments;
  switch (call.name) {
    case "list_files": {
      const r = await ws.list(str(a, "prefix"));
      if (!r.ok) return `error: ${r.error}`;
      const lines = r.value.slice(0, MAX_LIST).map((e) => `${e.path}\t${e.size}`);
      return cap(
        lines.length ? lines.join("\n") + (r.value.length > MAX_LIST ? `\n… ${r.value.length - MAX_LIST} more` : "") : "(no files)",
      );
    }
    case "read_file": {
      const path = str(a, "path");
      if (!path) return "error: read_file needs a path";
      const offset = Number((a as Record<string, unknown>)?.offset ?? 0);
      const r = await ws.read(path, Number.isFinite(offset) && offset > 0 ? Math.floor(offset) : 0, MAX_TOOL_OUTPUT);
      return r.ok ? cap(r.value) : `error: ${r.error}`;
    }
    case "grep": {
      const pattern = str(a, "pattern");
      if (!pattern) return "error: grep needs a pattern";
      const r = await ws.grep(pattern, str(a, "prefix"));
      if (!r.ok) return `error: ${r.error}`;
      return cap(
        r.value
          .slice(0, MAX_HITS)
          .map((h) => `${h.path}:${h.line}: ${h.text}`)
          .join("\n") || "(no matches)",
      );
    }
    default:
      return `error: unknown tool ${call.name}`;
  }
}

function cap(text: string): string {
  return text.length > MAX_TOOL_OUTPUT ? `${text.slice(0, MAX_TOOL_OUTPUT)}\n… (truncated)` : text;
}
