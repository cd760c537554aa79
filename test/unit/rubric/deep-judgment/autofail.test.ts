import { describe, expect, it } from "vitest";
import { finalizeResult } from "../../../../src/pipeline/finalize-result";
import { stagesFor } from "../../../../src/pipeline/orchestrator";
import { deepJudgmentRubricAutoFail } from "../../../../src/pipeline/stages/deep-judgment-rubric-autofail";
import type { PipelineState } from "../../../../src/pipeline/types";
import {
  DEFAULT_DEEP_JUDGMENT_RUBRIC,
  evaluateDeepJudgmentTraits,
  partitionDeepJudgmentTraits,
} from "../../../../src/rubric/deep-judgment";
import { VerificationResult } from "../../../../src/schemas/result";
import { scriptedPort } from "../../../support/scripted-port";
import { clock, input, memoryLog } from "../../pipeline/helpers";

const RESPONSE = "Mitochondria produce most of the cell's ATP through oxidative phosphorylation.";
const settings = {
  evaluation_mode: "rubric_only" as const,
  deep_judgment_rubric: { ...DEFAULT_DEEP_JUDGMENT_RUBRIC, mode: "enable_all" as const },
};
const traits = [{ name: "cites_sources", kind: "boolean", description: "Does the answer cite a source?" }];

/** The state stage 11 leaves after deep-judging the traits with this judge. */
async function afterRubricEvaluation(quote: string): Promise<PipelineState> {
  const judge = scriptedPort({
    structured: (req) => (req.schemaName === "TraitExcerptsOutput" ? { excerpts: [{ text: quote, confidence: "high" }] } : { score: true }),
    chat: () => "Evidence: a citation.\nInterpretation: sourced.\nConclusion: The answer meets the criterion.",
  });
  const { deep } = partitionDeepJudgmentTraits(traits, "q1", settings.deep_judgment_rubric);
  const dj = await evaluateDeepJudgmentTraits(judge, deep, { question: "Which organelle makes ATP?", response: RESPONSE });
  return {
    started_at_ms: 0,
    parse_performed: false,
    usage: {},
    stages_run: ["generate_answer"],
    answer: { raw_llm_response: RESPONSE, trace_messages: [], usage: null },
    deep_judgment_rubric: dj.section,
  };
}

describe("stage 12 DeepJudgmentRubricAutoFail", () => {
  it("is in the stage list only for rubric modes with rubric deep judgment on", () => {
    const names = (s: Parameters<typeof stagesFor>[0]) => stagesFor(s).map((x) => x.name);
    expect(names({ ...input().settings, ...settings })).toContain("deep_judgment_rubric_autofail");
    expect(names({ ...input().settings, evaluation_mode: "rubric_only" })).not.toContain("deep_judgment_rubric_autofail");
    expect(names({ ...input().settings, ...settings, evaluation_mode: "template_only" })).not.toContain("deep_judgment_rubric_autofail");
  });

  it("a judge quoting text that is not in the response fails the answer: verify_result false, autofail deep_judgment_rubric", async () => {
    const state = await afterRubricEvaluation("According to Smith et al. (2019), mitochondria are the powerhouse.");
    const pipelineInput = input({}, settings);
    const log = memoryLog();
    const ports = { answerer: scriptedPort(), judge: scriptedPort(), clock: clock(), log };
    expect(deepJudgmentRubricAutoFail.shouldRun(state, pipelineInput)).toBe(true);
    const patch = await deepJudgmentRubricAutoFail.run(state, pipelineInput, ports);
    const result = VerificationResult.parse(await finalizeResult({ ...state, ...patch }, pipelineInput, ports));
    expect(result.template!.verify_result).toBe(false);
    expect(result.metadata.failure).toMatchObject({
      category: "deep_judgment_rubric",
      group: "autofail",
      stage: "deep_judgment_rubric_autofail",
    });
    expect(result.metadata.failure!.reason).toContain("cites_sources: 2 retries");
    expect(result.deep_judgment_rubric!.traits_without_valid_excerpts).toEqual(["cites_sources"]);
    expect(log.lines.some((l) => l.event === "verify_result_override")).toBe(true);
  });

  it("does not fire when every trait's excerpt is verbatim, nor after an abstention", async () => {
    const good = await afterRubricEvaluation("Mitochondria produce most of the cell's ATP");
    expect(deepJudgmentRubricAutoFail.shouldRun(good, input({}, settings))).toBe(false);
    const bad = await afterRubricEvaluation("made up words entirely unrelated");
    const abstained = { ...bad, abstention: { performed: true, detected: true, override_applied: true, reasoning: "refused" } };
    expect(deepJudgmentRubricAutoFail.shouldRun(abstained, input({}, settings))).toBe(false);
  });

  it("the deep_judgment_rubric section is null when rubric deep judgment is off, and present but not performed when on and never reached", async () => {
    const ports = { answerer: scriptedPort(), judge: scriptedPort(), clock: clock() };
    const base: PipelineState = { started_at_ms: 0, parse_performed: false, usage: {}, stages_run: [] };
    expect((await finalizeResult(base, input({}, { evaluation_mode: "rubric_only" }), ports)).deep_judgment_rubric).toBeNull();
    const on = await finalizeResult(base, input({}, settings), ports);
    expect(on.deep_judgment_rubric).toMatchObject({ deep_judgment_rubric_performed: false, total_traits_evaluated: 0 });
  });
});
