import { describe, expect, it } from "vitest";
import { runPipeline, stagesFor } from "../../../src/pipeline/orchestrator";
import { VerificationResult } from "../../../src/schemas/result";
import { scriptedPort } from "../../support/scripted-port";
import { clock, input, question } from "./helpers";

describe("runPipeline (template_only)", () => {
  it("passes when the judge extracts the ground truth, and the judge never sees it", async () => {
    const answerer = scriptedPort({ chat: () => "The powerhouse: mitochondria." });
    const judge = scriptedPort({ structured: () => ({ organelle: "Mitochondrion" }) });
    const { result, retryable } = await runPipeline(input(), { answerer, judge, clock: clock() });
    expect(retryable).toBeNull();
    expect(result.metadata.failure).toBeNull();
    expect(result.metadata.completed_without_errors).toBe(true);
    expect(result.template).toMatchObject({
      raw_llm_response: "The powerhouse: mitochondria.",
      parsed_llm_response: { organelle: "Mitochondrion" },
      parsed_gt_response: { organelle: "mitochondrion" },
      verify_result: true,
      field_results: { organelle: true },
    });
    expect(VerificationResult.parse(result)).toEqual(result);
    expect(judge.calls).toHaveLength(1);
    const judgeSaw = judge.calls[0]!.messages.map((m) => m.content).join("\n");
    expect(judgeSaw).toContain("The powerhouse: mitochondria.");
    expect(judgeSaw).not.toContain("mitochondrion");
  });

  it("fails on content when the extracted value differs", async () => {
    const { result } = await runPipeline(input(), {
      answerer: scriptedPort({ chat: () => "Chloroplasts." }),
      judge: scriptedPort({ structured: () => ({ organelle: "chloroplast" }) }),
      clock: clock(),
    });
    expect(result.template?.verify_result).toBe(false);
    expect(result.metadata.failure).toMatchObject({ category: "content", group: "content", stage: "verify_template" });
  });

  it("makes judge output that does not fit the schema a parsing failure, never a verdict", async () => {
    const { result, retryable } = await runPipeline(input(), {
      answerer: scriptedPort(),
      judge: scriptedPort({ structured: () => ({ organelle: 42 }) }),
      clock: clock(),
    });
    expect(retryable).toBeNull();
    expect(result.template?.verify_result).toBeNull();
    expect(result.template?.template_verification_performed).toBe(false);
    expect(result.metadata.failure).toMatchObject({ category: "parsing", group: "system", stage: "parse_template" });
    expect(VerificationResult.parse(result)).toEqual(result);
  });

  it("reports a transient judge failure as retryable, in the retry group", async () => {
    const { result, retryable } = await runPipeline(input(), {
      answerer: scriptedPort(),
      judge: scriptedPort({ structured: () => ({ kind: "rate_limit", message: "slow down", status: 429, retryAfterMs: 2000 }) }),
      clock: clock(),
    });
    expect(retryable).toMatchObject({ kind: "rate_limit", retryAfterMs: 2000 });
    expect(result.metadata.failure).toMatchObject({ category: "rate_limit", group: "retry" });
  });

  it("fails a question without a template at ValidateTemplate and calls no model", async () => {
    const answerer = scriptedPort();
    const judge = scriptedPort();
    const { result } = await runPipeline(input({ question: question({ template: undefined }) }), { answerer, judge, clock: clock() });
    expect(result.metadata.failure).toMatchObject({ category: "template_validation", stage: "validate_template" });
    expect(result.metadata.template_id).toBe("no_template");
    expect(answerer.calls).toHaveLength(0);
    expect(judge.calls).toHaveLength(0);
  });

  it("grades a regex-only template without a judge call", async () => {
    const judge = scriptedPort();
    const q = question({
      template: { fields: [], regex: [{ name: "cites_nct", pattern: "NCT\\d{8}", expected: 1, match_type: "count" }] },
    });
    const { result } = await runPipeline(input({ question: q }), {
      answerer: scriptedPort({ chat: () => "See trial NCT01234567." }),
      judge,
      clock: clock(),
    });
    expect(judge.calls).toHaveLength(0);
    expect(result.template).toMatchObject({ verify_result: true, regex_validations_performed: true, regex_overall_success: true });
  });

  it("uses a supplied answer without calling the answering model", async () => {
    const answerer = scriptedPort();
    const { result } = await runPipeline(
      input({ answer: { ok: true, answer: { raw_llm_response: "mitochondrion", trace_messages: [], usage: null } } }),
      { answerer, judge: scriptedPort({ structured: () => ({ organelle: "mitochondrion" }) }), clock: clock() },
    );
    expect(answerer.calls).toHaveLength(0);
    expect(result.template?.verify_result).toBe(true);
  });

  it("contains a stage that throws as unexpected_error", async () => {
    const judge = scriptedPort();
    judge.structured = () => {
      throw new Error("adapter bug");
    };
    const { result } = await runPipeline(input(), { answerer: scriptedPort(), judge, clock: clock() });
    expect(result.metadata.failure).toMatchObject({ category: "unexpected_error", group: "system", stage: "parse_template" });
    expect(result.metadata.error).toContain("adapter bug");
  });

  it("derives result_id from run, question, models and replicate only (not time)", async () => {
    const ports = () => ({ answerer: scriptedPort(), judge: scriptedPort({ structured: () => ({ organelle: "x" }) }) });
    const a = await runPipeline(input(), { ...ports(), clock: clock(0) });
    const b = await runPipeline(input(), { ...ports(), clock: clock(9_999_999) });
    const c = await runPipeline(input({ replicate: 2 }), { ...ports(), clock: clock(0) });
    expect(a.result.metadata.result_id).toMatch(/^[0-9a-f]{16}$/);
    expect(b.result.metadata.result_id).toBe(a.result.metadata.result_id);
    expect(c.result.metadata.result_id).not.toBe(a.result.metadata.result_id);
  });

  // Karenina, benchmark/verification/batch_runner.py:199: replicate = None if config.replicate_count == 1 else rep.
  it("replicate is null when the run has one replicate, the index otherwise; result_id hashes the index either way", async () => {
    const ports = () => ({ answerer: scriptedPort(), judge: scriptedPort({ structured: () => ({ organelle: "x" }) }), clock: clock(0) });
    const single = await runPipeline(input({ replicate: 1 }, { replicate_count: 1 }), ports());
    const first = await runPipeline(input({ replicate: 1 }, { replicate_count: 3 }), ports());
    const third = await runPipeline(input({ replicate: 3 }, { replicate_count: 3 }), ports());
    expect([single.result.metadata.replicate, first.result.metadata.replicate, third.result.metadata.replicate]).toEqual([null, 1, 3]);
    expect(single.result.metadata.result_id).toBe(first.result.metadata.result_id);
  });
});

describe("the stage list and its matrix (data)", () => {
  const names = (settings: Parameters<typeof stagesFor>[0]) => stagesFor(settings).map((s) => s.name);
  const base = { include_extraction_hints: true } as const;

  it("runs Karenina's template stages in order, with the optional checks only when switched on", () => {
    expect(names({ ...base, evaluation_mode: "template_only" })).toEqual([
      "validate_template",
      "generate_answer",
      "recursion_limit_autofail",
      "trace_validation_autofail",
      "parse_template",
      "verify_template",
      "embedding_check",
    ]);
    expect(
      names({
        ...base,
        evaluation_mode: "template_only",
        abstention_enabled: true,
        sufficiency_enabled: true,
        deep_judgment: {
          mode: "full",
          max_excerpts_per_attribute: 3,
          fuzzy_match_threshold: 0.8,
          excerpt_retry_attempts: 2,
          search_enabled: false,
          search_tool: "tavily",
        },
      }),
    ).toEqual([
      "validate_template",
      "generate_answer",
      "recursion_limit_autofail",
      "trace_validation_autofail",
      "abstention_check",
      "sufficiency_check",
      "parse_template",
      "verify_template",
      "embedding_check",
      "deep_judgment_autofail",
    ]);
  });

  it("keeps only the answer, guards, abstention and rubric evaluation in rubric_only (no template stages, no sufficiency)", () => {
    expect(names({ ...base, evaluation_mode: "rubric_only", abstention_enabled: true, sufficiency_enabled: true })).toEqual([
      "generate_answer",
      "recursion_limit_autofail",
      "trace_validation_autofail",
      "abstention_check",
      "rubric_evaluation",
      // 11b is listed for every rubric run: question-specific agentic traits are known per job only.
      "agentic_rubric_evaluation",
    ]);
  });
});

describe("ValidateTemplate with Python custom verify", () => {
  it("fails a (stored) template whose Python is outside the subset with template_validation, naming the construct", async () => {
    const answerer = scriptedPort();
    const judge = scriptedPort();
    const q = question({
      template: {
        fields: [{ name: "organelle", type: "str", description: "Organelle", ground_truth: null }],
        custom_verify: {
          language: "python",
          source: "class Answer(BaseAnswer):\n    organelle: str\n    def verify(self):\n        return True\n",
        },
      },
    });
    // The schema refuses this source at submit (issue 16); the stage still guards data stored before that.
    q.template!.custom_verify!.source =
      "class Answer(BaseAnswer):\n    organelle: str\n    def verify(self):\n        with open('x') as f:\n            return True\n";
    const { result } = await runPipeline(input({ question: q }), { answerer, judge, clock: clock() });
    expect(result.metadata.failure).toMatchObject({ category: "template_validation", stage: "validate_template" });
    expect(result.metadata.failure!.reason).toContain("custom_verify (python)");
    expect(answerer.calls).toHaveLength(0);
  });
});
