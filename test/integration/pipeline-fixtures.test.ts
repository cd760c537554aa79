/**
 * Karenina's recorded judge calls (reference/karenina-data/llm_fixture_*.json), replayed through
 * the real SDK adapters and the real queue: the fake LLM server answers with the recorded text,
 * and the results must say what that text implies.
 */
import { describe, expect, it } from "vitest";
import abstentionFixture from "../fixtures/karenina/llm_fixture_abstention_1e759022.json";
import deepJudgmentFixture from "../fixtures/karenina/llm_fixture_deep_judgment_13b945f2.json";
import parsingFixture from "../fixtures/karenina/llm_fixture_template_parsing_0e515278.json";
import { addFakeRules, allResults, fakeModel, submitRun, uniqueModel, waitForRun } from "./helpers";

/** The text between two markers of a recorded user message. */
function between(text: string, start: string, end: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end, from + start.length);
  if (from < 0 || to < 0) throw new Error(`fixture has no ${start}…${end}`);
  return text.slice(from + start.length, to).trim();
}
const userText = (f: { request: { messages: { type: string; content: string }[] } }) =>
  f.request.messages.find((m) => m.type === "human")!.content;

async function runOne(question: Record<string, unknown>, answerer: string, judge: string, config: Record<string, unknown> = {}) {
  const runId = await submitRun({
    benchmark: { name: "fixture-replay", questions: [question] },
    config: { answering_models: [fakeModel("answerer", answerer)], parsing_models: [fakeModel("judge", judge)], ...config },
  });
  await waitForRun(runId);
  const [result] = await allResults(runId);
  return result;
}

describe("recorded Karenina judge calls, replayed", () => {
  it("abstention: the recorded verdict gives abstention_detected true and verify_result false", async () => {
    const user = userText(abstentionFixture);
    const question = between(user, "<original_question>", "</original_question>");
    const response = between(user, "<model_response>", "</model_response>");
    const answerer = uniqueModel("abst-ans");
    const judge = uniqueModel("abst-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: response } },
      { match: { model: judge, contains: "abstention detection" }, reply: { text: abstentionFixture.response.content } },
    ]);
    const result = await runOne(
      {
        id: "q-abst",
        question,
        template: {
          fields: [{ name: "answer", type: "str", description: "the answer", ground_truth: "x", verify_with: { type: "ExactMatch" } }],
        },
      },
      answerer,
      judge,
      { abstention_enabled: true },
    );
    expect(result.template).toMatchObject({
      raw_llm_response: response,
      abstention_check_performed: true,
      abstention_detected: true,
      abstention_override_applied: true,
      verify_result: false,
      parsed_llm_response: null,
    });
    expect(result.template.abstention_reasoning).toMatch(/^The model explicitly refuses/);
    expect(result.metadata.failure).toMatchObject({ category: "abstention", group: "abstained" });
  });

  it("template parsing: the recorded reply gives the gene symbol, chromosome and function", async () => {
    const user = userText(parsingFixture);
    const question = between(user, "**ORIGINAL QUESTION:**", "**RESPONSE TO PARSE:**");
    const response = between(user, "**RESPONSE TO PARSE:**", "**JSON SCHEMA");
    const answerer = uniqueModel("parse-ans");
    const judge = uniqueModel("parse-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: response } },
      { match: { model: judge, contains: "Parse the following response" }, reply: { text: parsingFixture.response.content } },
    ]);
    const field = (name: string, description: string, ground_truth: string) => ({
      name,
      type: "str",
      description,
      ground_truth,
      verify_with: { type: "ExactMatch" },
    });
    const result = await runOne(
      {
        id: "q-bcl2",
        question,
        template: {
          fields: [
            field("gene_symbol", "The official gene symbol", "BCL2"),
            field("chromosome", "The chromosome location", "18q21.33"),
            field("function", "The primary function of the gene", "inhibit apoptosis"),
          ],
        },
      },
      answerer,
      judge,
    );
    expect(result.template.parsed_llm_response).toEqual({ gene_symbol: "BCL2", chromosome: "18q21.33", function: "inhibit apoptosis" });
    expect(result.template.verify_result).toBe(true);
    expect(result.metadata.failure).toBeNull();
  });

  it("deep judgment: the recorded excerpts come back per attribute with their similarity scores", async () => {
    const user = userText(deepJudgmentFixture);
    const question = between(user, "<original_question>", "</original_question>");
    const response = between(user, "<response_to_analyze>", "</response_to_analyze>");
    const answerer = uniqueModel("dj-ans");
    const judge = uniqueModel("dj-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: response } },
      { match: { model: judge, contains: "expert excerpt extractor" }, reply: { text: deepJudgmentFixture.response.content } },
      {
        match: { model: judge, contains: "expert reasoning generator" },
        reply: { json: { celsius: "100 degrees Celsius is stated.", fahrenheit: "212 degrees Fahrenheit is stated." } },
      },
      { match: { model: judge, contains: "Parse the following response" }, reply: { json: { celsius: 100, fahrenheit: 212 } } },
    ]);
    const result = await runOne(
      {
        id: "q-boil",
        question,
        template: {
          fields: [
            {
              name: "celsius",
              type: "int",
              description: "Temperature in Celsius",
              ground_truth: 100,
              verify_with: { type: "NumericExact" },
            },
            {
              name: "fahrenheit",
              type: "int",
              description: "Temperature in Fahrenheit",
              ground_truth: 212,
              verify_with: { type: "NumericExact" },
            },
          ],
        },
      },
      answerer,
      judge,
      { deep_judgment_mode: "full" },
    );
    const recorded = JSON.parse(deepJudgmentFixture.response.content.replace(/^```json\s*|\s*```$/g, "")) as Record<
      string,
      { text: string; confidence: string }[]
    >;
    // Verbatim quotes of the response: similarity 1.0 (Python difflib gives the same).
    const expected = Object.fromEntries(Object.entries(recorded).map(([a, list]) => [a, list.map((e) => ({ ...e, similarity_score: 1 }))]));
    expect(result.deep_judgment.extracted_excerpts).toEqual(expected);
    expect(result.deep_judgment).toMatchObject({
      deep_judgment_performed: true,
      attributes_without_excerpts: [],
      deep_judgment_model_calls: 3,
    });
    expect(result.template.verify_result).toBe(true);
  });
});
