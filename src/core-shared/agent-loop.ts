/**
 * The one tool loop of edgeval's agents (the MCP answering agent, agentic parsing, agentic rubric
 * traits): ask the model, run the tools it asks for, feed the results back, until it answers
 * without tool calls or a limit stops it. Limits: model calls, tool calls, wall time.
 *
 * With a checkpoint port the state is saved after every model turn and every tool result, and a
 * run given a saved state carries on from it: tool calls of the last turn that have no result yet
 * run first, then the next model turn. So a redelivered job repeats only calls whose result was
 * not saved. The wall time spent before the checkpoint counts against the timeout.
 */
import type { LlmError, ModelPort } from "../llm/port";
import { addUsage } from "./usage";
import type { AgentCheckpointPort, AgentToolbox, LoopLimits, LoopState, LoopStop } from "./agent-types";

export interface LoopRun {
  toolbox: AgentToolbox;
  limits: LoopLimits;
  now: () => number;
  /** Prefix of each model call's call site (`…/turnN`): the cache and the prompt nonces key on it. */
  call_site: string;
  checkpoint?: AgentCheckpointPort;
}

export type LoopOutcome =
  | { kind: "final"; state: LoopState }
  | { kind: "stopped"; stop: LoopStop; state: LoopState }
  | { kind: "error"; error: LlmError; state: LoopState };

export function freshState(messages: LoopState["messages"]): LoopState {
  return { messages: [...messages], model_calls: 0, tool_calls: 0, failed_tool_ids: [], usage: null, elapsed_ms: 0 };
}

export async function runToolLoop(model: ModelPort, start: LoopState, run: LoopRun): Promise<LoopOutcome> {
  const state: LoopState = { ...start, messages: [...start.messages], failed_tool_ids: [...start.failed_tool_ids] };
  const began = run.now() - state.elapsed_ms;
  const deadline = began + run.limits.timeout_ms;
  const save = async () => {
    state.elapsed_ms = run.now() - began;
    await run.checkpoint?.save(state);
  };
  for (;;) {
    for (const call of pendingCalls(state)) {
      if (state.tool_calls >= run.limits.max_tool_calls) return { kind: "stopped", stop: "tool_call_limit", state };
      if (run.now() > deadline) return { kind: "stopped", stop: "timeout", state };
      const out = await run.toolbox.call(call);
      state.messages.push({ role: "tool", tool_call_id: call.id, content: out.text });
      state.tool_calls += 1;
      if (out.is_error) state.failed_tool_ids.push(call.id);
      await save();
    }
    if (state.model_calls >= run.limits.max_model_calls) return { kind: "stopped", stop: "model_call_limit", state };
    if (run.now() > deadline) return { kind: "stopped", stop: "timeout", state };
    const res = await model.toolTurn({
      messages: state.messages,
      tools: run.toolbox.specs,
      call_site: `${run.call_site}/turn${state.model_calls + 1}`,
    });
    if (!res.ok) return { kind: "error", error: res.error, state };
    state.model_calls += 1;
    state.usage = addUsage(state.usage ?? undefined, res.value.usage);
    // A model offered no tools that still asks for one has nothing to wait for: its text is the answer.
    const calls = run.toolbox.specs.length > 0 ? res.value.tool_calls : [];
    state.messages.push(
      calls.length > 0 ? { role: "assistant", content: res.value.text, tool_calls: calls } : { role: "assistant", content: res.value.text },
    );
    await save();
    if (calls.length === 0) return { kind: "final", state };
  }
}

/** Tool calls of the last assistant turn that have no result message yet. */
function pendingCalls(state: LoopState) {
  const at = state.messages.findLastIndex((m) => m.role === "assistant");
  const turn = state.messages[at];
  if (!turn?.tool_calls?.length) return [];
  const answered = new Set(state.messages.slice(at + 1).map((m) => m.tool_call_id));
  return turn.tool_calls.filter((c) => !answered.has(c.id));
}
