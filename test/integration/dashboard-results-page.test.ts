// The dashboard's results page filters as GET /v1/runs/:id/results does (src/http/result-filter.ts):
// a model or question id the run does not have is a 400 page naming the field and listing what the
// run has, so a typo in the filter form never reads as "0 results on this page".
import { describe, expect, it } from "vitest";
import { addFakeRules, exactTemplate, fakeModel, uniqueModel } from "./helpers";
import { createTenant, submitAs, waitAs } from "./tenant-helpers";
import { dashboardFetch, dashboardSession } from "./dashboard-helpers";

describe("dashboard results page", () => {
  it("refuses a filter naming a model or question the run lacks, naming the field and what the run has", async () => {
    const t = await createTenant();
    const judge = uniqueModel("dash-filter");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "x" } } }]);
    const questions = ["q1", "q2"].map((id) => ({ id, question: `${id}?`, template: exactTemplate("x") }));
    const runId = await submitAs(t.key, {
      benchmark: { name: "dash-filter", questions },
      config: {
        answering_models: [{ id: "alpha", interface: "manual", manual_answers: { q1: "x", q2: "x" } }],
        parsing_models: [fakeModel("judge", judge)],
      },
    });
    await waitAs(t.key, runId);
    const cookie = await dashboardSession(t.key);
    const results = (query: string) => dashboardFetch(`/dashboard/runs/${runId}/results?${query}`, { cookie });

    const ok = await results("answering_model=alpha&question_id=q1");
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("1 results on this page");

    for (const [query, field, has] of [
      ["answering_model=alpah", "answering_model", '"alpha"'],
      ["parsing_model=jduge", "parsing_model", '"judge"'],
      ["question_id=q9", "question_id", '"q1", "q2"'],
    ] as const) {
      const res = await results(query);
      expect(res.status, query).toBe(400);
      const html = await res.text();
      expect(html).toContain(`query ${field}`);
      expect(html).toContain(`it has ${has.replaceAll('"', "&quot;")}`);
      expect(html).not.toContain("results on this page");
    }
  });
});
