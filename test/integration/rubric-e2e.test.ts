import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import fixture from "../fixtures/karenina/llm_fixture_rubric_batch_ab0e36bb.json";
import withRubrics from "../fixtures/karenina/checkpoint_with_rubrics.jsonld?raw";
import { addFakeRules, allResults, api, fakeModel, fakeStats, submitRun, uniqueModel, waitForRun } from "./helpers";

interface TraitAgg {
  n: number;
  errored: number;
  mean_score: number | null;
  pass_rate: number | null;
}
const runView = async (runId: string) =>
  (await (await api(`/v1/runs/${runId}`)).json()) as {
    summary: { answering_model: string; parsing_model: string; traits: Record<string, TraitAgg> }[];
  };

describe("rubrics through the real queue", () => {
  it("imports checkpoint_with_rubrics and evaluates its LLM and regex traits end to end, with per-trait aggregates", async () => {
    const imported = await api("/v1/benchmarks/import", {
      method: "POST",
      body: withRubrics,
      headers: { "content-type": "application/json" },
    });
    expect(imported.status).toBe(201);
    const { benchmark_id } = (await imported.json()) as { benchmark_id: string };
    const stored = (await (await api(`/v1/benchmarks/${benchmark_id}`)).json()) as {
      benchmark: { questions: { id: string }[]; rubric: { llm_traits: unknown[]; regex_traits: unknown[] } };
    };
    expect(stored.benchmark.rubric.llm_traits).toHaveLength(3);
    expect(stored.benchmark.rubric.regex_traits).toHaveLength(2);
    const ids = stored.benchmark.questions.map((q) => q.id);
    const judge = uniqueModel("rubric-judge");
    // One batch call per answer for the three LLM traits; Completeness 9 is clamped to its maximum 5.
    await addFakeRules([
      { match: { model: judge, contains: "CITED" }, reply: { json: { scores: { Clarity: 4, Accuracy: true, Completeness: 9 } } } },
      { match: { model: judge, contains: "PLAIN" }, reply: { json: { scores: { Clarity: 2, Accuracy: false, Completeness: 3 } } } },
    ]);
    const answers = (tag: string, text: string) => Object.fromEntries(ids.map((id) => [id, `${tag}: ${text}`]));
    const runId = await submitRun({
      benchmark_id,
      config: {
        evaluation_mode: "rubric_only",
        answering_models: [
          { id: "cited", interface: "manual", manual_answers: answers("CITED", "As reported [1], it is 100 degrees.") },
          { id: "plain", interface: "manual", manual_answers: answers("PLAIN", "It is hot.") },
        ],
        parsing_models: [fakeModel("judge", judge)],
      },
    });
    const view = await waitForRun(runId);
    expect(view.status).toBe("completed");
    const results = await allResults(runId);
    expect(results).toHaveLength(2 * ids.length);
    for (const r of results) {
      const cited = r.metadata.answering.config_id === "cited";
      expect(r.metadata.evaluation_mode).toBe("rubric_only");
      expect(r.rubric).toMatchObject({
        rubric_evaluation_performed: true,
        rubric_evaluation_strategy: "batch",
        llm_trait_scores: cited ? { Clarity: 4, Accuracy: true, Completeness: 5 } : { Clarity: 2, Accuracy: false, Completeness: 3 },
        regex_trait_scores: { HasCitations: cited, HasNumbers: cited },
        trait_provenance: { Clarity: "global", HasCitations: "global" },
      });
      expect(r.metadata.failure).toBeNull();
    }
    expect((await fakeStats(judge)).total).toBe(2 * ids.length);
    const pair = async (a: string) => (await runView(runId)).summary.find((s) => s.answering_model === a)!.traits;
    const citedTraits = await pair("cited");
    expect(citedTraits.Clarity).toEqual({ n: ids.length, errored: 0, mean_score: 4, pass_rate: null });
    expect(citedTraits.Accuracy).toEqual({ n: ids.length, errored: 0, mean_score: null, pass_rate: 1 });
    expect((await pair("plain")).HasCitations).toEqual({ n: ids.length, errored: 0, mean_score: null, pass_rate: 0 });
  });

  it("replays Karenina's recorded batch rubric call through the adapters and gives the scores it implies", async () => {
    const judge = uniqueModel("replay-judge");
    const user = fixture.request.messages[1]!.content;
    const answer =
      "Photosynthesis is the process by which plants convert sunlight, water, and carbon dioxide into glucose and oxygen. Think of it as plants making their own food using sunlight as energy.";
    // edgeval sends the recorded user message verbatim except that the answer sits in a nonce block
    // (README "Differences from Karenina"). The rule fires only on the recorded text up to the
    // answer; the reply is the recorded one (fenced JSON). The rest is checked on the request below.
    const [before, after] = [user.slice(0, user.indexOf(answer)), user.slice(user.indexOf(answer) + answer.length)];
    await addFakeRules([{ match: { model: judge, contains: before }, reply: { text: fixture.response.content } }]);
    const runId = await submitRun({
      benchmark: {
        name: "replay",
        questions: [{ id: "photo", question: "Explain what photosynthesis is in simple terms." }],
        rubric: {
          llm_traits: [
            { name: "clarity", kind: "boolean", description: "The response is clear and easy to understand" },
            {
              name: "helpfulness",
              kind: "score",
              min_score: 1,
              max_score: 5,
              description: "The response is helpful and addresses the user's need",
            },
          ],
        },
      },
      config: {
        evaluation_mode: "rubric_only",
        answering_models: [{ id: "m", interface: "manual", manual_answers: { photo: answer } }],
        parsing_models: [fakeModel("judge", judge)],
      },
    });
    await waitForRun(runId);
    const [r] = await allResults(runId);
    expect(r.rubric.llm_trait_scores).toEqual({ clarity: true, helpfulness: 5 });
    expect(r.metadata.warnings).toEqual([]);
    const log = (await (await fetch(`${env.FAKE_LLM_URL}/_admin/requests?model=${judge}`)).json()) as {
      requests: { body: { messages: { role: string; content: string }[] } }[];
    };
    const sent = log.requests[0]!.body.messages.find((m) => m.role === "user")!.content;
    expect(sent.startsWith(before)).toBe(true);
    expect(sent.endsWith(after)).toBe(true);
    expect(sent).toMatch(new RegExp(`\\n<answer-([0-9a-f]{12})>\\n${answer.replace(/[.]/g, "\\.")}\\n</answer-\\1>`));
  });

  it("scores a compound trait and a JavaScript callable trait inside a rubric, in the run's results and summary", async () => {
    const judge = uniqueModel("compound-judge");
    await addFakeRules([{ match: { model: judge, kind: "structured" }, reply: { json: { answer: 4 } } }]);
    const runId = await submitRun({
      benchmark: {
        name: "compound",
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
              callable_traits: [
                { name: "says_atp", kind: "boolean", javascript_code: "function evaluate(text) { return text.includes('ATP'); }" },
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
    });
    await waitForRun(runId);
    const [r] = await allResults(runId);
    expect(r.rubric.compound_trait_scores).toEqual({ panel: 4 });
    expect(r.rubric.compound_trait_traces.panel).toMatchObject({ pass: true, score: 4 });
    expect(r.rubric.compound_trait_traces.panel.units.length).toBe(4);
    expect(r.rubric.callable_trait_scores).toEqual({ says_atp: true });
    const view = await runView(runId);
    expect(view.summary[0]!.traits.panel).toEqual({ n: 1, errored: 0, mean_score: 4, pass_rate: 1 });
    expect(view.summary[0]!.traits.says_atp).toEqual({ n: 1, errored: 0, mean_score: null, pass_rate: 1 });
    // rubric_only has no template verdict: nothing is counted as passed, failed or errored.
    expect(view.summary[0]).toMatchObject({ passed: 0, failed: 0, errored: 0, pass_rate: null });
  });
});
