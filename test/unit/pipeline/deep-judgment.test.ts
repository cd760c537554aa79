import { describe, expect, it } from "vitest";
import { DEFAULT_DEEP_JUDGMENT } from "../../../src/pipeline/artifacts";
import { collapseWhitespace, excerptSimilarity } from "../../../src/core-shared/fuzzy";
import { runPipeline } from "../../../src/pipeline/orchestrator";
import { VerificationResult } from "../../../src/schemas/result";
import { scriptedPort } from "../../support/scripted-port";
import { clock, input, judgeBy, memoryLog, question } from "./helpers";

const RESPONSE =
  "Water boils at 100 degrees Celsius, which is equivalent to 212 degrees Fahrenheit at standard atmospheric pressure (sea level). This is a fundamental physical property that is used as a calibration point for temperature scales.";

describe("excerptSimilarity (difflib's find_longest_match over collapsed whitespace)", () => {
  // Expected values computed with Python 3 difflib, as Karenina's fuzzy_match_excerpt does.
  it.each([
    ["Water boils at 100 degrees Celsius", 1],
    ["212 degrees Fahrenheit at standard atmospheric pressure (sea level)", 1],
    ["Water freezes at 0 degrees Celsius under normal pressure", 0.10714285714285714],
    ["the boiling point is 373 kelvin", 0.16129032258064516],
    ["this is a  fundamental\nphysical property", 0.9743589743589743],
    ["at the", 0], // only "popular" characters (autojunk on a 200+ char response)
  ])("%s → %d", (excerpt, expected) => {
    expect(excerptSimilarity(excerpt, RESPONSE)).toBeCloseTo(expected, 12);
  });
  it("collapses whitespace on both sides", () => {
    expect(collapseWhitespace("  a \n\t b  ")).toBe("a b");
    expect(excerptSimilarity("abc def", "xx abc  def yy")).toBe(1);
    expect(excerptSimilarity("", RESPONSE)).toBe(0);
  });
});

const q = question({
  question: "What is the boiling point of water at sea level?",
  template: {
    fields: [
      { name: "celsius", type: "int", description: "Temperature in Celsius", ground_truth: 100, verify_with: { type: "NumericExact" } },
      {
        name: "fahrenheit",
        type: "int",
        description: "Temperature in Fahrenheit",
        ground_truth: 212,
        verify_with: { type: "NumericExact" },
      },
    ],
  },
});
const FULL = { deep_judgment: { ...DEFAULT_DEEP_JUDGMENT, mode: "full" as const } };
const reasoning = () => ({ celsius: "States 100 degrees Celsius.", fahrenheit: "States 212 degrees Fahrenheit." });
const parse = () => ({ celsius: 100, fahrenheit: 212 });

describe("deep judgment for templates", () => {
  it("full: extracts validated excerpts, reasons, parses, and passes a faithful answer", async () => {
    const judge = judgeBy({
      DeepJudgmentExcerpts: () => ({
        celsius: [{ text: "Water boils at 100 degrees Celsius", confidence: "high" }],
        fahrenheit: [{ text: "212 degrees Fahrenheit", confidence: "high" }],
      }),
      DeepJudgmentReasoning: reasoning,
      Answer: parse,
    });
    const { result } = await runPipeline(input({ question: q }, FULL), {
      answerer: scriptedPort({ chat: () => RESPONSE }),
      judge,
      clock: clock(),
    });
    expect(result.deep_judgment).toEqual({
      deep_judgment_enabled: true,
      deep_judgment_mode: "full",
      deep_judgment_performed: true,
      extracted_excerpts: {
        celsius: [{ text: "Water boils at 100 degrees Celsius", confidence: "high", similarity_score: 1 }],
        fahrenheit: [{ text: "212 degrees Fahrenheit", confidence: "high", similarity_score: 1 }],
      },
      attribute_reasoning: reasoning(),
      deep_judgment_stages_completed: ["excerpts", "reasoning", "parameters"],
      deep_judgment_model_calls: 3,
      deep_judgment_excerpt_retry_count: 0,
      attributes_without_excerpts: [],
      deep_judgment_search_enabled: false,
      hallucination_risk_assessment: null,
    });
    expect(result.template?.verify_result).toBe(true);
    expect(result.metadata.failure).toBeNull();
    expect(Object.keys(result.template!.usage_metadata!)).toEqual([
      "answer_generation",
      "deep_judgment_excerpts",
      "deep_judgment_reasoning",
      "parsing",
      "total",
    ]);
    const finalParse = judge.calls[2]!.messages[1]!.content;
    expect(finalParse).toContain("States 212 degrees Fahrenheit.");
    const reasoningPrompt = judge.calls[1]!.messages[1]!.content;
    expect(reasoningPrompt).toContain('"Water boils at 100 degrees Celsius" (confidence: high, similarity: 1.00)');
    expect(VerificationResult.parse(result)).toEqual(result);
  });

  it("full: an invented excerpt is retried with feedback, then autofails the answer at stage 10", async () => {
    const log = memoryLog();
    const judge = judgeBy({
      DeepJudgmentExcerpts: () => ({
        celsius: [{ text: "Water boils at 100 degrees Celsius", confidence: "high" }],
        fahrenheit: [{ text: "the boiling point is 373 kelvin", confidence: "high" }],
      }),
      DeepJudgmentReasoning: reasoning,
      Answer: parse,
    });
    const { result } = await runPipeline(input({ question: q }, FULL), {
      answerer: scriptedPort({ chat: () => RESPONSE }),
      judge,
      clock: clock(),
      log,
    });
    expect(result.deep_judgment).toMatchObject({
      deep_judgment_performed: true,
      attributes_without_excerpts: ["fahrenheit"],
      deep_judgment_excerpt_retry_count: 2,
      deep_judgment_model_calls: 5,
      extracted_excerpts: { fahrenheit: [] },
    });
    const retry = judge.calls[1]!.messages.at(-1)!.content;
    expect(retry).toContain('- fahrenheit: "the boiling point is 373 kelvin"');
    expect(retry).not.toContain("celsius:");
    expect(result.template).toMatchObject({
      template_verification_performed: true,
      field_results: { celsius: true, fahrenheit: true },
      verify_result: false,
    });
    expect(result.metadata.failure).toMatchObject({ category: "deep_judgment", group: "autofail", stage: "deep_judgment_autofail" });
    expect(result.metadata.failure!.reason).toContain("fahrenheit");
    expect(log.lines.some((l) => l.event === "verify_result_override" && l.fields?.stage === "deep_judgment_autofail")).toBe(true);
  });

  it("full: a retry that finds the quote keeps it and passes", async () => {
    let round = 0;
    const judge = judgeBy({
      DeepJudgmentExcerpts: () =>
        round++ === 0
          ? {
              celsius: [{ text: "Water boils at 100 degrees Celsius", confidence: "high" }],
              fahrenheit: [{ text: "it is 212F", confidence: "low" }],
            }
          : { fahrenheit: [{ text: "212 degrees Fahrenheit", confidence: "high" }] },
      DeepJudgmentReasoning: reasoning,
      Answer: parse,
    });
    const { result } = await runPipeline(input({ question: q }, FULL), {
      answerer: scriptedPort({ chat: () => RESPONSE }),
      judge,
      clock: clock(),
    });
    expect(result.deep_judgment).toMatchObject({ attributes_without_excerpts: [], deep_judgment_excerpt_retry_count: 1 });
    expect(result.deep_judgment!.extracted_excerpts!.celsius).toHaveLength(1);
    expect(result.template?.verify_result).toBe(true);
  });

  it("reasoning_only: no excerpts, no autofail, two calls", async () => {
    const judge = judgeBy({ DeepJudgmentReasoning: reasoning, Answer: parse });
    const { result } = await runPipeline(input({ question: q }, { deep_judgment: { ...DEFAULT_DEEP_JUDGMENT, mode: "reasoning_only" } }), {
      answerer: scriptedPort({ chat: () => RESPONSE }),
      judge,
      clock: clock(),
    });
    expect(judge.calls).toHaveLength(2);
    expect(judge.calls[0]!.messages[1]!.content).toContain(`<response>\n${RESPONSE}`);
    expect(result.deep_judgment).toMatchObject({
      deep_judgment_mode: "reasoning_only",
      deep_judgment_performed: true,
      extracted_excerpts: null,
      attributes_without_excerpts: null,
      deep_judgment_stages_completed: ["reasoning", "parameters"],
      deep_judgment_model_calls: 2,
    });
    expect(result.template?.verify_result).toBe(true);
  });

  it("a failing deep-judgment judge is a parsing failure, never a verdict", async () => {
    const judge = judgeBy({ DeepJudgmentExcerpts: () => ({ kind: "invalid_output", message: "no json" }) });
    const { result } = await runPipeline(input({ question: q }, FULL), {
      answerer: scriptedPort({ chat: () => RESPONSE }),
      judge,
      clock: clock(),
    });
    expect(result.metadata.failure).toMatchObject({ category: "parsing", stage: "parse_template" });
    expect(result.template?.verify_result).toBeNull();
    expect(result.deep_judgment).toMatchObject({ deep_judgment_performed: false, deep_judgment_model_calls: 1 });
  });

  it("leaves the deep_judgment section out when disabled", async () => {
    const { result } = await runPipeline(input(), {
      answerer: scriptedPort(),
      judge: judgeBy({ Answer: () => ({ organelle: "x" }) }),
      clock: clock(),
    });
    expect(result.deep_judgment).toBeNull();
  });
});

describe("deep judgment with search (hallucination risk)", () => {
  const SEARCH = { deep_judgment: { ...DEFAULT_DEEP_JUDGMENT, mode: "full" as const, search_enabled: true } };
  const excerpts = () => ({
    celsius: [{ text: "Water boils at 100 degrees Celsius", confidence: "high" }],
    fahrenheit: [
      { text: "212 degrees Fahrenheit", confidence: "high" },
      { text: "equivalent to 212 degrees Fahrenheit", confidence: "medium" },
    ],
  });

  it("searches each excerpt, records per-excerpt risk and the highest risk per attribute", async () => {
    const queries: string[] = [];
    const search = { search: async (q: string) => (queries.push(q), { ok: true as const, text: `results for ${q}` }) };
    const judge = judgeBy({
      DeepJudgmentExcerpts: excerpts,
      HallucinationAssessment: (prompt) => {
        expect(prompt).toContain("[fahrenheit#2] attribute: fahrenheit");
        expect(prompt).toContain("results for 212 degrees Fahrenheit");
        return {
          assessments: [
            { excerpt_id: "celsius#1", hallucination_risk: "none", justification: "textbook fact" },
            { excerpt_id: "fahrenheit#1", hallucination_risk: "low", justification: "supported" },
            { excerpt_id: "fahrenheit#2", hallucination_risk: "medium", justification: "partly" },
          ],
        };
      },
      DeepJudgmentReasoning: (prompt) => {
        expect(prompt).toContain("hallucination risk: MEDIUM — partly");
        return reasoning();
      },
      Answer: parse,
    });
    const { result } = await runPipeline(input({ question: q }, SEARCH), {
      answerer: scriptedPort({ chat: () => RESPONSE }),
      judge,
      clock: clock(),
      search,
    });
    expect(queries).toEqual(["Water boils at 100 degrees Celsius", "212 degrees Fahrenheit", "equivalent to 212 degrees Fahrenheit"]);
    expect(result.deep_judgment).toMatchObject({
      deep_judgment_search_enabled: true,
      hallucination_risk_assessment: { celsius: "none", fahrenheit: "medium" },
      deep_judgment_stages_completed: ["excerpts", "hallucination", "reasoning", "parameters"],
      deep_judgment_model_calls: 4,
    });
    expect(result.deep_judgment!.extracted_excerpts!.celsius![0]).toEqual({
      text: "Water boils at 100 degrees Celsius",
      confidence: "high",
      similarity_score: 1,
      search_results: "results for Water boils at 100 degrees Celsius",
      hallucination_risk: "none",
      hallucination_justification: "textbook fact",
    });
    expect(result.template?.verify_result).toBe(true);
    expect(VerificationResult.parse(result)).toEqual(result);
  });

  it("rates an excerpt the judge skipped as high risk, and notes failed searches as warnings", async () => {
    const search = {
      search: async (q: string) => (q.startsWith("Water") ? { ok: false as const, error: "HTTP 503" } : { ok: true as const, text: "ok" }),
    };
    const judge = judgeBy({
      DeepJudgmentExcerpts: excerpts,
      HallucinationAssessment: () => ({ assessments: [{ excerpt_id: "fahrenheit#1", hallucination_risk: "low", justification: "ok" }] }),
      DeepJudgmentReasoning: reasoning,
      Answer: parse,
    });
    const { result } = await runPipeline(input({ question: q }, SEARCH), {
      answerer: scriptedPort({ chat: () => RESPONSE }),
      judge,
      clock: clock(),
      search,
    });
    expect(result.deep_judgment!.hallucination_risk_assessment).toEqual({ celsius: "high", fahrenheit: "high" });
    expect(result.deep_judgment!.extracted_excerpts!.celsius![0]!.search_results).toBe("(search failed: HTTP 503)");
    expect(result.metadata.warnings).toEqual([expect.stringContaining("search failed for an excerpt of celsius: HTTP 503")]);
  });

  it("without a search port: a warning, no risk assessment, the rest of deep judgment runs", async () => {
    const judge = judgeBy({ DeepJudgmentExcerpts: excerpts, DeepJudgmentReasoning: reasoning, Answer: parse });
    const { result } = await runPipeline(input({ question: q }, SEARCH), {
      answerer: scriptedPort({ chat: () => RESPONSE }),
      judge,
      clock: clock(),
    });
    expect(result.deep_judgment).toMatchObject({
      deep_judgment_search_enabled: true,
      hallucination_risk_assessment: null,
      deep_judgment_performed: true,
    });
    expect(result.metadata.warnings).toEqual([expect.stringContaining("no search port is configured")]);
  });
});
