import { describe, expect, it } from "vitest";
import { estimateRun } from "../../../src/submit/estimate";
import { pipelineSettings } from "../../../src/submit/plan";
import { ModelConfig } from "../../../src/schemas/model-config";
import { VerificationConfig } from "../../../src/schemas/verification-config";
import { Question } from "../../../src/schemas/benchmark";

const judge = ModelConfig.parse({ id: "judge", interface: "openai", model_name: "gpt-4o-mini" });
const answerer = ModelConfig.parse({ id: "ans", interface: "openai", model_name: "gpt-4o" });
const field = (name: string) => ({ name, type: "str", description: `the ${name}`, ground_truth: "x", verify_with: { type: "ExactMatch" } });
const question = (fields: string[], regexOnly = false) =>
  Question.parse({
    id: "q1",
    question: "Which gene is it?",
    template: regexOnly
      ? { fields: [], regex: [{ name: "r", pattern: "TP53", expected: "TP53", match_type: "contains" }] }
      : { fields: fields.map(field) },
  });

function estimate(config: Record<string, unknown>, q = question(["a", "b", "c"]), answering = [answerer]) {
  const parsed = VerificationConfig.parse({ answering_models: answering, parsing_models: [judge], ...config });
  return estimateRun({
    questions: [q],
    answering_models: parsed.answering_models,
    parsing_models: parsed.parsing_models,
    replicate_count: parsed.replicate_count,
    settings: pipelineSettings(parsed),
  });
}

describe("dry-run estimate", () => {
  it("a plain template run makes one answer and one parse per job, times replicates", () => {
    const e = estimate({ replicate_count: 3 });
    expect(e.per_stage.answer_generation!.calls).toBe(3);
    expect(e.per_stage.parsing!.calls).toBe(3);
    expect(e.calls).toBe(6);
  });

  it("abstention, sufficiency and deep judgment full add their calls; excerpt retries count only in calls_max", () => {
    const e = estimate({
      abstention_enabled: true,
      sufficiency_enabled: true,
      deep_judgment_mode: "full",
      deep_judgment_excerpt_retry_attempts: 2,
    });
    expect(Object.fromEntries(Object.entries(e.per_stage).map(([k, v]) => [k, v.calls]))).toEqual({
      answer_generation: 1,
      abstention_check: 1,
      sufficiency_check: 1,
      deep_judgment_excerpts: 1,
      deep_judgment_reasoning: 1,
      parsing: 1,
    });
    expect(e.calls_max).toBe(e.calls + 2);
  });

  it("deep judgment reasoning_only skips excerpts; more fields mean more output tokens", () => {
    const few = estimate({ deep_judgment_mode: "reasoning_only" }, question(["a"]));
    const many = estimate({ deep_judgment_mode: "reasoning_only" }, question(["a", "b", "c", "d", "e"]));
    expect(few.per_stage.deep_judgment_excerpts).toBeUndefined();
    expect(few.per_stage.deep_judgment_reasoning!.calls).toBe(1);
    expect(many.output_tokens).toBeGreaterThan(few.output_tokens);
  });

  it("the embedding check is conditional: no expected call, two in calls_max", () => {
    const e = estimate({ embedding_check_enabled: true });
    expect(e.per_stage.embedding_check).toMatchObject({ calls: 0, calls_max: 2 });
  });

  it("a regex-only template makes no parse call, and a manual answerer no answer call (its real text is read)", () => {
    const manual = ModelConfig.parse({ interface: "manual", manual_answers: { q1: "x".repeat(4_000) } });
    const e = estimate({}, question([], true), [manual]);
    expect(e.calls).toBe(0);
    const longAnswer = estimate({}, question(["a"]), [manual]);
    expect(longAnswer.per_stage.parsing!.input_tokens).toBeGreaterThan(1_000);
  });

  it("an MCP answering agent counts one turn on the expected path and up to its model_call_limit in calls_max", () => {
    const mcp = { mcp_urls_dict: { bio: "https://mcp.example/bio" } };
    const limited = ModelConfig.parse({
      id: "agent",
      interface: "openai",
      model_name: "gpt-4o",
      ...mcp,
      agent_middleware: { limits: { model_call_limit: 7 } },
    });
    // 1 question × 2 replicates: 2 jobs, each 1..7 agent turns and one parse.
    const e = estimate({ replicate_count: 2 }, question(["a", "b", "c"]), [limited]);
    expect(e.per_stage.answer_generation).toMatchObject({ calls: 2, calls_max: 14 });
    expect(e.per_stage.parsing).toMatchObject({ calls: 2, calls_max: 2 });
    expect(e).toMatchObject({ calls: 4, calls_max: 16 });
    // Without limits: Karenina's model_call_limit default, 25.
    const unlimited = ModelConfig.parse({ id: "agent", interface: "openai", model_name: "gpt-4o", ...mcp });
    expect(estimate({}, question(["a"]), [unlimited]).per_stage.answer_generation).toMatchObject({ calls: 1, calls_max: 25 });
    // A plain answerer stays one call.
    expect(estimate({}).per_stage.answer_generation).toMatchObject({ calls: 1, calls_max: 1 });
  });

  it("agentic parsing (always) replaces the parse: an investigation of 1..max_turns turns and one extraction", () => {
    // 3 fields: the extraction writes 3 × 8 = 24 tokens, the report 40 + 24 = 64; 2 replicates.
    const e = estimate({ replicate_count: 2, agentic_parsing: true, agentic_parsing_max_turns: 5, deep_judgment_mode: "full" });
    expect(e.per_stage.parsing).toBeUndefined();
    expect(e.per_stage.deep_judgment_excerpts).toBeUndefined();
    expect(e.per_stage.agentic_parsing_investigation).toMatchObject({ calls: 2, calls_max: 10, output_tokens: 128 });
    expect(e.per_stage.agentic_parsing_extraction).toMatchObject({ calls: 2, calls_max: 2, output_tokens: 48 });
    expect(e).toMatchObject({ calls: 6, calls_max: 14 });
  });

  it("dynamic agentic parsing expects one decision; the investigation and extraction count in calls_max only", () => {
    const e = estimate({ agentic_parsing: true, agentic_parsing_trigger: "dynamic", agentic_parsing_max_turns: 5 });
    expect(e.per_stage.dynamic_parsing_decision).toMatchObject({ calls: 1, calls_max: 1, output_tokens: 64 });
    expect(e.per_stage.agentic_parsing_investigation).toEqual({ calls: 0, calls_max: 5, input_tokens: 0, output_tokens: 0, cost_usd: 0 });
    expect(e.per_stage.agentic_parsing_extraction).toEqual({ calls: 0, calls_max: 1, input_tokens: 0, output_tokens: 0, cost_usd: 0 });
    // answer 1 + decision 1; at most answer 1 + decision 1 + 5 turns + extraction 1.
    expect(e).toMatchObject({ calls: 2, calls_max: 8 });
  });

  it("is priced from the table, and names models without a price", () => {
    const e = estimate({});
    const ans = e.per_model["answering:ans"]!;
    expect(ans.cost_usd).toBeCloseTo((ans.input_tokens * 2.5 + ans.output_tokens * 10) / 1e6, 12);
    const unpriced = ModelConfig.parse({ id: "u", interface: "openai", model_name: "gpt-unknown" });
    expect(estimate({}, question(["a"]), [unpriced]).unpriced_models).toEqual(["openai:gpt-unknown"]);
  });
});
