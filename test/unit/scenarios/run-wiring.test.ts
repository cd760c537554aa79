// The pieces that tie a scenario to a run: turn job ids, result ids per turn, the history sent
// with a turn's question, and what a turn's result says to the scenario.
import { describe, expect, it } from "vitest";
import { turnOutcome } from "../../../src/jobs/turn-outcome";
import { computeResultId } from "../../../src/pipeline/ids";
import { buildGenerationMessages } from "../../../src/pipeline/prompts/generation";
import { ModelConfig } from "../../../src/schemas/model-config";
import type { VerificationResult } from "../../../src/schemas/result";
import { chainId, jobIds, parseTurnJobId, turnJobId } from "../../../src/submit/spec";

const model = (id: string) => ModelConfig.parse({ id, interface: "openai_compatible", model_name: id, base_url: "http://x/v1" });

describe("scenario turns in a run", () => {
  it("starts each chain (scenario × answering × parsing × replicate) with its turn-0 job, after the question jobs", () => {
    const spec = { questions: [{}], answering_models: [{}, {}], parsing_models: [{}], replicate_count: 2, scenarios: [{}] } as never;
    expect(jobIds(spec)).toEqual(["0.0.1", "0.0.2", "0.1.1", "0.1.2", "s0.0.0.1.0", "s0.0.0.2.0", "s0.1.0.1.0", "s0.1.0.2.0"]);
    expect(parseTurnJobId("s3.1.2.4.7")).toEqual({ scenario: 3, answering: 1, parsing: 2, replicate: 4, turn: 7 });
    expect(parseTurnJobId("0.0.1")).toBeNull();
    expect(turnJobId({ scenario: 3, answering: 1, parsing: 2, replicate: 4, turn: 8 })).toBe("s3.1.2.4.8");
    expect(chainId({ scenario: 3, answering: 1, parsing: 2, replicate: 4 })).toBe("s3.1.2.4");
  });

  it("gives each turn its own result id (a node may be visited twice), and a question's id is unchanged", async () => {
    const base = { run_id: "r", question_id: "q", answering: model("a"), parsing: model("j"), replicate: 1 };
    const turn = (t: number) => computeResultId({ ...base, scenario: { scenario_id: "s", scenario_node: "n", scenario_turn: t } });
    const ids = new Set([await computeResultId(base), await turn(0), await turn(1)]);
    expect(ids.size).toBe(3);
    // The question's id is the one stored before scenarios existed (no scenario keys hashed).
    expect(await computeResultId(base)).toBe(await computeResultId({ ...base, scenario: undefined }));
  });

  it("sends the history between the system message and the question, without the model's prompt when the history has one", () => {
    const history = [
      { role: "system" as const, content: "Be brief." },
      { role: "user" as const, content: "Q1" },
      { role: "assistant" as const, content: "A1" },
    ];
    expect(buildGenerationMessages("Q2", "Be brief.", { history, instructions: "Cite." })).toEqual([
      { role: "system", content: "Cite." },
      ...history,
      { role: "user", content: "Q2" },
    ]);
    expect(buildGenerationMessages("Q2", "Be brief.", { history: history.slice(1) })).toEqual([
      { role: "system", content: "Be brief." },
      ...history.slice(1),
      { role: "user", content: "Q2" },
    ]);
  });

  it("reads a turn's result: the model's own messages after its question, parsed fields, verdict, failure", () => {
    // Only the fields turnOutcome reads (a whole result has ~60 more).
    const result = RESULT as unknown as VerificationResult;
    expect(turnOutcome(result)).toEqual({
      produced: [{ role: "assistant", content: "Paris." }],
      raw_response: "Paris.",
      parsed: { city: "Paris" },
      verify_result: false,
      rubric: { concise: true },
      result_id: "rid",
      failure: { category: "content", stage: "verify_template", reason: "city differs" },
    });
  });
});

const RESULT = {
  metadata: {
    question_id: "q",
    template_id: "t",
    result_id: "rid",
    question_text: "Q2",
    raw_answer: null,
    keywords: null,
    run_name: null,
    replicate: null,
    answering: { interface: "openai_compatible", model_name: "a", role: "answering" },
    parsing: { interface: "openai_compatible", model_name: "j", role: "parsing" },
    answering_system_prompt: null,
    parsing_system_prompt: null,
    execution_time: 0,
    timestamp: "2026-11-25T00:00:00Z",
    completed_without_errors: true,
    error: null,
    failure: { category: "content", stage: "verify_template", reason: "city differs" },
    caveats: [],
    warnings: [],
    evaluation_mode: "template_and_rubric",
    few_shot_enabled: false,
    few_shot_example_count: 0,
  },
  template: {
    raw_llm_response: "Paris.",
    trace_messages: [
      { role: "system", content: "s" },
      { role: "user", content: "Q1" },
      { role: "assistant", content: "A1" },
      { role: "user", content: "Q2" },
      { role: "assistant", content: "Paris." },
    ],
    parsed_llm_response: { city: "Paris" },
    verify_result: false,
  },
  rubric: { rubric_evaluation_performed: true, llm_trait_scores: { concise: true } },
};
