import { describe, expect, it } from "vitest";
import { classifyFailure, collectCaveats, retryCounts } from "../../../src/pipeline/failure";
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
  deep_judgment: {
    ...base(),
    verification: verification(true),
    autofail: { category: "deep_judgment", stage: "deep_judgment_autofail", reason: "x" },
  },
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

describe("classifyFailure: the reason and details a result carries", () => {
  const content = (over: Partial<VerificationArtifact>) =>
    classifyFailure({ ...base(), verification: { ...verification(false), ...over } });

  it("names every field that failed, every field the judge left empty and every failed regex check, in that order", () => {
    const failure = content({
      field_results: { gene: false, dose: true, unit: null, organ: false, tissue: null },
      regex_validation_results: { has_id: false, has_year: true, has_ref: false },
      field_verification_error: "dose: cannot compare",
    });
    expect(failure).toEqual({
      category: "content",
      group: FAILURE_GROUP.content,
      stage: "verify_template",
      reason:
        "fields not matching the ground truth: gene, organ; fields the judge left empty: unit, tissue; " +
        "regex checks failed: has_id, has_ref; verification error: dose: cannot compare",
    });
  });

  it("leaves out the parts with nothing to say", () => {
    expect(content({ field_results: { gene: true, unit: null } })?.reason).toBe("fields the judge left empty: unit");
    expect(content({ field_results: { gene: true }, regex_validation_results: { has_id: false } })?.reason).toBe(
      "regex checks failed: has_id",
    );
    expect(content({ field_results: { gene: true }, field_verification_error: "boom" })?.reason).toBe("verification error: boom");
  });

  it("says verification returned false when no field, regex check or error explains it", () => {
    expect(content({ field_results: { gene: true }, regex_validation_results: { has_id: true } })?.reason).toBe(
      "verification returned false",
    );
  });

  it("says which retries ran out and keeps the provider's message in details.error_message", () => {
    expect(classifyFailure({ ...base(), error: { category: "rate_limit", stage: "generate_answer", reason: "429 slow down" } })).toEqual({
      category: "rate_limit",
      group: FAILURE_GROUP.rate_limit,
      stage: "generate_answer",
      reason: "rate_limit retries exhausted: 429 slow down",
      details: { error_message: "429 slow down" },
    });
  });

  it("keeps the error message for parsing and unexpected errors, and gives template_validation no details", () => {
    const err = (category: StageError["category"], stage: StageError["stage"]) =>
      classifyFailure({ ...base(), error: { category, stage, reason: " bad json \n" } });
    expect(err("parsing", "parse_template")).toEqual({
      category: "parsing",
      group: FAILURE_GROUP.parsing,
      stage: "parse_template",
      reason: "bad json",
      details: { error_message: " bad json \n" },
    });
    expect(err("unexpected_error", "generate_answer")).toEqual({
      category: "unexpected_error",
      group: FAILURE_GROUP.unexpected_error,
      stage: "generate_answer",
      reason: "bad json",
      details: { error_message: " bad json \n" },
    });
    expect(err("template_validation", "validate_template")).toEqual({
      category: "template_validation",
      group: FAILURE_GROUP.template_validation,
      stage: "validate_template",
      reason: "bad json",
    });
  });

  it("calls a parsing error outside parse_template an unexpected error", () => {
    expect(classifyFailure({ ...base(), error: error("parsing", "generate_answer") })).toMatchObject({
      category: "unexpected_error",
      stage: "generate_answer",
    });
  });

  it("falls back to a fixed reason when a guard gives no reasoning, and to the category name when a reason is blank", () => {
    const silent = { performed: true, detected: true, override_applied: true, reasoning: null };
    expect(classifyFailure({ ...base(), abstention: silent })?.reason).toBe("model abstained");
    expect(classifyFailure({ ...base(), sufficiency: silent })?.reason).toBe("insufficient response");
    expect(
      classifyFailure({ ...base(), autofail: { category: "recursion_limit", stage: "recursion_limit_autofail", reason: "   " } })?.reason,
    ).toBe("recursion_limit");
  });

  it("uses the sufficiency judge's reasoning as the reason", () => {
    expect(classifyFailure(STATES.sufficiency)).toEqual({
      category: "sufficiency",
      group: FAILURE_GROUP.sufficiency,
      stage: "sufficiency_check",
      reason: "no chromosome",
    });
  });
});

describe("collectCaveats", () => {
  it("appends embedding_override then retries_used, in Karenina's order", () => {
    const state = { ...base(), embedding: { performed: true, similarity_score: 0.9, override_applied: true, model_used: "m" } };
    const retries = {
      used: { connection: 0, timeout: 0, rate_limit: 2, server_error: 0 },
      budgets: { connection: 3, timeout: 3, rate_limit: 5, server_error: 2 },
    };
    expect(collectCaveats(state, { retries })).toEqual(["embedding_override", "retries_used"]);
    expect(collectCaveats(base(), {})).toEqual([]);
  });
});

describe("verification that could not decide (issue 16)", () => {
  it("is a template_validation failure in group system, never content", () => {
    const undecided: VerificationArtifact = {
      ...verification(false),
      verify_result: null,
      field_verification_error: "Regex check failed to run: r: regex stopped after 10,000,000 steps",
    };
    const f = classifyFailure({ ...base(), verification: undecided });
    expect(f).toMatchObject({ category: "template_validation", group: "system", stage: "verify_template" });
    expect(f!.reason).toMatch(/regex stopped/);
  });
});

describe("retry counts from the job's ledger", () => {
  const budgets = { connection: 3, timeout: 3, rate_limit: 5, server_error: 2 };
  it("lists the classes the job retried with their budgets, in the ledger's class order", () => {
    const used = { connection: 1, timeout: 0, rate_limit: 2, server_error: 0 };
    expect(Object.entries(retryCounts({ used, budgets }))).toEqual([
      ["connection", { used: 1, budget: 3 }],
      ["rate_limit", { used: 2, budget: 5 }],
    ]);
  });

  it("is empty, with no retries_used caveat, when nothing was retried", () => {
    const used = { connection: 0, timeout: 0, rate_limit: 0, server_error: 0 };
    expect(retryCounts({ used, budgets })).toEqual({});
    expect(collectCaveats(base(), { retries: { used, budgets } })).toEqual([]);
  });
});
