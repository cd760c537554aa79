/**
 * The tool-using agent's ports and state. Platform-free: tools arrive as an `AgentToolbox` (MCP
 * servers at the edge, src/mcp; the R2 workspace for judge agents), checkpoints as a store the
 * job runner backs with R2. Nothing here knows how a tool is reached.
 */
import type { Message, ToolCall, ToolSpec, Usage } from "../llm/port";

/** What one tool call gave back. `is_error`: the tool said it failed (MCP `isError`, or the call could not be made). */
export interface ToolOutcome {
  text: string;
  is_error: boolean;
}

export interface AgentToolbox {
  /** The tools the model is offered (after the config's filter and description overrides). */
  specs: ToolSpec[];
  /** Runs one call; never throws (a failure is an `is_error` outcome the model reads). */
  call(call: ToolCall): Promise<ToolOutcome>;
}

/** Limits of one agent run. A turn is one model call and the tool calls it asked for. */
export interface LoopLimits {
  max_model_calls: number;
  max_tool_calls: number;
  timeout_ms: number;
}

/**
 * Where a run stands: everything needed to carry on after a redelivery. `messages` is the whole
 * conversation (prompt included); `failed_tool_ids` are the calls whose outcome was `is_error`.
 */
export interface LoopState {
  messages: Message[];
  model_calls: number;
  tool_calls: number;
  failed_tool_ids: string[];
  usage: Usage | null;
  /** Wall time already spent on earlier deliveries (the run's timeout covers all of them). */
  elapsed_ms: number;
}

/** Saves a run's state after every model turn and every tool result; the job runner backs it with R2. */
export interface AgentCheckpointPort {
  load(): Promise<LoopState | null>;
  save(state: LoopState): Promise<void>;
}

/** Why a loop stopped short of a final answer. */
export type LoopStop = "model_call_limit" | "tool_call_limit" | "timeout";
