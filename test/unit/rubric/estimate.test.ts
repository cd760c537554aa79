import { describe, expect, it } from "vitest";
import { estimateCalls } from "../../../src/pipeline/estimate";
import { runPipeline } from "../../../src/pipeline/orchestrator";
import { Rubric } from "../../../src/schemas/rubric";
import { scriptedPort } from "../../support/scripted-port";
import { clock, input, parsing, question } from "../pipeline/helpers";

const rubric = {
  llm_traits: [
    { name: "clear", kind: "boolean" },
    { name: "depth", kind: "score" },
    { name: "tone", kind: "literal", classes: { a: "", b: "" } },
    { name: "correct", kind: "boolean", include_ground_truth: true },
    { name: "form", kind: { type: "template", schema: { title: "Form", type: "object", properties: { x: { type: "integer" } } } } },
  ],
  metric_traits: [{ name: "genes", tp_instructions: ["BRCA1"] }],
  regex_traits: [{ name: "r", pattern: "x" }],
};
const manual = { id: "m", interface: "manual" as const, manual_answers: { q1: "BRCA1 it is." } };

async function realJudgeCalls(strategy: "batch" | "sequential"): Promise<number> {
  const judge = scriptedPort({ structured: () => ({}) });
  await runPipeline(
    input(
      { question: question({ template: undefined, rubric, raw_answer: "BRCA1" }), answering: manual as never },
      { evaluation_mode: "rubric_only", rubric_evaluation_strategy: strategy },
    ),
    { answerer: scriptedPort(), judge, clock: clock() },
  );
  return judge.calls.length;
}

describe("dry-run estimate of rubric calls", () => {
  for (const strategy of ["batch", "sequential"] as const) {
    it(`counts the ${strategy} strategy's judge calls as the stage makes them`, async () => {
      const est = estimateCalls({
        questions: [question({ template: undefined, rubric, raw_answer: "BRCA1" })],
        answering_models: [manual as never],
        parsing_models: [parsing],
        replicate_count: 1,
        settings: { evaluation_mode: "rubric_only", include_extraction_hints: true, rubric_evaluation_strategy: strategy },
      });
      const row = est.get(`judging|${parsing.id}|rubric_evaluation`)!;
      expect(row.calls).toBe(await realJudgeCalls(strategy));
      expect(row.input_tokens).toBeGreaterThan(0);
    });
  }

  it("counts the presence check for dynamic traits and their evaluation only in calls_max", () => {
    const est = estimateCalls({
      questions: [question({ template: undefined })],
      answering_models: [manual as never],
      parsing_models: [parsing],
      replicate_count: 2,
      settings: {
        evaluation_mode: "rubric_only",
        include_extraction_hints: true,
        global_rubric: Rubric.parse({ dynamic: { llm_traits: [{ name: "s", kind: "boolean", summary: "safety" }] } }),
      },
    });
    expect(est.get(`judging|${parsing.id}|dynamic_rubric_presence_check`)).toMatchObject({ calls: 2, calls_max: 2 });
    expect(est.get(`judging|${parsing.id}|rubric_evaluation`)).toMatchObject({ calls: 0, calls_max: 2 });
  });

  it("counts nothing for rubrics in template_only", () => {
    const est = estimateCalls({
      questions: [question({ rubric })],
      answering_models: [manual as never],
      parsing_models: [parsing],
      replicate_count: 1,
      settings: { evaluation_mode: "template_only", include_extraction_hints: true },
    });
    expect(est.has(`judging|${parsing.id}|rubric_evaluation`)).toBe(false);
  });
});

describe("dry-run estimate of a compound trait", () => {
  it("counts one call per judge unit of its graph", () => {
    const r = {
      compound_traits: [{ name: "panel", config: { pipeline: [{ layer: { unit: { type: "likert" }, repeat: 3 } }, { type: "mean" }] } }],
    };
    const est = estimateCalls({
      questions: [question({ template: undefined, rubric: r })],
      answering_models: [manual as never],
      parsing_models: [parsing],
      replicate_count: 1,
      settings: { evaluation_mode: "rubric_only", include_extraction_hints: true },
    });
    expect(est.get(`judging|${parsing.id}|rubric_evaluation`)).toMatchObject({ calls: 3 });
  });
});
