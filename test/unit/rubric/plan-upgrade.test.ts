import { describe, expect, it } from "vitest";
import { pipelineSettings, rubricSettings } from "../../../src/submit/plan";
import { Question } from "../../../src/schemas/benchmark";
import { Rubric } from "../../../src/schemas/rubric";
import { VerificationConfig } from "../../../src/schemas/verification-config";

const config = (o: Record<string, unknown> = {}) =>
  VerificationConfig.parse({
    answering_models: [{ id: "a", interface: "manual", manual_answers: {} }],
    parsing_models: [{ id: "j", interface: "openai_compatible", model_name: "m", base_url: "http://x/v1" }],
    ...o,
  });
const q = (rubric?: unknown) => Question.parse({ id: "q", question: "?", ...(rubric ? { rubric } : {}) });

describe("evaluation mode at plan time", () => {
  it("upgrades template_only to template_and_rubric when the global rubric has traits", () => {
    expect(rubricSettings(config(), Rubric.parse({ regex_traits: [{ name: "r", pattern: "x" }] }), [q()]).evaluation_mode).toBe(
      "template_and_rubric",
    );
  });
  it("upgrades when only a selected question has a rubric", () => {
    expect(rubricSettings(config(), null, [q({ llm_traits: [{ name: "b", kind: "boolean" }] })]).evaluation_mode).toBe(
      "template_and_rubric",
    );
  });
  it("keeps template_only without any trait, and never changes an explicit rubric mode", () => {
    expect(rubricSettings(config(), Rubric.parse({}), [q()]).evaluation_mode).toBe("template_only");
    expect(rubricSettings(config({ evaluation_mode: "rubric_only" }), null, [q()]).evaluation_mode).toBe("rubric_only");
  });
  it("carries the strategy and the trait filter to the jobs", () => {
    expect(rubricSettings(config({ rubric_evaluation_strategy: "sequential", rubric_trait_names: ["b"] }), null, [])).toMatchObject({
      rubric_evaluation_strategy: "sequential",
      rubric_trait_names: ["b"],
    });
  });
  it("agentic_rubric_parallel runs async_max_workers traits at a time; without it, one", () => {
    expect(pipelineSettings(config({ agentic_rubric_parallel: true, async_max_workers: 3 })).agentic_rubric).toEqual({
      strategy: "individual",
      parallel: 3,
    });
    expect(pipelineSettings(config({ async_max_workers: 3 })).agentic_rubric).toEqual({ strategy: "individual", parallel: 1 });
  });
});
