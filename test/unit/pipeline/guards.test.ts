import { describe, expect, it } from "vitest";
import { runPipeline } from "../../../src/pipeline/orchestrator";
import { VerificationResult } from "../../../src/schemas/result";
import { ModelConfig } from "../../../src/schemas/model-config";
import { scriptedPort } from "../../support/scripted-port";
import { clock, input, judgeBy, memoryLog } from "./helpers";

const REFUSAL = "I cannot provide that information. Please consult a biology textbook.";

describe("AbstentionCheck (stage 5)", () => {
  it("does not run unless abstention_enabled", async () => {
    const judge = judgeBy({ Answer: () => ({ organelle: "mitochondrion" }) });
    const { result } = await runPipeline(input(), { answerer: scriptedPort(), judge, clock: clock() });
    expect(judge.calls).toHaveLength(1);
    expect(result.template).toMatchObject({ abstention_check_performed: false, abstention_detected: null });
  });

  it("forces verify_result false on a refusal, records the reasoning, skips parsing and logs the override", async () => {
    const log = memoryLog();
    const judge = judgeBy({
      AbstentionResult: () => ({ reasoning: '"I cannot provide that information." No committed answer.', abstention_detected: true }),
    });
    const { result } = await runPipeline(input({}, { abstention_enabled: true, sufficiency_enabled: true }), {
      answerer: scriptedPort({ chat: () => REFUSAL }),
      judge,
      clock: clock(),
      log,
    });
    expect(judge.calls.map((c) => c.op)).toEqual(["structured"]); // no sufficiency, no parsing call
    expect(judge.calls[0]!.messages.map((m) => m.content).join("\n")).toContain(REFUSAL);
    expect(result.template).toMatchObject({
      abstention_check_performed: true,
      abstention_detected: true,
      abstention_override_applied: true,
      abstention_reasoning: '"I cannot provide that information." No committed answer.',
      sufficiency_check_performed: false,
      parsed_llm_response: null,
      template_verification_performed: false,
      verify_result: false,
    });
    expect(result.metadata.failure).toMatchObject({ category: "abstention", group: "abstained", stage: "abstention_check" });
    expect(result.metadata.completed_without_errors).toBe(true);
    expect(result.template?.usage_metadata).toHaveProperty("abstention_check");
    expect(log.lines).toContainEqual(
      expect.objectContaining({
        level: "warn",
        event: "verify_result_override",
        fields: expect.objectContaining({ stage: "abstention_check" }),
      }),
    );
    expect(VerificationResult.parse(result)).toEqual(result);
  });

  it('lets a committed answer through to parsing (a "false" string reads as false, as in Pydantic)', async () => {
    const judge = judgeBy({
      AbstentionResult: () => ({ reasoning: "No disclaimer.", abstention_detected: "false" }),
      Answer: () => ({ organelle: "mitochondrion" }),
    });
    const { result } = await runPipeline(input({}, { abstention_enabled: true }), { answerer: scriptedPort(), judge, clock: clock() });
    expect(result.template).toMatchObject({
      abstention_check_performed: true,
      abstention_detected: false,
      abstention_override_applied: false,
      verify_result: true,
    });
    expect(result.metadata.failure).toBeNull();
  });

  it("is non-fatal when its judge fails: a warning, no verdict, the pipeline goes on", async () => {
    const judge = judgeBy({
      AbstentionResult: () => ({ kind: "invalid_output", message: "not json" }),
      Answer: () => ({ organelle: "mitochondrion" }),
    });
    const { result } = await runPipeline(input({}, { abstention_enabled: true }), { answerer: scriptedPort(), judge, clock: clock() });
    expect(result.template).toMatchObject({ abstention_check_performed: false, abstention_detected: null, verify_result: true });
    expect(result.metadata.warnings).toEqual([expect.stringContaining("abstention check failed (invalid_output)")]);
    expect(result.metadata.failure).toBeNull();
  });

  it("asks for a later delivery when its judge failed transiently, and records the result meanwhile", async () => {
    const judge = judgeBy({
      AbstentionResult: () => ({ kind: "rate_limit", message: "slow down", status: 429, retryAfterMs: 1000 }),
      Answer: () => ({ organelle: "mitochondrion" }),
    });
    const { result, retryable } = await runPipeline(input({}, { abstention_enabled: true }), {
      answerer: scriptedPort(),
      judge,
      clock: clock(),
    });
    expect(retryable).toMatchObject({ kind: "rate_limit", retryAfterMs: 1000 });
    expect(result.metadata.failure).toBeNull();
    expect(result.template).toMatchObject({ abstention_check_performed: false, verify_result: true });
    expect(result.metadata.warnings).toEqual([expect.stringContaining("abstention check failed (rate_limit)")]);
  });

  it("appends prompt_config.abstention_detection to the judge's system prompt", async () => {
    const judge = judgeBy({ AbstentionResult: () => ({ reasoning: "r", abstention_detected: false }), Answer: () => ({ organelle: "x" }) });
    await runPipeline(input({}, { abstention_enabled: true, prompt_config: { abstention_detection: "Treat 'unclear' as a refusal." } }), {
      answerer: scriptedPort(),
      judge,
      clock: clock(),
    });
    const system = judge.calls[0]!.messages[0]!;
    expect(system.role).toBe("system");
    expect(system.content.endsWith("Treat 'unclear' as a refusal.")).toBe(true);
    expect(system.content).toContain("decision_procedure");
  });
});

describe("SufficiencyCheck (stage 6)", () => {
  it("fails an insufficient response without parsing, and shows the judge every field as required", async () => {
    const log = memoryLog();
    const judge = judgeBy({ SufficiencyResult: () => ({ reasoning: "organelle: nothing maps.", sufficient: false }) });
    const { result } = await runPipeline(input({}, { sufficiency_enabled: true }), {
      answerer: scriptedPort({ chat: () => "Energy is complicated." }),
      judge,
      clock: clock(),
      log,
    });
    expect(judge.calls).toHaveLength(1);
    const prompt = judge.calls[0]!.messages.map((m) => m.content).join("\n");
    expect(prompt).toMatch(/"required": \[\s*"organelle"\s*\]/);
    expect(prompt).not.toContain("mitochondrion");
    expect(result.template).toMatchObject({
      sufficiency_check_performed: true,
      sufficiency_detected: false,
      sufficiency_override_applied: true,
      sufficiency_reasoning: "organelle: nothing maps.",
      template_verification_performed: false,
      verify_result: false,
    });
    expect(result.metadata.failure).toMatchObject({ category: "sufficiency", group: "abstained", stage: "sufficiency_check" });
    expect(log.lines.some((l) => l.event === "verify_result_override" && l.fields?.stage === "sufficiency_check")).toBe(true);
  });

  it("records a sufficient response and continues", async () => {
    const judge = judgeBy({
      SufficiencyResult: () => ({ reasoning: "ok", sufficient: true }),
      Answer: () => ({ organelle: "mitochondrion" }),
    });
    const { result } = await runPipeline(input({}, { sufficiency_enabled: true }), { answerer: scriptedPort(), judge, clock: clock() });
    expect(result.template).toMatchObject({
      sufficiency_check_performed: true,
      sufficiency_detected: true,
      sufficiency_override_applied: false,
      verify_result: true,
    });
    expect(Object.keys(result.template!.usage_metadata!)).toEqual(["answer_generation", "sufficiency_check", "parsing", "total"]);
    expect(result.template!.usage_metadata!.total).toMatchObject({ input_tokens: 30, output_tokens: 15, total_tokens: 45 });
  });
});

const manual = (trace: unknown) => ModelConfig.parse({ interface: "manual", manual_answers: { q1: trace } });

describe("manual traces, TraceValidationAutoFail (stage 4) and RecursionLimitAutoFail (stage 3)", () => {
  const goodTrace = [
    { role: "user", content: "Which organelle makes ATP?" },
    { role: "assistant", content: "Let me look that up." },
    { role: "tool", content: "mitochondria: ATP synthase" },
    { role: "assistant", content: "The mitochondrion." },
  ];

  it("grades a manual trace on its final AI message and records the whole trace", async () => {
    const judge = judgeBy({ Answer: () => ({ organelle: "mitochondrion" }) });
    const { result } = await runPipeline(input({ answering: manual(goodTrace) }), { answerer: scriptedPort(), judge, clock: clock() });
    expect(result.evaluation_input).toBe("The mitochondrion.");
    expect(result.used_full_trace).toBe(false);
    expect(result.trace_extraction_error).toBeNull();
    expect(result.template!.raw_llm_response).toBe(
      "--- AI Message ---\nLet me look that up.\n\n--- Tool Message (call_id: unknown) ---\nmitochondria: ATP synthase\n\n--- AI Message ---\nThe mitochondrion.",
    );
    expect(result.template!.trace_messages).toHaveLength(4);
    const parsedFrom = judge.calls[0]!.messages[1]!.content;
    expect(parsedFrom).toContain("The mitochondrion.");
    expect(parsedFrom).not.toContain("ATP synthase");
    expect(result.template!.verify_result).toBe(true);
  });

  it("gives the judge the full trace with use_full_trace_for_template", async () => {
    const judge = judgeBy({ Answer: () => ({ organelle: "mitochondrion" }) });
    const { result } = await runPipeline(input({ answering: manual(goodTrace) }, { use_full_trace_for_template: true }), {
      answerer: scriptedPort(),
      judge,
      clock: clock(),
    });
    expect(result.used_full_trace).toBe(true);
    expect(result.evaluation_input).toContain("--- Tool Message");
    expect(judge.calls[0]!.messages[1]!.content).toContain("mitochondria: ATP synthase");
  });

  it("autofails a trace whose last message is not an AI message, skipping sufficiency and parsing", async () => {
    const log = memoryLog();
    const judge = judgeBy({ AbstentionResult: () => ({ reasoning: "none", abstention_detected: false }) });
    const trace = goodTrace.slice(0, 3);
    const { result } = await runPipeline(input({ answering: manual(trace) }, { abstention_enabled: true, sufficiency_enabled: true }), {
      answerer: scriptedPort(),
      judge,
      clock: clock(),
      log,
    });
    expect(judge.calls.map((c) => c.op)).toEqual(["structured"]); // abstention still runs (spec), nothing else
    expect(result.metadata.failure).toMatchObject({ category: "trace_validation", group: "autofail", stage: "trace_validation_autofail" });
    expect(result.metadata.failure!.reason).toContain("Last message in trace is not an AI message");
    expect(result.metadata.completed_without_errors).toBe(true);
    expect(result.template).toMatchObject({ verify_result: false, sufficiency_check_performed: false, parsed_llm_response: null });
    expect(result.trace_extraction_error).toBe("Failed to extract final AI message: Last message in trace is not an AI message");
    expect(result.used_full_trace).toBe(true);
    expect(log.lines.some((l) => l.event === "verify_result_override" && l.fields?.stage === "trace_validation_autofail")).toBe(true);
  });

  it("autofails an answer that hit the recursion limit and skips every judge call", async () => {
    const judge = judgeBy({});
    const answer = {
      ok: true as const,
      answer: { raw_llm_response: "partial", trace_messages: [], usage: null, recursion_limit_reached: true },
    };
    const { result } = await runPipeline(input({ answer }, { abstention_enabled: true, sufficiency_enabled: true }), {
      answerer: scriptedPort(),
      judge,
      clock: clock(),
    });
    expect(judge.calls).toHaveLength(0);
    expect(result.template).toMatchObject({ recursion_limit_reached: true, verify_result: false });
    expect(result.metadata.failure).toMatchObject({ category: "recursion_limit", group: "autofail" });
  });

  it("does not run the trace guard on a plain string answer", async () => {
    const judge = judgeBy({ Answer: () => ({ organelle: "mitochondrion" }) });
    const { result } = await runPipeline(input({ answering: manual("mitochondrion") }), {
      answerer: scriptedPort(),
      judge,
      clock: clock(),
    });
    expect(result.metadata.failure).toBeNull();
    expect(result.evaluation_input).toBe("mitochondrion");
    expect(result.template!.raw_llm_response).toBe("mitochondrion");
  });
});
