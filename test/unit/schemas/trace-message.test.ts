import { describe, expect, it } from "vitest";
import { ModelConfig } from "../../../src/schemas/model-config";
import { TraceMessage } from "../../../src/schemas/trace-message";

describe("TraceMessage normalises the trace shapes Karenina users have", () => {
  it("keeps edgeval's {role, content} and reads OpenAI tool_calls with JSON-string arguments", () => {
    expect(TraceMessage.parse({ role: "user", content: "Which gene?" })).toEqual({ role: "user", content: "Which gene?" });
    expect(
      TraceMessage.parse({
        role: "assistant",
        content: "",
        tool_calls: [{ id: "c1", type: "function", function: { name: "search", arguments: '{"q":"BCL2"}' } }],
      }),
    ).toEqual({ role: "assistant", content: "", tool_calls: [{ id: "c1", name: "search", arguments: { q: "BCL2" } }] });
  });

  it("reads LangChain dumps (type ai/human/tool, args, extra keys) as Karenina stores them", () => {
    const ai = TraceMessage.parse({
      type: "ai",
      content: "Let me look it up.",
      tool_calls: [{ id: "t1", name: "search", args: { q: "BCL2 chromosome" } }],
      additional_kwargs: {},
      response_metadata: {},
      id: "run-1",
      name: null,
    });
    expect(ai).toEqual({
      role: "assistant",
      content: "Let me look it up.",
      tool_calls: [{ id: "t1", name: "search", arguments: { q: "BCL2 chromosome" } }],
    });
    expect(TraceMessage.parse({ type: "tool", content: "18q21.33", tool_call_id: "t1" })).toEqual({
      role: "tool",
      content: "18q21.33",
      tool_call_id: "t1",
    });
    expect(TraceMessage.parse({ type: "human", content: "Where is BCL2?" })).toEqual({ role: "user", content: "Where is BCL2?" });
  });

  it("reads content blocks: text joined, thinking dropped, tool_use as calls, tool_result as a tool turn", () => {
    expect(
      TraceMessage.parse({
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hmm" },
          { type: "text", text: "BCL2 sits on" },
          { type: "text", text: "chromosome 18." },
          { type: "tool_use", id: "u1", name: "lookup", input: { gene: "BCL2" } },
        ],
      }),
    ).toEqual({
      role: "assistant",
      content: "BCL2 sits on\nchromosome 18.",
      tool_calls: [{ id: "u1", name: "lookup", arguments: { gene: "BCL2" } }],
    });
    expect(
      TraceMessage.parse({
        role: "tool",
        content: [{ type: "tool_result", tool_use_id: "u1", content: [{ type: "text", text: "18q21.33" }] }],
      }),
    ).toEqual({ role: "tool", content: "18q21.33", tool_call_id: "u1" });
  });

  it("refuses a message with neither role nor type, naming what is expected", () => {
    const r = TraceMessage.safeParse({ content: "orphan" });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toContain("role");
    expect(TraceMessage.safeParse({ type: "robot", content: "x" }).success).toBe(false);
  });

  it("accepts a LangChain trace as a manual answer", () => {
    const m = ModelConfig.parse({
      id: "recorded",
      interface: "manual",
      manual_answers: {
        q1: [
          { type: "human", content: "Where?" },
          { type: "ai", content: "On 18q21.33." },
        ],
      },
    });
    expect(m.manual_answers!.q1).toEqual([
      { role: "user", content: "Where?" },
      { role: "assistant", content: "On 18q21.33." },
    ]);
  });
});
