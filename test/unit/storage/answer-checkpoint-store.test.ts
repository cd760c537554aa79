import { describe, expect, it } from "vitest";
import type { AnswerArtifact } from "../../../src/pipeline/types";
import { parseAnswerCheckpoint } from "../../../src/storage/answer-checkpoint-store";

describe("parseAnswerCheckpoint", () => {
  const answer: AnswerArtifact = {
    raw_llm_response: "42",
    trace_messages: [
      { role: "user", content: "q" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "search", arguments: { q: "x" } }] },
      { role: "tool", content: "r", tool_call_id: "c1" },
      { role: "assistant", content: "42" },
    ],
    usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4, model: "m", cached: true },
    is_trace: false,
    agent_metrics: {
      iterations: 2,
      tool_calls: 1,
      tools_used: ["search"],
      tool_call_counts: { search: 1 },
      suspect_failed_tool_calls: 0,
      suspect_failed_tools: [],
    },
    answering_mcp_servers: ["s"],
  };

  it("gives back the answer that was saved, field for field", () => {
    expect(parseAnswerCheckpoint(JSON.stringify(answer))).toEqual(answer);
    expect(parseAnswerCheckpoint(JSON.stringify({ raw_llm_response: "a", trace_messages: [], usage: null }))).toEqual({
      raw_llm_response: "a",
      trace_messages: [],
      usage: null,
    });
  });

  it("refuses what is not an answer instead of casting it: not JSON, a missing field, a wrong type, an unknown field", () => {
    expect(parseAnswerCheckpoint("{")).toBeNull();
    expect(parseAnswerCheckpoint(JSON.stringify({ trace_messages: [], usage: null }))).toBeNull();
    expect(parseAnswerCheckpoint(JSON.stringify({ ...answer, raw_llm_response: 42 }))).toBeNull();
    expect(parseAnswerCheckpoint(JSON.stringify({ ...answer, trace_messages: [{ role: "robot", content: "x" }] }))).toBeNull();
    expect(parseAnswerCheckpoint(JSON.stringify({ ...answer, surprise: 1 }))).toBeNull();
  });
});
