// Issue 25: the result page inside workerd — the deep-judgment excerpt marked in the answer, the
// template's field-level verdicts, the rubric's scores, the compound judge's graph drawn as SVG,
// and a failure in words.
import { describe, expect, it } from "vitest";
import { addFakeRules, exactTemplate, fakeModel, uniqueModel } from "./helpers";
import { apiAs, createTenant, submitAs, waitAs } from "./tenant-helpers";
import { dashboardFetch, dashboardSession } from "./dashboard-helpers";

describe("dashboard result page", () => {
  it("marks the excerpt in the answer and shows field verdicts, rubric scores and the compound judge's graph", async () => {
    const t = await createTenant();
    const judge = uniqueModel("dash-result");
    await addFakeRules([
      {
        match: { model: judge, contains: "expert excerpt extractor" },
        reply: { json: { answer: [{ text: "Paris is the capital of France", confidence: "high" }] } },
      },
      { match: { model: judge, contains: "expert reasoning generator" }, reply: { json: { answer: "The excerpt names Paris." } } },
      { match: { model: judge, contains: "Parse the following response" }, reply: { json: { answer: "Paris" } } },
      { match: { model: judge, kind: "structured" }, reply: { json: { answer: 4 } } },
    ]);
    const runId = await submitAs(t.key, {
      benchmark: {
        name: "dash-result",
        questions: [
          {
            id: "capital",
            question: "What is the capital of France?",
            template: exactTemplate("Paris"),
            rubric: {
              compound_traits: [
                {
                  name: "panel",
                  config: { pipeline: [{ layer: { unit: { type: "likert", name: "rater" }, repeat: 2 } }, { type: "mean" }], threshold: 3 },
                },
              ],
            },
          },
        ],
      },
      config: {
        evaluation_mode: "template_and_rubric",
        deep_judgment_mode: "full",
        answering_models: [
          { id: "m", interface: "manual", manual_answers: { capital: "Well: Paris is the capital of France, on the Seine." } },
        ],
        parsing_models: [fakeModel("j", judge)],
      },
    });
    await waitAs(t.key, runId);
    const { results } = (await (await apiAs(t.key, `/v1/runs/${runId}/results`)).json()) as {
      results: { metadata: { result_id: string } }[];
    };
    const res = await dashboardFetch(`/dashboard/runs/${runId}/results/${results[0]!.metadata.result_id}`, {
      cookie: await dashboardSession(t.key),
    });
    expect(res.status).toBe(200);
    const html = await res.text();

    // The excerpt is marked where it occurs, the rest of the answer is not.
    expect(html).toMatch(
      /<pre id="answer">Well: <mark class="excerpt" title="answer" data-for="answer">Paris is the capital of France<\/mark>, on the Seine\.<\/pre>/,
    );
    const fields = html.match(/<table id="field-verdicts">[\s\S]*?<\/table>/)![0];
    expect(fields).toMatch(/<th scope="row">answer<\/th><td>Paris<\/td><td>Paris<\/td><td class="verdict-pass">pass<\/td>/);
    const rubric = html.match(/<table id="rubric-scores">[\s\S]*?<\/table>/)![0];
    expect(rubric).toMatch(/<th scope="row">panel<\/th><td>compound<\/td><td>4<\/td>/);
    const graph = html.match(/<svg class="judge-graph" id="graph-panel"[\s\S]*?<\/svg>/)![0];
    // Two raters and the pool that reads both: three boxes, two arrows.
    expect([...graph.matchAll(/data-unit="([^"]+)"/g)].map((m) => m[1])).toHaveLength(3);
    expect(graph.match(/<line class="edge"/g)).toHaveLength(2);
    expect(graph).toContain('role="img"');
  });

  it("says why a result failed in words", async () => {
    const t = await createTenant();
    const judge = uniqueModel("dash-fail");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "Lyon" } } }]);
    const runId = await submitAs(t.key, {
      benchmark: { name: "dash-fail", questions: [{ id: "capital", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: {
        answering_models: [{ id: "m", interface: "manual", manual_answers: { capital: "Lyon." } }],
        parsing_models: [fakeModel("j", judge)],
      },
    });
    await waitAs(t.key, runId);
    const { results } = (await (await apiAs(t.key, `/v1/runs/${runId}/results`)).json()) as {
      results: { metadata: { result_id: string } }[];
    };
    const html = await (
      await dashboardFetch(`/dashboard/runs/${runId}/results/${results[0]!.metadata.result_id}`, { cookie: await dashboardSession(t.key) })
    ).text();
    expect(html).toMatch(/<p id="failure-reason"><strong>content<\/strong> \(content\) at stage <code>verify_template<\/code>: [^<]+<\/p>/);
    expect(html).toMatch(/<td class="verdict-fail">fail<\/td>/);
  });

  it("heads the page with the verdict, and a failed judge reads as grading that failed, never as a wrong answer", async () => {
    const t = await createTenant();
    const judge = uniqueModel("dash-verdict");
    await addFakeRules([
      { match: { model: judge, contains: "Broken?" }, reply: { fault: "malformed" } },
      { match: { model: judge }, reply: { json: { answer: "Lyon" } } },
    ]);
    const runId = await submitAs(t.key, {
      benchmark: {
        name: "dash-verdict",
        questions: [
          { id: "wrong", question: "Capital of France?", template: exactTemplate("Paris") },
          { id: "broken", question: "Broken?", template: exactTemplate("Paris") },
        ],
      },
      config: {
        answering_models: [{ id: "m", interface: "manual", manual_answers: { wrong: "Lyon.", broken: "Paris." } }],
        parsing_models: [fakeModel("j", judge)],
      },
    });
    await waitAs(t.key, runId);
    const { results } = (await (await apiAs(t.key, `/v1/runs/${runId}/results`)).json()) as {
      results: { metadata: { result_id: string; question_id: string } }[];
    };
    const cookie = await dashboardSession(t.key);
    const pageOf = async (q: string) => {
      const id = results.find((r) => r.metadata.question_id === q)!.metadata.result_id;
      return (await dashboardFetch(`/dashboard/runs/${runId}/results/${id}`, { cookie })).text();
    };
    const wrong = await pageOf("wrong");
    expect(wrong).toMatch(/<p id="verdict">Verdict: <strong class="verdict-fail">fail<\/strong>/);
    expect(wrong).toContain("Why the answer failed");
    const broken = await pageOf("broken");
    expect(broken).toMatch(/<p id="verdict">Verdict: <strong class="verdict-error">error<\/strong>/);
    expect(broken).toContain("says nothing about the answer");
    expect(broken).toContain("Why grading failed");
    expect(broken).not.toContain("Why the answer failed");
  });
});
