import { describe, expect, it } from "vitest";
import { FAILURE_CATEGORIES, FAILURE_GROUP, Failure, VerificationResult, type VerificationResultInput } from "../../../src/schemas/result";
import { expectIssue, parseOk } from "./issues";

describe("failure taxonomy", () => {
  it("has Karenina's 14 categories in 5 groups", () => {
    expect(FAILURE_CATEGORIES).toHaveLength(14);
    expect(new Set(Object.values(FAILURE_GROUP))).toEqual(new Set(["content", "autofail", "retry", "abstained", "system"]));
    expect(FAILURE_GROUP).toMatchObject({
      content: "content",
      recursion_limit: "autofail",
      rate_limit: "retry",
      sufficiency: "abstained",
      parsing: "system",
    });
  });
  it("computes the group from the category and ignores an incoming one", () => {
    expect(parseOk(Failure, { category: "parsing", stage: "parse_template", reason: "bad JSON", group: "content" })).toEqual({
      category: "parsing",
      stage: "parse_template",
      reason: "bad JSON",
      group: "system",
    });
  });
  it("limits reason to 500 characters like Karenina", () => {
    expectIssue(Failure, { category: "content", stage: "s", reason: "x".repeat(501) }, "reason", /500/);
  });
});

const identity = { interface: "openai", model_name: "gpt-4o", tools: [] };
const sampleResult: VerificationResultInput = {
  metadata: {
    question_id: "q1",
    template_id: "abc",
    result_id: "0123456789abcdef",
    question_text: "What is the target of venetoclax?",
    raw_answer: "BCL2",
    keywords: null,
    run_name: null,
    replicate: 1,
    answering: identity,
    parsing: { ...identity, config_id: "judge" },
    answering_system_prompt: "You are an expert assistant.",
    parsing_system_prompt: null,
    execution_time: 1.25,
    timestamp: "2026-01-01T00:00:00.000Z",
    completed_without_errors: true,
    error: null,
    failure: { category: "content", stage: "verify_template", reason: "verify() returned False" },
    caveats: [],
    warnings: [],
    evaluation_mode: "template_only",
    few_shot_enabled: false,
    few_shot_example_count: 0,
  },
  template: {
    raw_llm_response: "It targets BCL2 (NCT01328626).",
    trace_messages: [{ role: "assistant", content: "It targets BCL2 (NCT01328626)." }],
    parsed_llm_response: { target: "BCL2" },
    parsed_gt_response: { target: "BCL2" },
    template_verification_performed: true,
    verify_result: false,
    verify_granular_result: 0.5,
    field_verification_error: null,
    field_results: { target: true, other: null },
    field_scores: { target: 1, other: null },
    composition_strategy: "all_of",
    regex_validations_performed: true,
    regex_validation_results: { nct: true },
    regex_validation_details: {
      nct: {
        pattern: "NCT\\d{8}",
        expected: 1,
        match_type: "count",
        matches_found: ["NCT01328626"],
        match_count: 1,
        success_reason: "Found exactly 1 matches as expected",
      },
    },
    regex_overall_success: true,
    regex_extraction_results: { nct: ["NCT01328626"] },
    embedding_check_performed: false,
    embedding_similarity_score: null,
    embedding_override_applied: false,
    embedding_model_used: null,
    abstention_check_performed: false,
    abstention_detected: null,
    abstention_override_applied: false,
    abstention_reasoning: null,
    sufficiency_check_performed: false,
    sufficiency_detected: null,
    sufficiency_override_applied: false,
    sufficiency_reasoning: null,
    recursion_limit_reached: false,
    usage_metadata: {
      parsing: { input_tokens: 10, output_tokens: 5, total_tokens: 15, model: "claude-haiku-4-5" },
      total: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    },
  },
  evaluation_input: "It targets BCL2 (NCT01328626).",
  used_full_trace: false,
  trace_extraction_error: null,
};

describe("VerificationResult", () => {
  it("parses a full template_only result and adds the failure group", () => {
    expect(parseOk(VerificationResult, sampleResult).metadata.failure?.group).toBe("content");
  });
  it("allows a null template section (no template stage ran)", () => {
    parseOk(VerificationResult, { ...sampleResult, template: null });
  });
  it("rejects an unknown key at any depth", () => {
    expectIssue(
      VerificationResult,
      { ...sampleResult, metadata: { ...sampleResult.metadata, score: 1 } },
      "metadata",
      /Unrecognized key: "score"/,
    );
    expectIssue(
      VerificationResult,
      { ...sampleResult, metadata: { ...sampleResult.metadata, answering: { ...identity, tier: "x" } } },
      "metadata.answering",
      /Unrecognized key: "tier"/,
    );
  });
  it("rejects an unknown failure category", () => {
    expectIssue(
      VerificationResult,
      { ...sampleResult, metadata: { ...sampleResult.metadata, failure: { category: "oops", stage: "s", reason: "r" } } },
      "metadata.failure.category",
      /Invalid option/,
    );
  });
});
