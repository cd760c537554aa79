/** The shared tool loop: limits, the timeout's partial state, and resuming from a checkpoint. */
import { describe, expect, it } from "vitest";
import type { Message, ToolCall } from "../../../src/llm/port";
import { freshState, runToolLoop } from "../../../src/core-shared/agent-loop";
import { agentMetrics } from "../../../src/pipeline/agent/metrics";
import type { AgentToolbox, LoopState } from "../../../src/core-shared/agent-types";
import { toolPort } from "../../support/tool-port";

const prompt: Message[] = [{ role: "user", content: "capital of France, and its population?" }];
const call = (id: string, name: string, args: unknown): ToolCall => ({ id, name, arguments: args });

/** Two tools; counts every call so a resumed run can be checked for repeats. */
function geoTools() {
  const calls: string[] = [];
  const toolbox: AgentToolbox = {
    specs: [
      { name: "capital_of", description: "", parameters: { type: "object" } },
      { name: "population_of", description: "", parameters: { type: "object" } },
    ],
    async call(c) {
      calls.push(c.id);
      if (c.name === "capital_of")
        return (c.arguments as { country: string }).country === "France"
          ? { text: "Paris", is_error: false }
          : { text: "no capital", is_error: true };
      return { text: "2102650", is_error: false };
    },
  };
  return { toolbox, calls };
}

/** Turn n of the script, chosen by the last tool result. */
const script = (messages: Message[]) => {
  const last = messages.at(-1);
  if (last?.role !== "tool") return { tool_calls: [call("c1", "capital_of", { country: "France" })] };
  if (last.content === "Paris") return { tool_calls: [call("c2", "population_of", { city: "Paris" })] };
  return { text: `Paris, ${last.content} people` };
};

const limits = { max_model_calls: 25, max_tool_calls: 50, timeout_ms: 60_000 };
const now = () => 1_000;

describe("runToolLoop", () => {
  it("runs turns until the model answers without tool calls", async () => {
    const { toolbox, calls } = geoTools();
    const out = await runToolLoop(toolPort({ turn: script }), freshState(prompt), { toolbox, limits, now, call_site: "t" });
    expect(out.kind).toBe("final");
    expect(out.state.messages.at(-1)).toEqual({ role: "assistant", content: "Paris, 2102650 people" });
    expect(out.state).toMatchObject({ model_calls: 3, tool_calls: 2, failed_tool_ids: [] });
    expect(calls).toEqual(["c1", "c2"]);
    expect(agentMetrics(out.state.messages.slice(1))).toMatchObject({
      iterations: 3,
      tool_calls: 2,
      tools_used: ["capital_of", "population_of"],
      suspect_failed_tool_calls: 0,
    });
  });

  it("stops at the model-call limit and at the tool-call limit, keeping the state", async () => {
    const forever = () => ({ tool_calls: [call(crypto.randomUUID(), "capital_of", { country: "France" })] });
    const a = await runToolLoop(toolPort({ turn: forever }), freshState(prompt), {
      toolbox: geoTools().toolbox,
      limits: { ...limits, max_model_calls: 2 },
      now,
      call_site: "t",
    });
    expect(a).toMatchObject({ kind: "stopped", stop: "model_call_limit", state: { model_calls: 2, tool_calls: 2 } });
    const b = await runToolLoop(toolPort({ turn: forever }), freshState(prompt), {
      toolbox: geoTools().toolbox,
      limits: { ...limits, max_tool_calls: 3 },
      now,
      call_site: "t",
    });
    expect(b).toMatchObject({ kind: "stopped", stop: "tool_call_limit", state: { model_calls: 4, tool_calls: 3 } });
  });

  it("stops at the wall-time limit with the partial conversation", async () => {
    let t = 0;
    const clock = () => (t += 400);
    const out = await runToolLoop(toolPort({ turn: script }), freshState(prompt), {
      toolbox: geoTools().toolbox,
      limits: { ...limits, timeout_ms: 1_000 },
      now: clock,
      call_site: "t",
    });
    expect(out.kind === "stopped" && out.stop).toBe("timeout");
    expect(out.state.messages.length).toBeGreaterThan(1);
    expect(out.state.messages.at(-1)?.content).not.toContain("people");
  });

  it("resumed from a checkpoint, runs only the tool calls without a saved result, then the next turn", async () => {
    const saves: LoopState[] = [];
    const checkpoint = { load: async () => null, save: async (s: LoopState) => void saves.push(structuredClone(s)) };
    const full = await runToolLoop(toolPort({ turn: script }), freshState(prompt), {
      toolbox: geoTools().toolbox,
      limits,
      now,
      call_site: "t",
      checkpoint,
    });
    expect(full.kind).toBe("final");
    // One save per model turn and per tool result: turn, result, turn, result, turn.
    expect(saves.map((s) => s.messages.at(-1)?.role)).toEqual(["assistant", "tool", "assistant", "tool", "assistant"]);
    // Resume after the 3rd save (turn 2 asked for population_of, its result was not saved).
    const { toolbox, calls } = geoTools();
    const model = toolPort({ turn: script });
    const resumed = await runToolLoop(model, saves[2]!, { toolbox, limits, now, call_site: "t" });
    expect(calls).toEqual(["c2"]);
    expect(model.turns).toHaveLength(1);
    expect(resumed.state.messages).toEqual(full.state.messages);
    expect(resumed.state).toMatchObject({ model_calls: 3, tool_calls: 2 });
  });

  it("a tool error is a result the model reads, flagged for agent_metrics", async () => {
    const turn = (messages: Message[]) =>
      messages.at(-1)?.role === "tool"
        ? { text: "I could not find it." }
        : { tool_calls: [call("x", "capital_of", { country: "Atlantis" })] };
    const out = await runToolLoop(toolPort({ turn }), freshState(prompt), { toolbox: geoTools().toolbox, limits, now, call_site: "t" });
    expect(out.state.failed_tool_ids).toEqual(["x"]);
    // "no capital" matches none of Karenina's patterns: only the flag makes it suspect.
    expect(agentMetrics(out.state.messages.slice(1), out.state.failed_tool_ids)).toMatchObject({
      suspect_failed_tool_calls: 1,
      suspect_failed_tools: ["capital_of"],
    });
    expect(agentMetrics(out.state.messages.slice(1))).toMatchObject({ suspect_failed_tool_calls: 0 });
  });
});
