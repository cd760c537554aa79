/**
 * The investigation agent: the shared tool loop (src/core-shared/agent-loop.ts) over the workspace
 * tools, bounded by turns (model calls) and time. It ends when the model answers without tool
 * calls; that answer plus every tool exchange is the investigation trace. Running out of turns or
 * time, or a failing model call, is a failed investigation (no trace), as in Karenina where the
 * agent run raises.
 */
import type { LlmError, Message, ModelPort, Usage } from "../../llm/port";
import { freshState, runToolLoop } from "../../core-shared/agent-loop";
import type { AgentToolbox } from "../../core-shared/agent-types";
import { runTool, WORKSPACE_TOOLS } from "./tools";
import type { WorkspacePort } from "./types";

export interface AgentRun {
  system: string;
  user: string;
  workspace: WorkspacePort | null;
  max_turns: number;
  timeout_ms: number;
  now: () => number;
  call_site: string;
}

export type AgentOutcome =
  | { ok: true; trace: string; turns: number; usage: Usage | undefined }
  | { ok: false; error: LlmError | { kind: "agent"; message: string }; usage: Usage | undefined };

/** The read-only workspace tools as a toolbox; none without a workspace. */
export function workspaceToolbox(workspace: WorkspacePort | null): AgentToolbox {
  if (!workspace) return { specs: [], call: async () => ({ text: "error: no workspace", is_error: true }) };
  return {
    specs: WORKSPACE_TOOLS,
    call: async (call) => {
      const text = await runTool(workspace, call);
      return { text, is_error: text.startsWith("error:") };
    },
  };
}

export async function runInvestigation(model: ModelPort, run: AgentRun): Promise<AgentOutcome> {
  const prompt: Message[] = [
    { role: "system", content: run.system },
    { role: "user", content: run.user },
  ];
  const out = await runToolLoop(model, freshState(prompt), {
    toolbox: workspaceToolbox(run.workspace),
    limits: { max_model_calls: run.max_turns, max_tool_calls: Number.POSITIVE_INFINITY, timeout_ms: run.timeout_ms },
    now: run.now,
    call_site: run.call_site,
  });
  const usage = out.state.usage ?? undefined;
  if (out.kind === "error") return { ok: false, error: out.error, usage };
  if (out.kind === "stopped") {
    const message =
      out.stop === "timeout"
        ? `investigation timed out after ${run.timeout_ms / 1000}s`
        : `investigation reached max_turns (${run.max_turns}) without a final answer`;
    return { ok: false, error: { kind: "agent", message }, usage };
  }
  return { ok: true, trace: renderTrace(out.state.messages.slice(prompt.length)), turns: out.state.model_calls, usage };
}

/** The agent's side of the conversation as plain text (the prompt itself is not repeated). */
export function renderTrace(messages: Message[]): string {
  return messages
    .map((m) => {
      if (m.role === "tool") return `[tool result ${m.tool_call_id}]\n${m.content}`;
      const calls = m.tool_calls?.map((c) => `[tool call ${c.id}] ${c.name}(${JSON.stringify(c.arguments)})`).join("\n");
      return [m.content && `[assistant]\n${m.content}`, calls].filter(Boolean).join("\n");
    })
    .join("\n\n");
}
