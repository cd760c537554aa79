import { describe, expect, it } from "vitest";
import type { StructuredRequest } from "../../../src/llm/port";
import { runPipeline } from "../../../src/pipeline/orchestrator";
import { VerificationResult } from "../../../src/schemas/result";
import { Rubric } from "../../../src/schemas/rubric";
import { scriptedPort } from "../../support/scripted-port";
import { clock, input, memoryLog, question } from "../pipeline/helpers";

const qRubric = {
  llm_traits: [{ name: "clear", kind: "boolean", description: "clear" }],
  regex_traits: [{ name: "mentions_atp", pattern: "ATP", case_sensitive: false }],
};
const judge = () =>
  scriptedPort({
    structured: (req: StructuredRequest<unknown>) => {
      if (req.schemaName === "BatchRubricScores") return { scores: { clear: true, depth: 2 } };
      if (req.schemaName === "Answer" || /Answer/.test(req.schemaName)) return { organelle: "mitochondrion" };
      if (req.schemaName === "LikertJudgement" || req.jsonSchema.properties) return { answer: 4 };
      return {};
    },
  });
const answerer = () => scriptedPort({ chat: () => "The mitochondrion makes atp." });

describe("stage 11 RubricEvaluation in the pipeline", () => {
  it("scores the merged rubric in rubric_only, with no template stages and a valid result", async () => {
    const j = judge();
    const { result } = await runPipeline(
      input(
        { question: question({ template: undefined, rubric: qRubric }) },
        { evaluation_mode: "rubric_only", global_rubric: Rubric.parse({ llm_traits: [{ name: "depth", kind: "score" }] }) },
      ),
      { answerer: answerer(), judge: j, clock: clock() },
    );
    expect(VerificationResult.safeParse(result).success).toBe(true);
    expect(result.rubric).toMatchObject({
      rubric_evaluation_performed: true,
      rubric_evaluation_strategy: "batch",
      llm_trait_scores: { clear: true, depth: 2 },
      regex_trait_scores: { mentions_atp: true },
      trait_provenance: { depth: "global", clear: "question_specific", mentions_atp: "question_specific" },
    });
    expect(result.template!.template_verification_performed).toBe(false);
    expect(result.template!.usage_metadata).toHaveProperty("rubric_evaluation");
    expect(result.metadata.evaluation_mode).toBe("rubric_only");
  });

  it("runs beside template verification in template_and_rubric and leaves the verdict alone", async () => {
    const { result } = await runPipeline(input({ question: question({ rubric: qRubric }) }, { evaluation_mode: "template_and_rubric" }), {
      answerer: answerer(),
      judge: judge(),
      clock: clock(),
    });
    expect(result.template!.verify_result).toBe(true);
    expect(result.rubric!.llm_trait_scores).toEqual({ clear: true });
  });

  // Karenina: BaseVerificationStage.should_run returns `not context.error` (verification/stages/core/base.py:658)
  // and rubric_evaluation.py:100 calls it first, so a parse error ends the pipeline before the rubric.
  it("does not run after a template parse error (Karenina halts there): no rubric call, no rubric section", async () => {
    const asked: string[] = [];
    const j = scriptedPort({
      structured: (req: StructuredRequest<unknown>) => {
        asked.push(req.schemaName);
        return req.schemaName === "BatchRubricScores" ? { scores: { clear: true } } : { kind: "invalid_output", message: "not JSON" };
      },
    });
    const { result } = await runPipeline(input({ question: question({ rubric: qRubric }) }, { evaluation_mode: "template_and_rubric" }), {
      answerer: answerer(),
      judge: j,
      clock: clock(),
    });
    expect(result.metadata.error).toBeTruthy();
    expect(result.metadata.failure).toMatchObject({ stage: "parse_template" });
    expect(asked.length).toBeGreaterThan(0);
    expect(asked).not.toContain("BatchRubricScores");
    expect(result.rubric).toBeNull();
  });

  it("has no rubric section when the question has no trait, or in template_only", async () => {
    const none = await runPipeline(input({}, { evaluation_mode: "template_and_rubric" }), {
      answerer: answerer(),
      judge: judge(),
      clock: clock(),
    });
    expect(none.result.rubric).toBeNull();
    const templateOnly = await runPipeline(input({ question: question({ rubric: qRubric }) }), {
      answerer: answerer(),
      judge: judge(),
      clock: clock(),
    });
    expect(templateOnly.result.rubric).toBeNull();
  });

  it("keeps the result when a rubric judge fails: null score, a warning, the verdict untouched", async () => {
    const failing = scriptedPort({
      structured: (req) =>
        req.schemaName === "BatchRubricScores" ? { kind: "invalid_output", message: "garbage" } : { organelle: "mitochondrion" },
    });
    const log = memoryLog();
    const { result } = await runPipeline(input({ question: question({ rubric: qRubric }) }, { evaluation_mode: "template_and_rubric" }), {
      answerer: answerer(),
      judge: failing,
      clock: clock(),
      log,
    });
    expect(result.rubric!.llm_trait_scores).toEqual({ clear: null });
    expect(result.rubric!.regex_trait_scores).toEqual({ mentions_atp: true });
    expect(result.template!.verify_result).toBe(true);
    expect(result.metadata.failure).toBeNull();
    expect(result.metadata.warnings.join()).toMatch(/batch boolean\/score call failed/);
  });

  it("reads the final AI message when use_full_trace_for_rubric is false", async () => {
    const trace = [
      { role: "assistant" as const, content: "", tool_calls: [{ id: "1", name: "search", arguments: {} }] },
      { role: "tool" as const, content: "ATP facts", tool_call_id: "1" },
      { role: "assistant" as const, content: "It is the mitochondrion." },
    ];
    const answer = { ok: true as const, answer: { raw_llm_response: "", trace_messages: trace, usage: null, is_trace: true } };
    const rubric = { regex_traits: [{ name: "mentions_atp", pattern: "ATP" }] };
    const full = await runPipeline(
      input({ question: question({ template: undefined, rubric }), answer }, { evaluation_mode: "rubric_only" }),
      { answerer: answerer(), judge: judge(), clock: clock() },
    );
    const last = await runPipeline(
      input(
        { question: question({ template: undefined, rubric }), answer },
        { evaluation_mode: "rubric_only", use_full_trace_for_rubric: false },
      ),
      { answerer: answerer(), judge: judge(), clock: clock() },
    );
    expect(full.result.rubric!.regex_trait_scores).toEqual({ mentions_atp: true });
    expect(last.result.rubric!.regex_trait_scores).toEqual({ mentions_atp: false });
  });

  it("skips rubric evaluation after a failed trace validation only when the final AI message was asked for", async () => {
    const trace = [
      { role: "user" as const, content: "hi" },
      { role: "tool" as const, content: "ATP", tool_call_id: "1" },
    ];
    const answer = { ok: true as const, answer: { raw_llm_response: "", trace_messages: trace, usage: null, is_trace: true } };
    const rubric = { regex_traits: [{ name: "mentions_atp", pattern: "ATP" }] };
    const run = (full: boolean) =>
      runPipeline(
        input(
          { question: question({ template: undefined, rubric }), answer },
          { evaluation_mode: "rubric_only", use_full_trace_for_rubric: full },
        ),
        { answerer: answerer(), judge: judge(), clock: clock() },
      );
    const skipped = await run(false);
    expect(skipped.result.rubric).toBeNull();
    expect(skipped.result.metadata.failure?.category).toBe("trace_validation");
    const scored = await run(true);
    expect(scored.result.rubric!.regex_trait_scores).toEqual({ mentions_atp: true });
  });

  it("scores a compound trait with its pooled value and keeps the unit trace", async () => {
    const rubric = {
      compound_traits: [
        { name: "panel", config: { pipeline: [{ layer: { unit: { type: "likert", name: "rater" }, repeat: 2 } }, { type: "mean" }] } },
      ],
    };
    const { result } = await runPipeline(
      input({ question: question({ template: undefined, rubric }) }, { evaluation_mode: "rubric_only" }),
      { answerer: answerer(), judge: judge(), clock: clock() },
    );
    expect(result.rubric!.compound_trait_scores).toEqual({ panel: 4 });
    const trace = result.rubric!.compound_trait_traces!.panel as { units: unknown[] };
    expect(trace.units.length).toBeGreaterThanOrEqual(3);
    expect(VerificationResult.safeParse(result).success).toBe(true);
  });
});
