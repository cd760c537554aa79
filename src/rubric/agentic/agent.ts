/**
 * The investigation agent: a tool loop through `ModelPort.toolTurn`, bounded by turns and time.
 * It ends when the model answers without tool calls; that answer plus every tool exchange is the
 * investigation trace. Running out of turns or time, or a failing model call, is a failed
 * investigation (no trace), as in Karenina where the agent run raises.
 */
import type { LlmError, Message, ModelPort, Usage } from "../../llm/port";
import { addUsage } from "../../pipeline/usage";
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

export async function runInvestigation(model: ModelPort, run: AgentRun): Promise<AgentOutcome> {
  const messages: Message[] = [
    { role: "system", content: run.system },
    { role: "user", content: run.user },
  ];
  const deadline = run.now() + run.timeout_ms;
  let usage: Usage | undefined;
  for (let turn = 1; turn <= run.max_turns; turn++) {
    if (run.now() > deadline) return { ok: false, error: { kind: "agent", message: `investigation timed out after ${run.timeout_ms / 1000}s` }, usage };
    const res = await model.toolTurn({ messages, tools: run.workspace ? WORKSPACE_TOOLS : [], call_site: `${run.call_site}/turn${turn}` });
    if (!res.ok) return { ok: false, error: res.error, usage };
    usage = addUsage(usage, res.value.usage);
    const { text, tool_calls } = res.value;
    if (tool_calls.length === 0 || !run.workspace) {
      messages.push({ role: "assistant", content: text });
      return { ok: true, trace: renderTrace(messages.slice(2)), turns: turn, usage };
    }
    messages.push({ role: "assistant", content: text, tool_calls });
    for (const call of tool_calls) messages.push({ role: "tool", tool_call_id: call.id, content: await runTool(run.workspace, call) });
  }
  return { ok: false, error: { kind: "agent", message: `investigation reached max_turns (${run.max_turns}) without a final answer` }, usage };
}

/** The agent's side of the conversation as plain text (the prompt itself is not repeated). */
function renderTrace(messages: Message[]): string {
  return messages
    .map((m) => {
      if (m.role === "tool") return `[tool result ${m.tool_call_id}]\n${m.content}`;
      const calls = m.tool_calls?.map((c) => `[tool call ${c.id}] ${c.name}(${JSON.stringify(c.arguments)})`).join("\n");
      return [m.content && `[assistant]\n${m.content}`, calls].filter(Boolean).join("\n");
    })
    .join("\n\n");
}
