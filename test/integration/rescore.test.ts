/**
 * Issue 22: POST /v1/runs/:id/rescore. Model calls are counted from the fake LLM's per-model log.
 * The parent: 4 questions, one answering model, judge J1 (passes q0..q2, fails q3), one replicate.
 *   - a second judge: 0 answering calls; J2 makes as many calls as in a fresh run with J2; both
 *     judges are in the child's summary; the child's copies carry new result ids;
 *   - an added rubric trait: only the trait's calls (one per result), template verdicts unchanged;
 *   - an added replicate: exactly one answering call per question × answering model;
 *   - lineage in both runs' GET; summaries, exports and comparison work on the child; another tenant's run is a 404 (tenant-isolation.test.ts lists the route too).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { dashboardFetch, dashboardSession } from "./dashboard-helpers";
import { addFakeRules, allResults, api, exactTemplate, fakeModel, fakeStats, submitRun, TOKEN, uniqueModel, waitForRun } from "./helpers";
import { apiAs, createTenant } from "./tenant-helpers";

const QUESTIONS = Array.from({ length: 4 }, (_, i) => ({
  id: `q${i}`,
  question: `[R${i}] What is the capital of France?`,
  template: exactTemplate("Paris"),
}));
const answerer = uniqueModel("rs-ans");
const j1 = uniqueModel("rs-j1");
const j2 = uniqueModel("rs-j2");
const TRAIT = { name: "concise", description: "Is the answer CONCISE-CHECK short?", kind: "boolean", higher_is_better: true };

let parent: string;
let parentResults: any[];

const calls = async (model: string) => (await fakeStats(model)).total;
async function rescore(runId: string, body: unknown): Promise<string> {
  const res = await api(`/v1/runs/${runId}/rescore`, { method: "POST", json: body });
  if (res.status !== 202) throw new Error(`rescore: ${res.status} ${await res.text()}`);
  const child = ((await res.json()) as { run_id: string }).run_id;
  expect((await waitForRun(child)).status).toBe("completed");
  return child;
}
const key = (r: any) =>
  `${r.metadata.question_id}|${r.metadata.answering.config_id}|${r.metadata.parsing.config_id}|${r.metadata.replicate}`;

beforeAll(async () => {
  await addFakeRules([
    { match: { model: answerer }, reply: { text: "It is Paris." } },
    // The trait's batch call names the trait; template parsing does not.
    { match: { model: j1, contains: "CONCISE-CHECK" }, reply: { json: { scores: { concise: true } } } },
    ...QUESTIONS.map((_, i) => ({ match: { model: j1, contains: `[R${i}]` }, reply: { json: { answer: i < 3 ? "Paris" : "Lyon" } } })),
    { match: { model: j2 }, reply: { json: { answer: "Paris" } } },
  ]);
  parent = await submitRun({
    run_name: "parent",
    benchmark: { name: "rescore", questions: QUESTIONS },
    config: { answering_models: [fakeModel("ans", answerer)], parsing_models: [fakeModel("j1", j1)] },
  });
  expect((await waitForRun(parent)).status).toBe("completed");
  parentResults = await allResults(parent);
  expect(parentResults).toHaveLength(4);
  expect(await calls(answerer)).toBe(4);
}, 60_000);

describe("re-scoring a finished run", () => {
  it("a second judge: no answering call, as many J2 calls as a fresh run, both judges in the child's summary", async () => {
    const [ans0, j2Before] = [await calls(answerer), await calls(j2)];
    const child = await rescore(parent, { parsing_models: [fakeModel("j2", j2)] });
    expect(await calls(answerer)).toBe(ans0);
    const childJ2 = (await calls(j2)) - j2Before;

    const fresh = await submitRun({
      benchmark: { name: "rescore", questions: QUESTIONS },
      config: { answering_models: [fakeModel("ans", answerer)], parsing_models: [fakeModel("j2", j2)] },
    });
    await waitForRun(fresh);
    const freshJ2 = (await calls(j2)) - j2Before - childJ2;
    expect(childJ2).toBe(freshJ2);
    expect(childJ2).toBe(4);

    const view = (await (await api(`/v1/runs/${child}`)).json()) as any;
    expect(view.summary.map((p: any) => [p.parsing_model, p.total, p.passed])).toEqual([
      ["j1", 4, 3],
      ["j2", 4, 4],
    ]);
    expect(view.lineage).toEqual({ parent_run_id: parent, children: [], left_out: [], graded_afresh: null });
    expect(view.manifest.models.map((m: any) => `${m.role}:${m.id}:${m.model_name}`)).toEqual([
      `answering:ans:${answerer}`,
      `parsing:j1:${j1}`,
      `parsing:j2:${j2}`,
    ]);
    expect(((await (await api(`/v1/runs/${parent}`)).json()) as any).lineage.children).toContain(child);
    // Named after its parent and what it adds, so two re-scores of one run differ in every list.
    expect(view.run_name).toBe("parent (re-scored: + judge j2)");

    const results = await allResults(child);
    expect(results).toHaveLength(8);
    const byKey = new Map(parentResults.map((r) => [key(r), r]));
    for (const r of results.filter((x) => x.metadata.parsing.config_id === "j1")) {
      const was = byKey.get(key(r))!;
      // A copy: the parent's grading under a new id.
      expect(r.metadata.result_id).not.toBe(was.metadata.result_id);
      expect(r.template.verify_result).toBe(was.template.verify_result);
    }
    // J2 graded the parent's answers.
    for (const r of results.filter((x) => x.metadata.parsing.config_id === "j2")) expect(r.template.raw_llm_response).toBe("It is Paris.");
    // The summary by parsing model (a child is any run).
    const grouped = (await (await api(`/v1/runs/${child}/summary?group_by=parsing_model`)).json()) as any;
    expect(grouped.groups).toHaveLength(2);
    // Exports and comparison work on the child as on any run.
    const ndjson = await (await api(`/v1/runs/${child}/export?format=ndjson`)).text();
    expect(ndjson.trim().split("\n")).toHaveLength(8);
    const compared = (await (await api(`/v1/runs/compare?a=${parent}&b=${child}`)).json()) as any;
    expect(compared.model_pairs).toEqual([expect.objectContaining({ parsing_model: "j1", paired: 4, pass_to_fail: 0, fail_to_pass: 0 })]);
    expect(compared.unmatched).toEqual({ only_in_a: 0, only_in_b: 4 });

    // The dashboard links the two runs both ways, and the child's Compare form picks its parent.
    const cookie = await dashboardSession(TOKEN);
    const childPage = await (await dashboardFetch(`/dashboard/runs/${child}`, { cookie })).text();
    expect(childPage).toContain(`Re-scored from run <a href="/dashboard/runs/${parent}">`);
    expect(childPage).toMatch(new RegExp(`<option value="${parent}" selected="">`));
    const parentPage = await (await dashboardFetch(`/dashboard/runs/${parent}`, { cookie })).text();
    expect(parentPage).toContain("Re-scored as ");
    expect(parentPage).toContain(`<a href="/dashboard/runs/${child}">`);
  }, 60_000);

  it("an added rubric trait: only the trait's calls, template verdicts unchanged", async () => {
    const [ans0, j10] = [await calls(answerer), await calls(j1)];
    const child = await rescore(parent, { rubric: { llm_traits: [TRAIT] } });
    expect(await calls(answerer)).toBe(ans0);
    // One batch rubric call per result; a re-parse would add 4 more.
    expect((await calls(j1)) - j10).toBe(4);
    const results = await allResults(child);
    expect(results).toHaveLength(4);
    const byKey = new Map(parentResults.map((r) => [key(r), r]));
    for (const r of results) {
      const was = byKey.get(key(r))!;
      expect(r.template.verify_result).toBe(was.template.verify_result);
      expect(r.template.parsed_llm_response).toEqual(was.template.parsed_llm_response);
      expect(r.rubric.llm_trait_scores).toEqual({ concise: true });
      expect([was.metadata.evaluation_mode, r.metadata.evaluation_mode]).toEqual(["template_only", "template_and_rubric"]);
    }
    const view = (await (await api(`/v1/runs/${child}`)).json()) as any;
    expect(view.summary[0]).toMatchObject({ total: 4, passed: 3 });
  }, 60_000);

  it("an added replicate: one answering call per question and answering model", async () => {
    const ans0 = await calls(answerer);
    const child = await rescore(parent, { replicate_count: 2 });
    expect((await calls(answerer)) - ans0).toBe(QUESTIONS.length * 1);
    const results = await allResults(child);
    expect(results).toHaveLength(8);
    expect(results.map((r) => r.metadata.replicate).sort()).toEqual([1, 1, 1, 1, 2, 2, 2, 2]);
  }, 60_000);

  it("the dashboard names a deleted parent without a link to its 404", async () => {
    const gone = await submitRun({
      benchmark: { name: "rescore", questions: QUESTIONS.slice(0, 1) },
      config: { answering_models: [fakeModel("ans", answerer)], parsing_models: [fakeModel("j1", j1)] },
    });
    await waitForRun(gone);
    const child = await rescore(gone, { replicate_count: 2 });
    expect((await api(`/v1/runs/${gone}`, { method: "DELETE" })).status).toBe(200);
    const page = await (await dashboardFetch(`/dashboard/runs/${child}`, { cookie: await dashboardSession(TOKEN) })).text();
    expect(page).toContain(`Re-scored from run ${gone} (since deleted).`);
    expect(page).not.toContain(`href="/dashboard/runs/${gone}"`);
  }, 60_000);

  it("the child's new judge compares with the parent's judge (a_parsing_model / b_parsing_model), on the same answers", async () => {
    const child = await rescore(parent, { parsing_models: [fakeModel("j2", j2)] });
    // Unnamed, the child's copies of j1 pair with the parent's j1 (nothing flips) and j2's have no partner.
    const plain = (await (await api(`/v1/runs/compare?a=${parent}&b=${child}`)).json()) as any;
    expect(plain.model_pairs.map((p: any) => [p.parsing_model, p.pass_to_fail + p.fail_to_pass])).toEqual([["j1", 0]]);
    expect(plain.unmatched).toEqual({ only_in_a: 0, only_in_b: 4 });
    // J1 failed q3, J2 passes it: one flip, fail → pass.
    const judges = (await (await api(`/v1/runs/compare?a=${parent}&b=${child}&a_parsing_model=j1&b_parsing_model=j2`)).json()) as any;
    expect(judges.model_pairs).toMatchObject([{ a_parsing_model: "j1", parsing_model: "j2", paired: 4, fail_to_pass: 1, pass_to_fail: 0 }]);
    expect(judges.questions.map((q: any) => q.question_id)).toEqual(["q3"]);
    const unknown = await api(`/v1/runs/compare?a=${parent}&b=${child}&a_parsing_model=j2`);
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as any).error.issues[0]).toMatchObject({ path: "query a_parsing_model" });
  });

  it("refuses what it cannot do, naming the field, and another tenant's run is a 404", async () => {
    const taken = await api(`/v1/runs/${parent}/rescore`, { method: "POST", json: { parsing_models: [fakeModel("j1", j2)] } });
    expect(taken.status).toBe(400);
    expect(((await taken.json()) as any).error.issues[0].path).toBe("parsing_models[0].id");
    const fewer = await api(`/v1/runs/${parent}/rescore`, { method: "POST", json: { replicate_count: 0 } });
    expect(fewer.status).toBe(400);
    const nothing = await api(`/v1/runs/${parent}/rescore`, { method: "POST", json: {} });
    expect(nothing.status).toBe(400);
    // Fields that add nothing (the parent's own replicate count, a rubric without traits) are not a
    // re-score: no child that copies the parent whole, counted against the run quotas.
    const children = async () => ((await (await api(`/v1/runs/${parent}`)).json()) as any).lineage.children;
    const childrenBefore = await children();
    for (const [body, path] of [
      [{ replicate_count: 1 }, "replicate_count"],
      [{ rubric: {} }, "rubric"],
    ] as const) {
      const same = await api(`/v1/runs/${parent}/rescore`, { method: "POST", json: body });
      expect(same.status).toBe(400);
      const issue = ((await same.json()) as any).error.issues[0];
      expect(issue.path).toBe(path);
      expect(issue.message).toMatch(/adds nothing/);
    }
    expect(await children()).toEqual(childrenBefore);
    const hot = await api(`/v1/runs/${parent}/rescore`, {
      method: "POST",
      json: { parsing_models: [{ id: "hot", interface: "openai", model_name: "gpt-4.1-mini", temperature: 3 }] },
    });
    expect(hot.status).toBe(400);
    expect(((await hot.json()) as any).error.issues.map((i: { path: string }) => i.path)).toContain("parsing_models[0].temperature");
    const other = await createTenant({ name: "rescore-other" });
    expect(
      (await apiAs(other.key, `/v1/runs/${parent}/rescore`, { method: "POST", json: { parsing_models: [fakeModel("j9", j2)] } })).status,
    ).toBe(404);
  });
});

describe("re-scoring a run with scenarios", () => {
  it("says in the 202 which scenarios the child leaves out, with the parent's turn results it does not copy", async () => {
    const [ans, judge, judge2] = [uniqueModel("rs-sc-ans"), uniqueModel("rs-sc-j1"), uniqueModel("rs-sc-j2")];
    await addFakeRules([
      { match: { model: ans }, reply: { text: "It is Paris." } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
      { match: { model: judge2 }, reply: { json: { answer: "Paris" } } },
    ]);
    const node = (id: string) => ({
      question: { id, question: `[SC-${id}] What is the capital of France?`, template: exactTemplate("Paris") },
    });
    const oneTurn = (name: string) => ({
      name,
      entry_node: "ask",
      nodes: { ask: node(`${name}-ask`) },
      edges: [{ source: "ask", target: "__end__" }],
    });
    const withScenarios = await submitRun({
      benchmark: { name: "rescore-scenarios", questions: QUESTIONS.slice(0, 1), scenarios: [oneTurn("first"), oneTurn("second")] },
      config: { answering_models: [fakeModel("ans", ans)], parsing_models: [fakeModel("j1", judge)], replicate_count: 2 },
    });
    expect((await waitForRun(withScenarios)).status).toBe("completed");
    // 1 question + 2 one-turn scenarios, × 2 replicates.
    expect(await allResults(withScenarios)).toHaveLength(6);

    const res = await api(`/v1/runs/${withScenarios}/rescore`, { method: "POST", json: { parsing_models: [fakeModel("j2", judge2)] } });
    expect(res.status).toBe(202);
    const body = (await res.json()) as any;
    expect(body.left_out).toEqual([
      { what: "scenarios", ids: ["first", "second"], results: 4, reason: expect.stringContaining("POST /v1/runs") },
    ]);
    expect((await waitForRun(body.run_id)).status).toBe("completed");
    // The child grades the question alone: 1 question × 2 judges × 2 replicates.
    expect(await allResults(body.run_id)).toHaveLength(4);
    // The child keeps saying it, after the 202 is gone: in its view and on its dashboard page.
    const childView = (await (await api(`/v1/runs/${body.run_id}`)).json()) as any;
    expect(childView.lineage.left_out).toEqual(body.left_out);
    expect(childView.lineage.graded_afresh).toBeNull();
    const page = await (await dashboardFetch(`/dashboard/runs/${body.run_id}`, { cookie: await dashboardSession(TOKEN) })).text();
    expect(page).toMatch(
      /id="rescore-caveats"[\s\S]*Left out of this re-score: 2 scenarios \(first, second\), 4 of\s+the parent&#39;s results not copied/,
    );

    const plain = await api(`/v1/runs/${parent}/rescore`, { method: "POST", json: { replicate_count: 2 } });
    expect(plain.status).toBe(202);
    const plainBody = (await plain.json()) as any;
    expect(plainBody.left_out).toEqual([]);
    expect(plainBody.graded_afresh).toBeNull();
    await waitForRun(plainBody.run_id);
  });
});

describe("re-scoring a run that ended before grading everything", () => {
  it("says in the 202 how many of the parent's results it lacks, which the child answers and grades afresh", async () => {
    const [ans, slow, judge2] = [uniqueModel("rs-cx-ans"), uniqueModel("rs-cx-slow"), uniqueModel("rs-cx-j2")];
    await addFakeRules([
      { match: { model: ans }, reply: { text: "It is Paris." } },
      { match: { model: slow }, reply: { json: { answer: "Paris" }, latency_ms: 3000 } },
      { match: { model: judge2 }, reply: { json: { answer: "Paris" } } },
    ]);
    const cancelled = await submitRun({
      benchmark: { name: "rescore-cancelled", questions: QUESTIONS },
      config: { answering_models: [fakeModel("ans", ans)], parsing_models: [fakeModel("slow", slow)] },
    });
    expect((await api(`/v1/runs/${cancelled}/cancel`, { method: "POST" })).status).toBe(200);
    expect((await waitForRun(cancelled, ["cancelled"])).status).toBe("cancelled");
    const kept = (await allResults(cancelled)).length;
    expect(kept).toBeLessThan(4);
    const answersBefore = await calls(ans);

    const res = await api(`/v1/runs/${cancelled}/rescore`, { method: "POST", json: { parsing_models: [fakeModel("j2", judge2)] } });
    expect(res.status).toBe(202);
    const body = (await res.json()) as any;
    expect(body.graded_afresh).toEqual({ results: 4 - kept, reason: expect.stringContaining("answering calls") });
    await waitForRun(body.run_id);
    // What it said happened: the missing tuples were answered again.
    expect((await calls(ans)) - answersBefore).toBe(4 - kept);
    // And the child keeps saying it, in its view and on its dashboard page.
    const childView = (await (await api(`/v1/runs/${body.run_id}`)).json()) as any;
    expect(childView.lineage).toMatchObject({ parent_run_id: cancelled, left_out: [], graded_afresh: body.graded_afresh });
    const page = await (await dashboardFetch(`/dashboard/runs/${body.run_id}`, { cookie: await dashboardSession(TOKEN) })).text();
    expect(page).toContain(`Graded afresh: ${4 - kept} result`);
  });
});
