import { describe, expect, it } from "vitest";
import { classifyFailure, collectCaveats } from "../../../src/pipeline/failure";
import type { PipelineState, StageError, VerificationArtifact } from "../../../src/pipeline/types";
import { FAILURE_CATEGORIES, FAILURE_GROUP } from "../../../src/schemas/result";

const base = (): PipelineState => ({ started_at_ms: 0, parse_performed: false, usage: {}, stages_run: [] });
const verification = (verify_result: boolean): VerificationArtifact => ({
  verify_result,
  field_verification_result: verify_result,
  verify_granular_result: null,
  field_results: { answer: verify_result },
  field_scores: { answer: verify_result ? 1 : 0 },
  composition_strategy: "field_check",
  field_verification_error: null,
  regex_validations_performed: false,
  regex_validation_results: null,
  regex_validation_details: null,
  regex_overall_success: null,
  regex_extraction_results: null,
});
const error = (category: StageError["category"], stage: StageError["stage"] = "parse_template"): StageError => ({
  category,
  stage,
  reason: `${category} happened`,
});
const guard = (override: boolean, reasoning = "why") => ({ performed: true, detected: override, override_applied: override, reasoning });

/** One constructed state per category: the classifier must name exactly that category. */
const STATES: Record<(typeof FAILURE_CATEGORIES)[number], PipelineState> = {
  content: { ...base(), verification: verification(false) },
  recursion_limit: { ...base(), autofail: { category: "recursion_limit", stage: "recursion_limit_autofail", reason: "limit" } },
  trace_validation: { ...base(), autofail: { category: "trace_validation", stage: "trace_validation_autofail", reason: "no AI message" } },
  deep_judgment: { ...base(), verification: verification(true), autofail: { category: "deep_judgment", stage: "deep_judgment_autofail", reason: "x" } },
  deep_judgment_rubric: { ...base(), autofail: { category: "deep_judgment_rubric", stage: "deep_judgment_rubric_autofail", reason: "x" } },
  timeout: { ...base(), error: error("timeout", "generate_answer") },
  connection: { ...base(), error: error("connection") },
  rate_limit: { ...base(), error: error("rate_limit") },
  server_error: { ...base(), error: error("server_error") },
  abstention: { ...base(), abstention: guard(true, "I cannot answer") },
  sufficiency: { ...base(), sufficiency: { performed: true, detected: false, override_applied: true, reasoning: "no chromosome" } },
  template_validation: { ...base(), error: error("template_validation", "validate_template") },
  parsing: { ...base(), error: error("parsing", "parse_template") },
  unexpected_error: { ...base(), error: error("unexpected_error", "generate_answer") },
};

describe("classifyFailure", () => {
  it.each(FAILURE_CATEGORIES)("classifies a %s state into its category and group", (category) => {
    const failure = classifyFailure(STATES[category]);
    expect(failure).toMatchObject({ category, group: FAILURE_GROUP[category] });
    expect(failure!.reason.length).toBeGreaterThan(0);
    expect(failure!.reason.length).toBeLessThanOrEqual(500);
  });

  it("covers all 14 categories in 5 groups", () => {
    expect(FAILURE_CATEGORIES).toHaveLength(14);
    expect(new Set(Object.values(FAILURE_GROUP)).size).toBe(5);
  });

  it("returns no failure for a passing verification", () => {
    expect(classifyFailure({ ...base(), verification: verification(true) })).toBeNull();
  });

  it("lets an autofail win over a content failure", () => {
    const state = { ...STATES.content, autofail: STATES.trace_validation.autofail };
    expect(classifyFailure(state)?.category).toBe("trace_validation");
  });

  it("lets a content failure win over an exhausted retry", () => {
    expect(classifyFailure({ ...STATES.content, error: error("rate_limit") })?.category).toBe("content");
  });

  it("lets an exhausted retry win over abstention and sufficiency", () => {
    const state = { ...STATES.server_error, abstention: guard(true), sufficiency: guard(true) };
    expect(classifyFailure(state)?.category).toBe("server_error");
  });

  it("puts abstention before sufficiency, and both before system errors", () => {
    expect(classifyFailure({ ...base(), abstention: guard(true), sufficiency: guard(true) })?.category).toBe("abstention");
    expect(classifyFailure({ ...STATES.sufficiency, error: error("unexpected_error") })?.category).toBe("sufficiency");
  });

  it("ignores a guard that ran and found nothing", () => {
    expect(classifyFailure({ ...base(), abstention: guard(false), verification: verification(true) })).toBeNull();
  });

  it("uses the judge's reasoning as the abstention reason, capped at 500 characters", () => {
    const long = "I cannot answer. ".repeat(60);
    const failure = classifyFailure({ ...base(), abstention: guard(true, long) })!;
    expect(failure.stage).toBe("abstention_check");
    expect(failure.reason.startsWith("I cannot answer.")).toBe(true);
    expect(failure.reason.length).toBe(500);
  });

  it("calls a judge failure at parse_template parsing and a throw anywhere unexpected_error, never content", () => {
    expect(classifyFailure(STATES.parsing)).toMatchObject({ category: "parsing", group: "system", stage: "parse_template" });
    expect(classifyFailure({ ...base(), error: error("unexpected_error", "parse_template") })?.category).toBe("unexpected_error");
  });
});

describe("collectCaveats", () => {
  it("appends embedding_override then retries_used, in Karenina's order", () => {
    const state = { ...base(), embedding: { performed: true, similarity_score: 0.9, override_applied: true, model_used: "m" } };
    expect(collectCaveats(state, { retries_used: 2 })).toEqual(["embedding_override", "retries_used"]);
    expect(collectCaveats(base(), {})).toEqual([]);
  });
});
