// The run page's Re-score form inside workerd: a new judge (one of the run's judges with another
// model) and more replicates start the child exactly as POST /v1/runs/:id/rescore does, from this
// origin and for a key with runs:write only, landing on the child's page; a refusal is a 400 page
// naming the form's field, with no child made.
import { beforeAll, describe, expect, it } from "vitest";
import { addFakeRules, exactTemplate, fakeModel, fakeStats, uniqueModel } from "./helpers";
import { apiAs, createKey, createTenant, submitAs, type TestTenant, waitAs } from "./tenant-helpers";
import { dashboardFetch, dashboardSession, ORIGIN } from "./dashboard-helpers";

const QUESTIONS = Array.from({ length: 3 }, (_, i) => ({
  id: `q${i}`,
  question: `[DR${i}] Capital of France?`,
  template: exactTemplate("Paris"),
}));
const answerer = uniqueModel("drs-ans");
const j1 = uniqueModel("drs-j1");
const j2 = uniqueModel("drs-j2");

let t: TestTenant;
let session: string;
let parent: string;

const press = (runId: string, fields: Record<string, string>, opts: { cookie?: string; origin?: string | null } = {}) =>
  dashboardFetch(`/dashboard/runs/${runId}/rescore`, {
    method: "POST",
    cookie: opts.cookie ?? session,
    body: new URLSearchParams(fields),
    headers: opts.origin === null ? {} : { origin: opts.origin ?? ORIGIN },
  });
/** The page's text with JSX's escapes undone, to compare with a message. */
const unescaped = (html: string) => html.replaceAll("&#39;", "'").replaceAll("&quot;", '"').replaceAll("&amp;", "&");
const children = async (runId: string) =>
  ((await (await apiAs(t.key, `/v1/runs/${runId}`)).json()) as { lineage: { children: string[] } }).lineage.children;

beforeAll(async () => {
  await addFakeRules([
    { match: { model: answerer }, reply: { text: "It is Paris." } },
    { match: { model: j1 }, reply: { json: { answer: "Lyon" } } },
    { match: { model: j2 }, reply: { json: { answer: "Paris" } } },
  ]);
  t = await createTenant();
  parent = await submitAs(t.key, {
    run_name: "judged once",
    benchmark: { name: "dash-rescore", questions: QUESTIONS },
    config: { answering_models: [fakeModel("ans", answerer)], parsing_models: [fakeModel("j1", j1)] },
  });
  await waitAs(t.key, parent);
  session = await dashboardSession(t.key);
}, 60_000);

describe("dashboard re-score form", () => {
  it("a judge copied with another model grades the run's answers in a child, and the browser lands on the child's page", async () => {
    const html = await (await dashboardFetch(`/dashboard/runs/${parent}`, { cookie: session })).text();
    expect(html).toContain(`action="/dashboard/runs/${parent}/rescore"`);
    expect(html).toContain('<option value="j1">j1 (openai_compatible');
    const answersBefore = (await fakeStats(answerer)).total;

    const res = await press(parent, {
      judge_base: "j1",
      judge_model_name: j2,
      judge_id: "",
      replicate_count: "1",
      run_name: "judged twice",
    });
    expect(res.status).toBe(303);
    const child = /^\/dashboard\/runs\/([0-9a-f-]{36})$/.exec(res.headers.get("location") ?? "")?.[1];
    expect(child).toBeDefined();
    const view = await waitAs(t.key, child!);
    expect(view.status).toBe("completed");
    expect(view.run_name).toBe("judged twice");
    expect(view.lineage.parent_run_id).toBe(parent);
    // The new judge's id is its model's name; the parent's answers were graded again, not re-answered.
    expect(view.summary.map((p: any) => [p.parsing_model, p.passed])).toEqual([
      ["j1", 0],
      [j2, 3],
    ]);
    expect((await fakeStats(answerer)).total).toBe(answersBefore);
    const childPage = await (await dashboardFetch(`/dashboard/runs/${child}`, { cookie: session })).text();
    expect(childPage).toContain(`Re-scored from run <a href="/dashboard/runs/${parent}">`);
  });

  it("an answering model copied with another model answers every question, graded by the run's judge", async () => {
    const ans2 = uniqueModel("drs-ans2");
    await addFakeRules([{ match: { model: ans2 }, reply: { text: "Paris, I think." } }]);
    const res = await press(parent, {
      judge_base: "j1",
      judge_model_name: "",
      answer_base: "ans",
      answer_model_name: ans2,
      answer_id: "ans2",
    });
    expect(res.status).toBe(303);
    const view = await waitAs(t.key, res.headers.get("location")!.split("/").pop()!);
    expect(view.summary.map((p: any) => `${p.answering_model}/${p.parsing_model}:${p.total}`)).toEqual(["ans/j1:3", "ans2/j1:3"]);
    expect((await fakeStats(ans2)).total).toBe(3);
  });

  it("more replicates alone start a child with them", async () => {
    const res = await press(parent, { judge_base: "j1", judge_model_name: "", judge_id: "", replicate_count: "2", run_name: "" });
    expect(res.status).toBe(303);
    const child = res.headers.get("location")!.split("/").pop()!;
    const view = await waitAs(t.key, child);
    expect(view.progress).toEqual({ total: 6, done: 6 });
  });

  it("refuses what adds nothing or is wrong with a 400 page naming the form's field, and makes no child", async () => {
    const before = await children(parent);
    const cases: [Record<string, string>, string][] = [
      [{ judge_base: "j1", judge_model_name: "", replicate_count: "1" }, "form judge_model_name: nothing to re-score"],
      [
        { judge_base: "j1", judge_model_name: j2, judge_id: "j1", replicate_count: "1" },
        'form judge_id: the run already has a parsing model "j1"',
      ],
      [{ judge_base: "nope", judge_model_name: j2, replicate_count: "1" }, "form judge_base: pick one of the run's judges to copy (j1)"],
      [{ judge_base: "j1", judge_model_name: "", replicate_count: "0" }, "form replicate_count:"],
      [{ judge_base: "j1", judge_model_name: "", replicate_count: "two" }, "form replicate_count: a whole number of replicates"],
      [{ judge_base: "j1", colour: "red" }, "form colour: unknown field; remove it (check the spelling)"],
      [{ judge_base: "j1", judge_model_name: j2, run_name: "x".repeat(201) }, "form run_name: expected at most 200 characters, got"],
    ];
    for (const [fields, said] of cases) {
      const res = await press(parent, fields);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      const text = unescaped(await res.text());
      expect(text, text.slice(text.indexOf("<main>"))).toContain(said);
    }
    expect(await children(parent)).toEqual(before);
  });

  it("is refused without this origin or runs:write (no form shown to a reader), and on a run still going is a 409 page", async () => {
    const before = await children(parent);
    const fields = { judge_base: "j1", judge_model_name: j2, judge_id: "j9" };
    expect((await press(parent, fields, { origin: null })).status).toBe(403);
    expect((await press(parent, fields, { origin: "https://evil.example" })).status).toBe(403);
    const reader = await createKey(t.key, { scopes: ["runs:read"] });
    const readerSession = await dashboardSession(reader.key);
    expect(await (await dashboardFetch(`/dashboard/runs/${parent}`, { cookie: readerSession })).text()).not.toContain("rescore-form");
    expect((await press(parent, fields, { cookie: readerSession })).status).toBe(403);
    expect(await children(parent)).toEqual(before);

    const slowJudge = uniqueModel("drs-slow");
    await addFakeRules([{ match: { model: slowJudge }, reply: { json: { answer: "Paris" }, latency_ms: 3000 } }]);
    const going = await submitAs(t.key, {
      benchmark: { name: "dash-rescore", questions: QUESTIONS },
      config: { answering_models: [fakeModel("ans", answerer)], parsing_models: [fakeModel("j1", slowJudge)] },
    });
    expect(await (await dashboardFetch(`/dashboard/runs/${going}`, { cookie: session })).text()).not.toContain("rescore-form");
    const early = await press(going, fields);
    expect(early.status).toBe(409);
    expect(await early.text()).toContain("re-score it once it has finished");
    // Cancelled before grading everything: the form says the missing results would be answered afresh.
    expect((await apiAs(t.key, `/v1/runs/${going}/cancel`, { method: "POST" })).status).toBe(200);
    await waitAs(t.key, going);
    const stopped = await (await dashboardFetch(`/dashboard/runs/${going}`, { cookie: session })).text();
    expect(stopped).toMatch(/This run recorded \d of its 3 results: a re-score answers and grades the \d missing ones/);
    expect(await (await dashboardFetch(`/dashboard/runs/${parent}`, { cookie: session })).text()).not.toContain("rescore-afresh");
  });

  it("the child's compare page offers its new judge against the parent's, and that comparison pairs the two judges", async () => {
    const res = await apiAs(t.key, `/v1/runs/${parent}/rescore`, { method: "POST", json: { parsing_models: [fakeModel("j2", j2)] } });
    const child = ((await res.json()) as { run_id: string }).run_id;
    await waitAs(t.key, child);
    const html = (await (await dashboardFetch(`/dashboard/runs/${child}/compare?a=${parent}`, { cookie: session })).text()).replaceAll(
      "&amp;",
      "&",
    );
    const link = /<a href="([^"]+)">B&#39;s judge j2 against A&#39;s judge j1<\/a>/.exec(html)?.[1];
    expect(link).toBe(`/dashboard/runs/${child}/compare?a=${parent}&a_parsing_model=j1&b_parsing_model=j2`);
    const judges = await (await dashboardFetch(link!, { cookie: session })).text();
    // J1 read "Lyon" (fail) and J2 "Paris" (pass) on the same three answers: three flips, fail → pass.
    expect(judges).toContain("<td>j1 → j2</td>");
    expect(judges).toContain("Questions whose verdict flipped (3)");
    expect(judges).not.toContain('id="compare-judges"');
  });
});
