/**
 * GET /v1/runs/:id/summary?group_by= and the result filters on a scripted run with replicates,
 * through the real queue and the fake LLM: every count, pass@k and pass^k is hand-computed from
 * the script (issue 21 items 1 and 2).
 *
 * Script (3 replicates, one answering model, one judge):
 *   qa: the judge says Paris twice, then Lyon          → n = 3, c = 2
 *   qb: the answerer fails once (400: an error result), then the judge says Paris once, then Lyon
 *                                                      → n = 2 (the error is no try), c = 1
 * Which replicate gets which reply depends on delivery order; the per-item counts do not.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { addFakeRules, allResults, api, exactTemplate, fakeModel, submitRun, uniqueModel, waitForRun } from "./helpers";

let runId: string;
let results: any[];
const answerer = uniqueModel("sum-ans");
const judge = uniqueModel("sum-judge");

beforeAll(async () => {
  await addFakeRules([
    { match: { model: answerer, contains: "QA-TEXT" }, reply: { text: "ANS-A: Paris." } },
    { match: { model: answerer, contains: "QB-TEXT" }, reply: { fault: "400" }, times: 1 },
    { match: { model: answerer, contains: "QB-TEXT" }, reply: { text: "ANS-B: Paris." } },
    { match: { model: judge, contains: "ANS-A" }, reply: { json: { answer: "Paris" } }, times: 2 },
    { match: { model: judge, contains: "ANS-A" }, reply: { json: { answer: "Lyon" } } },
    { match: { model: judge, contains: "ANS-B" }, reply: { json: { answer: "Paris" } }, times: 1 },
    { match: { model: judge, contains: "ANS-B" }, reply: { json: { answer: "Lyon" } } },
  ]);
  runId = await submitRun({
    benchmark: {
      name: "summary-groups",
      questions: [
        { id: "qa", question: "QA-TEXT What is the capital of France?", template: exactTemplate("Paris") },
        { id: "qb", question: "QB-TEXT What is the capital of France?", template: exactTemplate("Paris") },
      ],
    },
    config: { answering_models: [fakeModel("ans", answerer)], parsing_models: [fakeModel("judge", judge)], replicate_count: 3 },
    // $1 per million input tokens and $2 per million output tokens for both models.
    prices: {
      [`openai_compatible:${answerer}`]: { input_per_mtok: 1, output_per_mtok: 2 },
      [`openai_compatible:${judge}`]: { input_per_mtok: 1, output_per_mtok: 2 },
    },
  });
  await waitForRun(runId);
  results = await allResults(runId);
});

async function summary(query: string) {
  const res = await api(`/v1/runs/${runId}/summary?${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as any;
}

describe("grouped summaries", () => {
  it("per question: counts and pass@k / pass^k as computed by hand", async () => {
    const body = await summary("group_by=question");
    expect(body).toMatchObject({ group_by: "question", replicate_count: 3, groups_total: 2, next_cursor: null });
    const [qa, qb] = body.groups;
    expect(qa).toMatchObject({ group: { question_id: "qa" }, results: 3, passed: 2, failed: 1, errored: 0 });
    expect(qa.pass_rate).toBeCloseTo(2 / 3, 12);
    // pass@k = 1 − C(1,k)/C(3,k): 2/3, 1, 1; pass^k = C(2,k)/C(3,k): 2/3, 1/3, 0
    expect(qa.pass_at_k["1"]).toBeCloseTo(2 / 3, 12);
    expect([qa.pass_at_k["2"], qa.pass_at_k["3"]]).toEqual([1, 1]);
    expect(qa.pass_hat_k["1"]).toBeCloseTo(2 / 3, 12);
    expect(qa.pass_hat_k["2"]).toBeCloseTo(1 / 3, 12);
    expect(qa.pass_hat_k["3"]).toBe(0);
    // n = 2: pass@1 = 1/2, pass@2 = 1 − C(1,2)/C(2,2) = 1, pass@3 undefined; pass^2 = C(1,2)/C(2,2) = 0
    expect(qb).toMatchObject({ group: { question_id: "qb" }, results: 3, passed: 1, failed: 1, errored: 1, pass_rate: 0.5 });
    expect(qb.pass_at_k).toEqual({ "1": 0.5, "2": 1, "3": null });
    expect(qb.pass_hat_k).toEqual({ "1": 0.5, "2": 0, "3": null });
  });

  it("per answering model and per pair: the mean over the questions that reach k", async () => {
    for (const by of ["answering_model", "pair"]) {
      const [g] = (await summary(`group_by=${by}`)).groups;
      expect(g).toMatchObject({ results: 6, passed: 3, failed: 2, errored: 1, pass_rate: 0.6 });
      expect(g.pass_at_k["1"]).toBeCloseTo((2 / 3 + 1 / 2) / 2, 12);
      expect([g.pass_at_k["2"], g.pass_at_k["3"]]).toEqual([1, 1]);
      expect(g.pass_hat_k["1"]).toBeCloseTo(7 / 12, 12);
      expect(g.pass_hat_k["2"]).toBeCloseTo((1 / 3 + 0) / 2, 12);
      expect(g.pass_hat_k["3"]).toBe(0); // only qa has 3 graded tries
    }
    const [pair] = (await summary("group_by=pair")).groups;
    expect(pair.group).toEqual({ answering_model: "ans", parsing_model: "judge" });
  });

  it("per failure category and per replicate, with every result counted once", async () => {
    const cats = (await summary("group_by=failure_category")).groups;
    expect(cats.map((g: any) => [g.group.failure_category, g.results])).toEqual([
      [null, 3],
      ["content", 2],
      ["unexpected_error", 1],
    ]);
    const reps = (await summary("group_by=replicate")).groups;
    expect(reps.map((g: any) => g.group.replicate)).toEqual([1, 2, 3]);
    expect(reps.reduce((s: number, g: any) => s + g.results, 0)).toBe(6);
    expect(reps.reduce((s: number, g: any) => s + g.passed, 0)).toBe(3);
    // one try per item in a replicate: only k = 1 is defined, and it is the replicate's pass rate
    for (const g of reps) expect(g.pass_at_k["2"]).toBeNull();
  });

  it("tokens and cost per group are the results' usage priced with the run's prices", async () => {
    let input = 0;
    let output = 0;
    for (const r of results) {
      for (const [stage, u] of Object.entries<any>(r.template?.usage_metadata ?? {})) {
        if (stage === "total") continue;
        input += u.input_tokens;
        output += u.output_tokens;
      }
    }
    expect(input).toBeGreaterThan(0);
    const [g] = (await summary("group_by=answering_model")).groups;
    expect(g.tokens).toEqual({ input_tokens: input, output_tokens: output, total_tokens: input + output });
    expect(g.cost_usd).toBeCloseTo((input + 2 * output) / 1e6, 12);
  });

  it("pages groups with a cursor and refuses an unknown group_by naming it", async () => {
    const first = await summary("group_by=question&limit=1");
    expect(first.groups.map((g: any) => g.group.question_id)).toEqual(["qa"]);
    const second = await summary(`group_by=question&limit=1&cursor=${first.next_cursor}`);
    expect(second.groups.map((g: any) => g.group.question_id)).toEqual(["qb"]);
    expect(second.next_cursor).toBeNull();
    const bad = await api(`/v1/runs/${runId}/summary?group_by=model`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.issues[0].path).toBe("query group_by");
  });

  it("without group_by the per-pair view is unchanged", async () => {
    const body = await summary("");
    expect(body.summary[0]).toMatchObject({ answering_model: "ans", parsing_model: "judge", passed: 3, failed: 2, errored: 1 });
  });
});

describe("result filters", () => {
  const listed = async (query: string) => {
    const res = await api(`/v1/runs/${runId}/results?${query}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as any).results as any[];
  };

  it("filter by verdict, question, failure group, answering and parsing model", async () => {
    expect((await listed("verdict=pass")).map((r) => r.template.verify_result)).toEqual([true, true, true]);
    expect((await listed("question_id=qb")).map((r) => r.metadata.question_id)).toEqual(["qb", "qb", "qb"]);
    const errs = await listed("question_id=qb&verdict=error");
    expect(errs.map((r) => r.metadata.failure.category)).toEqual(["unexpected_error"]);
    expect((await listed("failure_group=system")).length).toBe(1);
    expect((await listed("failure_group=content")).every((r) => r.metadata.failure.category === "content")).toBe(true);
    expect((await listed("failure_group=content")).length).toBe(2);
    expect((await listed("answering_model=ans&parsing_model=judge")).length).toBe(6);
    expect((await listed("failure_group=retry")).length).toBe(0);
  });

  it("pages a filtered listing with its cursor", async () => {
    const first = (await (await api(`/v1/runs/${runId}/results?verdict=pass&limit=2`)).json()) as any;
    expect(first.results.length).toBe(2);
    const rest = (await (await api(`/v1/runs/${runId}/results?verdict=pass&limit=2&cursor=${first.next_cursor}`)).json()) as any;
    expect(rest.results.length).toBe(1);
    expect(rest.results[0].template.verify_result).toBe(true);
  });

  it("an unknown filter value is a 400 naming the parameter", async () => {
    for (const [query, path, says] of [
      ["answering_model=nope", "query answering_model", 'no answering model "nope"; it has "ans"'],
      ["parsing_model=nope", "query parsing_model", 'no parsing model "nope"; it has "judge"'],
      ["question_id=qz", "query question_id", 'no question "qz"; it has "qa", "qb"'],
      ["verdict=maybe", "query verdict", ""],
      ["failure_group=oops", "query failure_group", ""],
      ["colour=red", "query", ""],
    ] as const) {
      const res = await api(`/v1/runs/${runId}/results?${query}`);
      expect(res.status, query).toBe(400);
      const issue = ((await res.json()) as any).error.issues[0];
      expect(issue.path, query).toContain(path);
      expect(issue.message, query).toContain(says);
    }
  });
});
