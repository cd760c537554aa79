/**
 * The MCP answering agent through the whole pipeline (core): stages 2-4 on what the agent loop
 * returns, with a scripted model and toolbox (the MCP side is test/integration/mcp-agent.test.ts).
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../../../src/llm/port";
import type { AgentToolsPort } from "../../../../src/pipeline/agent/answering-agent";
import { runPipeline } from "../../../../src/pipeline/orchestrator";
import { ModelConfig } from "../../../../src/schemas/model-config";
import { VerificationResult } from "../../../../src/schemas/result";
import type { PipelineSettings } from "../../../../src/pipeline/types";
import { judgeBy } from "../helpers";
import { call, toolPort } from "../../../support/tool-port";
import { input } from "../helpers";

const agent = ModelConfig.parse({
  id: "agent",
  interface: "openai_compatible",
  model_name: "m",
  base_url: "http://x/v1",
  mcp_urls_dict: { bio: "https://mcp.example/bio" },
  agent_timeout: 1,
});

const tools: AgentToolsPort = {
  connect: async () => ({
    ok: true,
    servers: ["bio"],
    toolbox: {
      specs: [{ name: "lookup", description: "", parameters: { type: "object" } }],
      call: async () => ({ text: "ATP synthase is in the mitochondrion", is_error: false }),
    },
  }),
};

/** 400 ms a tick: the 1 s agent_timeout passes during the second turn's tools. */
const slowClock = () => {
  let t = 0;
  return { now: () => (t += 400) };
};

async function run(
  turn: (m: Message[]) => { text?: string; tool_calls?: ReturnType<typeof call>[] },
  agentTools: AgentToolsPort | undefined,
  clock = { now: () => 0 },
  settings: Partial<PipelineSettings> = {},
) {
  const judge = judgeBy({ Answer: () => ({ organelle: "mitochondrion" }) });
  const out = await runPipeline(input({ answering: agent }, settings), { answerer: toolPort({ turn }), judge, clock, agentTools });
  expect(VerificationResult.safeParse(out.result).success).toBe(true);
  return { result: out.result, judge, retryable: out.retryable };
}

/**
 * Answers in its first turn but asks for one more lookup; the slow clock passes the 1 s
 * agent_timeout before that tool runs, so the partial trace ends in an AI message with text
 * (stage 4 accepts it).
 */
const answersThenChecks = () => ({ text: "The mitochondrion. Let me double-check.", tool_calls: [call("lookup", { q: "ATP" })] });

describe("MCP answering agent in the pipeline", () => {
  it("a final answer after tool calls is graded from the final AI message", async () => {
    const { result } = await run(
      (m) => (m.at(-1)?.role === "tool" ? { text: "The mitochondrion." } : { tool_calls: [call("lookup", { q: "ATP" })] }),
      tools,
    );
    expect(result.template).toMatchObject({
      verify_result: true,
      recursion_limit_reached: false,
      response_timeout_partial: false,
      answering_mcp_servers: ["bio"],
    });
    expect(result.evaluation_input).toBe("The mitochondrion.");
    expect(result.metadata.answering.tools).toEqual(["bio"]);
  });

  it("the wall-time limit keeps the partial trace; one without a final answer fails at stage 4, not as an error", async () => {
    const forever = () => ({ tool_calls: [call("lookup", { q: "ATP" }, crypto.randomUUID())] });
    const { result, judge } = await run(forever, tools, slowClock());
    expect(result.template!.response_timeout_partial).toBe(true);
    expect(result.template!.recursion_limit_reached).toBe(false);
    // Cut off mid-loop: the last message is a tool call or its result, never a final text answer.
    const last = result.template!.trace_messages.at(-1)!;
    expect(last.role === "tool" || (last.tool_calls?.length ?? 0) > 0).toBe(true);
    expect(result.template!.trace_messages.length).toBeGreaterThan(0);
    expect(result.metadata.failure).toMatchObject({ category: "trace_validation", stage: "trace_validation_autofail" });
    expect(result.metadata.completed_without_errors).toBe(true);
    expect(judge.calls).toHaveLength(0);
  });

  it("allow_partial_trace_scoring (default true): a partial trace that ends in an answer is graded, with the partial_content caveat", async () => {
    const { result, judge } = await run(answersThenChecks, tools, slowClock());
    expect(result.template).toMatchObject({ response_timeout_partial: true, verify_result: true });
    expect(result.evaluation_input).toBe("The mitochondrion. Let me double-check.");
    expect(result.metadata.failure).toBeNull();
    expect(result.metadata.caveats).toEqual(["partial_content"]);
    expect(judge.calls).toHaveLength(1);
  });

  it("allow_partial_trace_scoring false: the same partial trace is kept but not scored — a timeout failure saying why, not retried, no judge call", async () => {
    const { result, judge, retryable } = await run(answersThenChecks, tools, slowClock(), { allow_partial_trace_scoring: false });
    expect(result.template).toMatchObject({ response_timeout_partial: true, verify_result: null, template_verification_performed: false });
    expect(result.template!.trace_messages.at(-1)).toMatchObject({ role: "assistant", content: "The mitochondrion. Let me double-check." });
    expect(result.metadata.failure).toEqual({
      category: "timeout",
      group: "retry",
      stage: "generate_answer",
      reason:
        "the answering agent reached its agent_timeout (1 s) with a partial trace of 1 message; allow_partial_trace_scoring is false, so it is not scored",
      details: { error_message: expect.stringContaining("allow_partial_trace_scoring is false") },
    });
    expect(result.metadata.completed_without_errors).toBe(false);
    expect(result.metadata.caveats).toEqual(["partial_content"]);
    expect(retryable).toBeNull();
    expect(judge.calls).toHaveLength(0);
  });

  it("allow_partial_trace_scoring false changes nothing for an agent that finishes in time", async () => {
    const { result } = await run(
      (m) => (m.at(-1)?.role === "tool" ? { text: "The mitochondrion." } : { tool_calls: [call("lookup", { q: "ATP" })] }),
      tools,
      undefined,
      { allow_partial_trace_scoring: false },
    );
    expect(result.template).toMatchObject({ response_timeout_partial: false, verify_result: true });
    expect(result.metadata.failure).toBeNull();
    expect(result.metadata.caveats).toEqual([]);
  });

  it("servers that cannot be opened are an answering error (transient → retry group), never a wrong answer", async () => {
    const down: AgentToolsPort = {
      connect: async () => ({ ok: false, error: { kind: "connection", message: 'MCP server "bio": could not reach the server' } }),
    };
    const { result } = await run(() => ({ text: "unused" }), down);
    expect(result.template!.verify_result).toBeNull();
    expect(result.metadata.failure).toMatchObject({ category: "connection", group: "retry", stage: "generate_answer" });
    const none = await run(() => ({ text: "unused" }), undefined);
    expect(none.result.metadata.error).toMatch(/cannot reach MCP servers/);
  });
});
