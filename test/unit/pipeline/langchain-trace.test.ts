import { describe, expect, it } from "vitest";
import { runPipeline } from "../../../src/pipeline/orchestrator";
import { ModelConfig } from "../../../src/schemas/model-config";
import { scriptedPort } from "../../support/scripted-port";
import { clock, input } from "./helpers";

/** A manual model whose answer for q1 is a LangChain-dumped agent trace, as Karenina stores them. */
function manualTrace(trace: unknown[]) {
  return ModelConfig.parse({ id: "recorded", interface: "manual", manual_answers: { q1: trace } });
}

const toolTurn = [
  { type: "human", content: "Which organelle makes ATP?" },
  { type: "ai", content: "", tool_calls: [{ id: "t1", name: "lookup", args: { q: "ATP synthesis" } }], additional_kwargs: {} },
  { type: "tool", content: "ATP synthase sits in the inner mitochondrial membrane.", tool_call_id: "t1" },
];

describe("a manual answer given as a LangChain trace", () => {
  it("is judged on its final AI message, with the harmonised trace recorded", async () => {
    const judge = scriptedPort({ structured: () => ({ organelle: "mitochondrion" }) });
    const answering = manualTrace([...toolTurn, { type: "ai", content: "The mitochondrion." }]);
    const { result } = await runPipeline(input({ answering }), { answerer: scriptedPort(), judge, clock: clock() });
    expect(result.template?.verify_result).toBe(true);
    expect(result.evaluation_input).toBe("The mitochondrion.");
    expect(result.template?.raw_llm_response).toContain("--- Tool Message (call_id: t1) ---");
    expect(judge.calls[0]!.messages.map((m) => m.content).join("\n")).toContain("The mitochondrion.");
  });

  it("autofails with trace_validation when the trace ends on a tool message, without a judge call", async () => {
    const judge = scriptedPort();
    const { result } = await runPipeline(input({ answering: manualTrace(toolTurn) }), { answerer: scriptedPort(), judge, clock: clock() });
    expect(result.metadata.failure).toMatchObject({ category: "trace_validation", group: "autofail" });
    expect(result.template?.verify_result).toBe(false);
    expect(judge.calls).toHaveLength(0);
  });
});
