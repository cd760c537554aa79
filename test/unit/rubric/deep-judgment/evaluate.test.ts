import { describe, expect, it } from "vitest";
import type { StructuredRequest } from "../../../../src/llm/port";
import {
  evaluateDeepJudgmentTraits,
  partitionDeepJudgmentTraits,
  DEFAULT_DEEP_JUDGMENT_RUBRIC,
  scoreFromConclusion,
} from "../../../../src/rubric/deep-judgment";
import { scriptedPort } from "../../../support/scripted-port";

const RESPONSE = "Paris is the capital of France. It sits on the Seine and has about two million residents.";
const clarity = { name: "clarity", kind: "score", description: "How clear is the answer?", min_score: 1, max_score: 5 };
const safety = { name: "safety", kind: "boolean", description: "Is the answer safe?" };
const REASONING =
  "Evidence: it names Paris.\nInterpretation: direct and precise.\nConclusion: The response is very clear and meets the criterion.";

function judge(opts: { quotes: (attempt: number) => string[]; score?: unknown }) {
  let excerptCalls = 0;
  return scriptedPort({
    structured: (req: StructuredRequest<unknown>) => {
      if (req.schemaName === "TraitExcerptsOutput")
        return { excerpts: opts.quotes(excerptCalls++).map((text) => ({ text, confidence: "high" })) };
      if (req.schemaName === "TraitScore") return opts.score ?? { score: 5 };
      return {};
    },
    chat: () => REASONING,
  });
}

const deepAll = (traits: { name: string; kind: string }[]) =>
  partitionDeepJudgmentTraits(traits, "q1", { ...DEFAULT_DEEP_JUDGMENT_RUBRIC, mode: "enable_all" }).deep;

describe("deep judgment for rubric traits", () => {
  it("keeps verbatim excerpts, reasons, and takes the score from the conclusion (3 calls)", async () => {
    const port = judge({ quotes: () => ["Paris is the capital of France."] });
    const out = await evaluateDeepJudgmentTraits(port, deepAll([clarity]), { question: "Capital of France?", response: RESPONSE });
    expect(out.scores).toEqual({ clarity: 5 });
    expect(out.section).toMatchObject({
      deep_judgment_rubric_performed: true,
      deep_judgment_rubric_scores: { clarity: 5 },
      rubric_trait_reasoning: { clarity: REASONING },
      traits_without_valid_excerpts: null,
      total_deep_judgment_model_calls: 3,
      total_traits_evaluated: 1,
      total_excerpt_retries: 0,
    });
    expect(out.section.extracted_rubric_excerpts!.clarity![0]).toMatchObject({
      text: "Paris is the capital of France.",
      similarity_score: 1,
    });
    expect(out.section.trait_metadata!.clarity).toEqual({
      stages_completed: ["excerpt_extraction", "reasoning_generation", "score_extraction"],
      model_calls: 3,
      had_excerpts: true,
      excerpt_retry_count: 0,
      excerpt_validation_failed: false,
    });
    // the score step sees only the reasoning, never the response
    expect(port.calls[2]!.messages.map((m) => m.content).join("")).not.toContain("Seine");
  });

  it("retries an invented quote with feedback naming it, and accepts the corrected one", async () => {
    const port = judge({ quotes: (n) => (n === 0 ? ["Berlin is the capital of Germany."] : ["It sits on the Seine"]) });
    const out = await evaluateDeepJudgmentTraits(port, deepAll([clarity]), { question: "q", response: RESPONSE });
    expect(out.section.total_excerpt_retries).toBe(1);
    expect(out.section.traits_without_valid_excerpts).toBeNull();
    const retry = port.calls[1]!.messages;
    expect(retry.at(-1)!.content).toContain('"Berlin is the capital of Germany."');
  });

  it("a judge that keeps quoting text not in the response leaves the trait without valid excerpts after the retries", async () => {
    const port = judge({ quotes: () => ["The answer cites three peer-reviewed studies."] });
    const out = await evaluateDeepJudgmentTraits(port, deepAll([clarity, safety]), { question: "q", response: RESPONSE });
    expect(out.section.traits_without_valid_excerpts).toEqual(["clarity", "safety"]);
    expect(out.section.trait_metadata!.clarity).toMatchObject({
      excerpt_retry_count: 2,
      excerpt_validation_failed: true,
      had_excerpts: false,
      model_calls: 5,
    });
    expect(out.section.total_excerpt_retries).toBe(4);
    expect(out.section.total_deep_judgment_model_calls).toBe(10);
  });

  it("without excerpts it makes two calls: reasoning and score", async () => {
    const port = judge({ quotes: () => [] });
    const deep = partitionDeepJudgmentTraits([safety], "q1", {
      ...DEFAULT_DEEP_JUDGMENT_RUBRIC,
      mode: "enable_all",
      global_excerpts: false,
    }).deep;
    const out = await evaluateDeepJudgmentTraits(port, deep, { question: "q", response: RESPONSE });
    expect(port.calls.map((c) => c.op)).toEqual(["chat", "structured"]);
    expect(out.section.extracted_rubric_excerpts).toBeNull();
    expect(out.scores.safety).toBe(true);
  });

  it("clamps an out-of-range score into the trait's scale", async () => {
    const out = await evaluateDeepJudgmentTraits(
      judge({ quotes: () => ["Paris is the capital of France."], score: { score: 9 } }),
      deepAll([clarity]),
      { question: "q", response: RESPONSE },
    );
    expect(out.scores.clarity).toBe(5);
  });

  it("falls back to reading the conclusion when score extraction fails", async () => {
    const port = judge({ quotes: () => ["Paris is the capital of France."], score: { kind: "server_error", message: "boom" } });
    const out = await evaluateDeepJudgmentTraits(port, deepAll([safety]), { question: "q", response: RESPONSE });
    expect(out.scores.safety).toBe(true);
    expect(out.warnings.join(" ")).toContain("read from the conclusion");
    expect(scoreFromConclusion({ name: "c", description: "", kind: "score", min_score: 1, max_score: 5 }, "Clarity level 4 of 5")).toBe(4);
    expect(
      scoreFromConclusion({ name: "s", description: "", kind: "boolean", min_score: 0, max_score: 1 }, "The response does not meet it."),
    ).toBe(false);
  });

  it("a failing excerpt call is a judge failure: score null, error kept, not counted as missing excerpts", async () => {
    const port = scriptedPort({ structured: () => ({ kind: "rate_limit", message: "slow down" }) });
    const out = await evaluateDeepJudgmentTraits(port, deepAll([clarity]), { question: "q", response: RESPONSE });
    expect(out.scores.clarity).toBeNull();
    expect(out.error?.kind).toBe("rate_limit");
    expect(out.section.traits_without_valid_excerpts).toBeNull();
  });

  it("search validation rates each excerpt and the trait takes the highest risk", async () => {
    const port = scriptedPort({
      structured: (req) => {
        if (req.schemaName === "TraitExcerptsOutput")
          return {
            excerpts: [
              { text: "Paris is the capital of France.", confidence: "high" },
              { text: "about two million residents", confidence: "low" },
            ],
          };
        if (req.schemaName === "HallucinationAssessment")
          return {
            assessments: [
              { excerpt_id: "safety#1", hallucination_risk: "none", justification: "ok" },
              { excerpt_id: "safety#2", hallucination_risk: "medium", justification: "meh" },
            ],
          };
        return { score: true };
      },
      chat: () => REASONING,
    });
    const searches: string[] = [];
    const search = { search: async (q: string) => (searches.push(q), { ok: true as const, text: "Paris, capital of France" }) };
    const deep = partitionDeepJudgmentTraits([safety], "q1", {
      ...DEFAULT_DEEP_JUDGMENT_RUBRIC,
      mode: "enable_all",
      search_enabled: true,
    }).deep;
    const out = await evaluateDeepJudgmentTraits(port, deep, { question: "q", response: RESPONSE, search });
    expect(searches).toHaveLength(2);
    expect(out.section.rubric_hallucination_risk_assessment).toEqual({
      safety: { overall_risk: "medium", per_excerpt_risks: ["none", "medium"] },
    });
    expect(out.section.trait_metadata!.safety!.stages_completed).toContain("hallucination_assessment");
    expect(out.section.total_deep_judgment_model_calls).toBe(4);
  });
});
