/**
 * GET /v1/runs/compare on two scripted runs (issue 21 item 4): run B flips 6 questions pass → fail
 * and 1 fail → pass against run A; the comparison names exactly those 7 questions and McNemar's
 * exact two-sided p is 2 · (C(7,0) + C(7,1)) / 2^7 = 0.125.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { addFakeRules, api, exactTemplate, fakeModel, submitRun, uniqueModel, waitForRun } from "./helpers";

const QUESTIONS = Array.from({ length: 10 }, (_, i) => ({
  id: `q${i}`,
  question: `[Q${i}] What is the capital of France?`,
  template: exactTemplate("Paris"),
}));

/** A run whose judge passes exactly the questions in `passing`. */
async function scripted(passing: Set<number>, answeringId = "ans"): Promise<string> {
  const answerer = uniqueModel("cmp-ans");
  const judge = uniqueModel("cmp-judge");
  await addFakeRules([
    { match: { model: answerer }, reply: { text: "It is a city." } },
    ...QUESTIONS.map((_, i) => ({
      match: { model: judge, contains: `[Q${i}]` },
      reply: { json: { answer: passing.has(i) ? "Paris" : "Lyon" } },
    })),
  ]);
  const runId = await submitRun({
    benchmark: { name: "compare", questions: QUESTIONS },
    config: { answering_models: [fakeModel(answeringId, answerer)], parsing_models: [fakeModel("judge", judge)] },
  });
  await waitForRun(runId);
  return runId;
}

let a: string;
let b: string;
let c: string;
beforeAll(async () => {
  // A passes all but q6; B fails q0..q5 and passes q6..q9; C (answering id "other") as B.
  [a, b, c] = await Promise.all([
    scripted(new Set([0, 1, 2, 3, 4, 5, 7, 8, 9])),
    scripted(new Set([6, 7, 8, 9])),
    scripted(new Set([6, 7, 8, 9]), "other"),
  ]);
}, 60_000);

const compare = async (query: string) => {
  const res = await api(`/v1/runs/compare?${query}`);
  return { status: res.status, body: (await res.json()) as any };
};

describe("run comparison", () => {
  it("reports the 7 flipped questions and McNemar's exact p = 0.125", async () => {
    const { status, body } = await compare(`a=${a}&b=${b}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      a,
      b,
      alpha: 0.05,
      questions_with_flips: 7,
      unmatched: { only_in_a: 0, only_in_b: 0 },
      next_cursor: null,
    });
    expect(body.model_pairs).toHaveLength(1);
    const [pair] = body.model_pairs;
    expect(pair).toMatchObject({
      a_answering_model: "ans",
      b_answering_model: "ans",
      parsing_model: "judge",
      paired: 10,
      a_passed: 9,
      b_passed: 4,
      pass_to_fail: 6,
      fail_to_pass: 1,
      significant: false,
    });
    expect(pair.p_value).toBeCloseTo(0.125, 12);
    expect(pair.delta).toBeCloseTo(-0.5, 12);
    expect(body.questions.map((q: any) => q.question_id)).toEqual(["q0", "q1", "q2", "q3", "q4", "q5", "q6"]);
    expect(body.questions.find((q: any) => q.question_id === "q6")).toMatchObject({
      pass_to_fail: 0,
      fail_to_pass: 1,
      flips: [{ a: "fail", b: "pass", replicate: 1 }],
    });
    expect(body.questions.find((q: any) => q.question_id === "q0").flips).toEqual([
      { a_answering_model: "ans", b_answering_model: "ans", parsing_model: "judge", replicate: 1, a: "pass", b: "fail" },
    ]);
  });

  it("pages the flipped questions", async () => {
    const first = await compare(`a=${a}&b=${b}&limit=4`);
    expect(first.body.questions.map((q: any) => q.question_id)).toEqual(["q0", "q1", "q2", "q3"]);
    const rest = await compare(`a=${a}&b=${b}&limit=4&cursor=${first.body.next_cursor}`);
    expect(rest.body.questions.map((q: any) => q.question_id)).toEqual(["q4", "q5", "q6"]);
    expect(rest.body.next_cursor).toBeNull();
  });

  it("says whether both runs have ended: a run still going is compared on the results recorded so far", async () => {
    expect((await compare(`a=${a}&b=${b}`)).body).toMatchObject({ a_status: "completed", b_status: "completed", complete: true });
    const judge = uniqueModel("cmp-slow");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "Paris" }, latency_ms: 2500 } }]);
    const going = await submitRun({
      benchmark: { name: "compare", questions: QUESTIONS },
      config: {
        answering_models: [{ id: "ans", interface: "manual", manual_answers: Object.fromEntries(QUESTIONS.map((q) => [q.id, "Paris"])) }],
        parsing_models: [fakeModel("judge", judge)],
      },
    });
    const { status, body } = await compare(`a=${a}&b=${going}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ a_status: "completed", b_status: expect.stringMatching(/^(queued|running)$/), complete: false });
    await waitForRun(going);
    expect((await compare(`a=${a}&b=${going}`)).body).toMatchObject({ b_status: "completed", complete: true });
  }, 30_000);

  it("compares different answering model ids with a_model / b_model", async () => {
    const unnamed = await compare(`a=${a}&b=${c}`);
    expect(unnamed.body.model_pairs).toEqual([]); // "ans" and "other" never pair by themselves
    expect(unnamed.body.unmatched).toEqual({ only_in_a: 10, only_in_b: 10 });
    const named = await compare(`a=${a}&b=${c}&a_model=ans&b_model=other`);
    expect(named.body.model_pairs[0]).toMatchObject({
      a_answering_model: "ans",
      b_answering_model: "other",
      pass_to_fail: 6,
      fail_to_pass: 1,
    });
    expect(named.body.model_pairs[0].p_value).toBeCloseTo(0.125, 12);
  });

  it("refuses a missing run parameter, an unknown model id and another tenant's or unknown run, naming them", async () => {
    const missing = await compare(`a=${a}`);
    expect(missing.status).toBe(400);
    expect(missing.body.error.issues[0].path).toBe("query b");
    const model = await compare(`a=${a}&b=${c}&a_model=ans&b_model=nope`);
    expect(model.status).toBe(400);
    expect(model.body.error.issues[0]).toMatchObject({ path: "query b_model" });
    expect(model.body.error.issues[0].message).toContain('"other"');
    // a_model alone names both runs' model: when run B lacks it, the 400 names the field that was
    // sent (not b_model, which was not) and says how to name B's own model.
    const alone = await compare(`a=${a}&b=${c}&a_model=ans`);
    expect(alone.status).toBe(400);
    expect(alone.body.error.issues[0]).toMatchObject({ path: "query a_model" });
    expect(alone.body.error.issues[0].message).toMatch(/run B .*has no answering model "ans"; it has "other".*send b_model/);
    const unknown = await compare(`a=${a}&b=00000000-0000-0000-0000-000000000000`);
    expect(unknown.status).toBe(404);
  });

  it("two ended runs are compared once per isolate: the next pages come from memory; a run going is read afresh", async () => {
    // Two fresh runs (the cache is keyed by run), each with the 7 flips above.
    const [x, y] = await Promise.all([scripted(new Set([0, 1, 2, 3, 4, 5, 7, 8, 9])), scripted(new Set([6, 7, 8, 9]))]);
    const first = await compare(`a=${x}&b=${y}&limit=3`);
    expect(first.body.questions.map((q: any) => q.question_id)).toEqual(["q0", "q1", "q2"]);
    // Results of an ended run do not change; an edit behind the API's back shows what the pages read.
    await env.DB.prepare("UPDATE results SET verdict = 'pass', verify_result = 1 WHERE run_id = ?").bind(y).run();
    const next = await compare(`a=${x}&b=${y}&limit=3&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(next.body.questions.map((q: any) => q.question_id)).toEqual(["q3", "q4", "q5"]);
    expect(next.body.model_pairs[0]).toMatchObject({ pass_to_fail: 6, fail_to_pass: 1 });
    // The same runs with B still going: read afresh, and not kept.
    await env.DB.prepare("UPDATE runs SET status = 'running' WHERE run_id = ?").bind(y).run();
    const going = await compare(`a=${x}&b=${y}`);
    expect(going.body).toMatchObject({ complete: false, questions_with_flips: 1 });
    expect(going.body.model_pairs[0]).toMatchObject({ pass_to_fail: 0, fail_to_pass: 1 });
  });

  it("a cancelled run whose started calls are still recording (no finished_at yet) is not kept either", async () => {
    const [x, y] = await Promise.all([scripted(new Set([0, 1, 2, 3, 4, 5, 7, 8, 9])), scripted(new Set([6, 7, 8, 9]))]);
    await env.DB.prepare("UPDATE runs SET status = 'cancelled', finished_at = NULL WHERE run_id = ?").bind(y).run();
    expect((await compare(`a=${x}&b=${y}`)).body.questions_with_flips).toBe(7);
    // A late result of the cancelled run lands: the next read sees it.
    await env.DB.prepare("UPDATE results SET verdict = 'pass', verify_result = 1 WHERE run_id = ?").bind(y).run();
    expect((await compare(`a=${x}&b=${y}`)).body.questions_with_flips).toBe(1);
  });
});
