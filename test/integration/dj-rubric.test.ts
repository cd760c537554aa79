/**
 * Deep judgment for rubrics through the real queue: a judge whose excerpts are not in the
 * response fails the answer at stage 12 (verify_result false, autofail deep_judgment_rubric),
 * while verbatim excerpts leave it standing.
 */
import { describe, expect, it } from "vitest";
import { addFakeRules, allResults, fakeModel, submitRun, uniqueModel, waitForRun } from "./helpers";

const ANSWER = "Mitochondria produce most of the cell's ATP through oxidative phosphorylation.";

async function run(quote: string) {
  const answerer = uniqueModel("dj-ans");
  const judge = uniqueModel("dj-judge");
  await addFakeRules([
    { match: { model: answerer }, reply: { text: ANSWER } },
    {
      match: { model: judge, kind: "structured", contains: "You collect evidence" },
      reply: { json: { excerpts: [{ text: quote, confidence: "high" }] } },
    },
    { match: { model: judge, kind: "structured", contains: "into a score" }, reply: { json: { score: true } } },
    {
      match: { model: judge, kind: "chat" },
      reply: { text: "Evidence: quoted.\nInterpretation: fine.\nConclusion: The answer meets the criterion." },
    },
  ]);
  const runId = await submitRun({
    benchmark: {
      name: "dj-rubric",
      questions: [
        {
          id: "q-atp",
          question: "Which organelle makes ATP?",
          rubric: {
            llm_traits: [{ name: "names_organelle", description: "Does it name the organelle?", kind: "boolean", higher_is_better: true }],
          },
        },
      ],
    },
    config: {
      answering_models: [fakeModel("ans", answerer)],
      parsing_models: [fakeModel("judge", judge)],
      evaluation_mode: "rubric_only",
      deep_judgment_rubric_mode: "enable_all",
    },
  });
  await waitForRun(runId);
  const [result] = await allResults(runId);
  return result;
}

describe("deep judgment for rubrics in a run", () => {
  it("a judge quoting text that is not in the response triggers stage 12: verify_result false", async () => {
    const result = await run("According to a 2019 Nature paper, the nucleus makes ATP.");
    expect(result.template.verify_result).toBe(false);
    expect(result.metadata.failure).toMatchObject({
      category: "deep_judgment_rubric",
      group: "autofail",
      stage: "deep_judgment_rubric_autofail",
    });
    expect(result.deep_judgment_rubric).toMatchObject({
      deep_judgment_rubric_performed: true,
      traits_without_valid_excerpts: ["names_organelle"],
      total_excerpt_retries: 2,
      total_traits_evaluated: 1,
    });
  });

  it("verbatim excerpts pass stage 12 and the deep-judged score reaches the rubric section", async () => {
    const result = await run("Mitochondria produce most of the cell's ATP");
    expect(result.metadata.failure).toBeNull();
    expect(result.deep_judgment_rubric.deep_judgment_rubric_scores).toEqual({ names_organelle: true });
    expect(result.deep_judgment_rubric.traits_without_valid_excerpts).toBeNull();
    expect(result.rubric.llm_trait_scores).toEqual({ names_organelle: true });
  });
});
