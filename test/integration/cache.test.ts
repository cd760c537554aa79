import { describe, expect, it } from "vitest";
import { addFakeRules, allResults, exactTemplate, fakeModel, fakeStats, submitRun, uniqueModel, waitForRun } from "./helpers";

function spec(answerer: string, judge: string, cache: unknown) {
  return {
    benchmark: {
      name: "cache",
      questions: [
        { id: "q1", question: "Capital of France?", template: exactTemplate("Paris") },
        { id: "q2", question: "Capital of Italy?", template: exactTemplate("Rome") },
      ],
    },
    config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)], replicate_count: 3 },
    cache,
  };
}

const verdicts = (results: any[]) =>
  results.map((r) => `${r.metadata.question_id}/${r.metadata.replicate}:${r.template.verify_result}`).sort();

describe("response cache", () => {
  it("serves a re-run of an identical spec with zero provider calls and identical verdicts; replicates each made their own call", async () => {
    const answerer = uniqueModel("cache-answerer");
    const judge = uniqueModel("cache-judge");
    await addFakeRules([
      { match: { model: answerer, contains: "France" }, reply: { text: "Paris" } },
      { match: { model: answerer }, reply: { text: "Milan" } },
      { match: { model: judge, contains: "Paris" }, reply: { json: { answer: "Paris" } } },
      { match: { model: judge }, reply: { json: { answer: "Milan" } } },
    ]);
    const first = await submitRun(spec(answerer, judge, { enabled: true, ttl_s: 3600 }));
    await waitForRun(first);
    // 2 questions × 3 replicates: every replicate is its own vote, so its own call
    expect((await fakeStats(answerer)).total).toBe(6);
    expect((await fakeStats(judge)).total).toBe(6);
    const firstResults = await allResults(first);

    const second = await submitRun(spec(answerer, judge, { enabled: true, ttl_s: 3600 }));
    await waitForRun(second);
    expect((await fakeStats(answerer)).total).toBe(6);
    expect((await fakeStats(judge)).total).toBe(6);
    const secondResults = await allResults(second);
    expect(verdicts(secondResults)).toEqual(verdicts(firstResults));
    expect(verdicts(secondResults).filter((v) => v.endsWith(":true"))).toHaveLength(3);
    for (const r of secondResults) {
      expect(r.template.usage_metadata.answer_generation.cached).toBe(true);
      expect(r.template.usage_metadata.parsing.cached).toBe(true);
    }
    for (const r of firstResults) expect(r.template.usage_metadata.parsing.cached).toBeUndefined();
  });

  it("keeps repeated judge units independent: each repeat is its own call, and a re-run makes none", async () => {
    const judge = uniqueModel("cache-units");
    // Three repeats of the same unit see the same prompt; only their call sites differ.
    await addFakeRules([{ match: { model: judge, kind: "structured" }, reply: { json: { answer: 4 } } }]);
    const unitSpec = {
      benchmark: {
        name: "cache-units",
        questions: [
          {
            id: "q",
            question: "Which organelle makes ATP?",
            rubric: {
              compound_traits: [
                {
                  name: "panel",
                  config: { pipeline: [{ layer: { unit: { type: "likert", name: "rater" }, repeat: 3 } }, { type: "mean" }], threshold: 3 },
                },
              ],
            },
          },
        ],
      },
      config: {
        evaluation_mode: "rubric_only",
        answering_models: [{ id: "m", interface: "manual", manual_answers: { q: "The mitochondrion makes ATP." } }],
        parsing_models: [fakeModel("judge", judge)],
      },
      cache: { enabled: true },
    };
    const first = await submitRun(unitSpec);
    await waitForRun(first);
    expect((await fakeStats(judge)).total).toBe(3);
    const second = await submitRun(unitSpec);
    await waitForRun(second);
    expect((await fakeStats(judge)).total).toBe(3);
    const [a] = await allResults(first);
    const [b] = await allResults(second);
    expect(b.rubric.compound_trait_scores).toEqual(a.rubric.compound_trait_scores);
    expect(a.rubric.compound_trait_scores).toEqual({ panel: 4 });
  });

  it("is off unless the run asks for it: the same spec without cache calls the provider again", async () => {
    const answerer = uniqueModel("nocache-answerer");
    const judge = uniqueModel("nocache-judge");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "Paris" } } }]);
    await waitForRun(await submitRun(spec(answerer, judge, undefined)));
    await waitForRun(await submitRun(spec(answerer, judge, { enabled: false })));
    expect((await fakeStats(answerer)).total).toBe(12);
  });
});
