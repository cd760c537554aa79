/**
 * Stage 2 for an answering model with MCP servers (`mcp_urls_dict`): the tool loop over the
 * servers' tools instead of one chat call (Karenina's AgentPort path).
 *
 * - The trace is the whole conversation after the prompt, in the model port's message shape
 *   (`trace_messages`); `raw_llm_response` is its harmonised text; judges read it as a trace
 *   (final AI message unless `use_full_trace_for_template`), and stage 4 validates it.
 * - Reaching the model-call or tool-call limit is Karenina's recursion limit: the run ends,
 *   the trace is kept and stage 3 fails the answer.
 * - Reaching the wall-time limit keeps the partial trace (`response_timeout_partial`).
 * - A model call that fails ends the answer with that error (a transient one hands the job back;
 *   with a checkpoint port the next delivery carries on from the last saved step).
 */
import type { LlmError, Message } from "../../llm/port";
import { agentConfig, type ModelConfig } from "../../schemas/model-config";
import { stageErrorFromLlm } from "../llm-failure";
import { formatTrace } from "../trace";
import type { AnswerOutcome } from "../types";
import { freshState, runToolLoop } from "../../core-shared/agent-loop";
import { agentMetrics } from "./metrics";
import type { AgentCheckpointPort, AgentToolbox, LoopLimits, LoopState } from "../../core-shared/agent-types";
import type { ModelPort } from "../../llm/port";

/** Opens a model's MCP servers (src/mcp at the edge): their tools as one toolbox, or why not. */
export interface AgentToolsPort {
  connect(model: ModelConfig): Promise<{ ok: true; toolbox: AgentToolbox; servers: string[] } | { ok: false; error: LlmError }>;
}

/** Karenina's defaults: agent_middleware.limits (model_call_limit 25, tool_call_limit 50), agent_timeout 180 s. */
export const DEFAULT_AGENT_LIMITS: LoopLimits = { max_model_calls: 25, max_tool_calls: 50, timeout_ms: 180_000 };

export function agentLimits(model: ModelConfig): LoopLimits {
  const a = agentConfig(model);
  return {
    max_model_calls: a?.model_call_limit ?? DEFAULT_AGENT_LIMITS.max_model_calls,
    max_tool_calls: a?.tool_call_limit ?? DEFAULT_AGENT_LIMITS.max_tool_calls,
    timeout_ms: a?.timeout_s != null ? a.timeout_s * 1000 : DEFAULT_AGENT_LIMITS.timeout_ms,
  };
}

export interface AgentAnswerPorts {
  answerer: ModelPort;
  agentTools?: AgentToolsPort;
  checkpoint?: AgentCheckpointPort;
  now: () => number;
}

export async function agentAnswer(model: ModelConfig, prompt: Message[], ports: AgentAnswerPorts): Promise<AnswerOutcome> {
  if (!ports.agentTools) {
    return {
      ok: false,
      error: { category: "unexpected_error", stage: "generate_answer", reason: "this deployment cannot reach MCP servers" },
    };
  }
  const opened = await ports.agentTools.connect(model);
  if (!opened.ok) return { ok: false, error: stageErrorFromLlm("generate_answer", opened.error, "MCP servers could not be opened") };
  const saved = await ports.checkpoint?.load();
  const start: LoopState = saved ?? freshState(prompt);
  const out = await runToolLoop(ports.answerer, start, {
    toolbox: opened.toolbox,
    limits: agentLimits(model),
    now: ports.now,
    call_site: "generate_answer",
    checkpoint: ports.checkpoint,
  });
  if (out.kind === "error") return { ok: false, error: stageErrorFromLlm("generate_answer", out.error, "answering agent's model failed") };
  const trace = out.state.messages.slice(prompt.length);
  return {
    ok: true,
    answer: {
      raw_llm_response: formatTrace(trace),
      trace_messages: trace,
      usage: out.state.usage,
      is_trace: true,
      recursion_limit_reached: out.kind === "stopped" && out.stop !== "timeout",
      response_timeout_partial: out.kind === "stopped" && out.stop === "timeout",
      agent_metrics: agentMetrics(trace, out.state.failed_tool_ids),
      answering_mcp_servers: opened.servers,
    },
  };
}
