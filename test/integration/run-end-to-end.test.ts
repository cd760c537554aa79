import { describe, expect, it } from "vitest";
import {
  addFakeRules,
  allResults,
  api,
  d1ResultRows,
  exactTemplate,
  fakeModel,
  fakeStats,
  r2Keys,
  savedResults,
  submitRun,
  uniqueModel,
  waitForRun,
  runObjects,
} from "./helpers";

const QUESTIONS = [
  { id: "q-capital", question: "What is the capital of France?", truth: "Paris" },
  { id: "q-gene", question: "Which gene encodes the p53 protein?", truth: "TP53" },
  { id: "q-planet", question: "Which planet is largest?", truth: "Jupiter" },
];

describe("a run through the real local queue", () => {
  it("grades every (question, answering model, parsing model, replicate) once and completes", async () => {
    const good = uniqueModel("good");
    const weak = uniqueModel("weak");
    const judgeA = uniqueModel("judge-a");
    const judgeB = uniqueModel("judge-b");
    // The good answerer names the truth, the weak one always says "unknown"; judges extract it.
    await addFakeRules([
      ...QUESTIONS.map((q) => ({ match: { model: good, contains: q.question }, reply: { text: `ANSWER<${q.truth}>` } })),
      { match: { model: weak }, reply: { text: "ANSWER<unknown>" } },
      ...[judgeA, judgeB].flatMap((j) => [
        ...QUESTIONS.map((q) => ({ match: { model: j, contains: `ANSWER<${q.truth}>` }, reply: { json: { answer: q.truth } } })),
        { match: { model: j, contains: "ANSWER<unknown>" }, reply: { json: { answer: "unknown" } } },
      ]),
    ]);
    const runId = await submitRun({
      run_name: "e2e",
      benchmark: {
        name: "e2e",
        questions: QUESTIONS.map((q) => ({ id: q.id, question: q.question, template: exactTemplate(q.truth) })),
      },
      config: {
        answering_models: [fakeModel("good", good), fakeModel("weak", weak)],
        parsing_models: [fakeModel("judge-a", judgeA), fakeModel("judge-b", judgeB)],
        replicate_count: 2,
      },
    });

    const view = await waitForRun(runId);
    expect(view.status).toBe("completed");
    expect(view.progress).toEqual({ total: 24, done: 24 });
    const pair = (a: string, p: string) => view.summary.find((s) => s.answering_model === a && s.parsing_model === p);
    expect(pair("good", "judge-a")).toMatchObject({ total: 6, passed: 6, failed: 0, errored: 0, pass_rate: 1 });
    expect(pair("weak", "judge-b")).toMatchObject({ total: 6, passed: 0, failed: 6, errored: 0, pass_rate: 0 });

    const rows = await d1ResultRows(runId);
    expect(rows).toHaveLength(24);
    const naturalKeys = new Set(rows.map((r) => `${r.question_id}|${r.answering_model}|${r.parsing_model}|${r.replicate}`));
    expect(naturalKeys.size).toBe(24);
    // Each result is whole in its row (small results need no R2 object).
    expect(await savedResults(runId)).toEqual(rows.map(() => "d1"));
    expect(await r2Keys(`${runObjects(runId)}/results/`)).toEqual([]);

    // Answers are generated once per job (3 questions × 2 replicates) and shared by both judges.
    expect((await fakeStats(good)).total).toBe(6);
    expect((await fakeStats(judgeA)).total).toBe(12); // both answerers × 3 questions × 2 replicates

    const results = await allResults(runId);
    expect(results).toHaveLength(24);
    expect(new Set(results.map((r) => r.metadata.replicate))).toEqual(new Set([1, 2]));
    expect(new Set(results.map((r) => r.metadata.question_id))).toEqual(new Set(QUESTIONS.map((q) => q.id)));
    const one = results.find((r) => r.metadata.question_id === "q-gene" && r.metadata.answering.config_id === "good")!;
    expect(one.template).toMatchObject({
      verify_result: true,
      parsed_llm_response: { answer: "TP53" },
      parsed_gt_response: { answer: "TP53" },
    });
    expect(one.metadata.failure).toBeNull();

    const full = await api(`/v1/runs/${runId}/results/${one.metadata.result_id}`);
    expect(full.status).toBe(200);
    const fullJson = (await full.json()) as any;
    expect(fullJson.template.trace_messages.at(-1)).toEqual({ role: "assistant", content: "ANSWER<TP53>" });
  });

  // Karenina, benchmark/verification/batch_runner.py:199: replicate = None if config.replicate_count == 1 else rep.
  it("a single-replicate run records replicate null, as Karenina; the stored row keeps the index", async () => {
    const judge = uniqueModel("single-rep-judge");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "Paris" } } }]);
    const runId = await submitRun({
      benchmark: { name: "single", questions: [{ id: "q", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: {
        answering_models: [{ id: "m", interface: "manual", manual_answers: { q: "Paris" } }],
        parsing_models: [fakeModel("j", judge)],
      },
    });
    await waitForRun(runId);
    const [r] = await allResults(runId);
    expect(r!.metadata.replicate).toBeNull();
    expect(r!.template.verify_result).toBe(true);
    expect((await d1ResultRows(runId)).map((row) => row.replicate)).toEqual([1]);
  });

  it("lists runs newest first", async () => {
    const res = await api("/v1/runs?limit=5");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { runs: { created_at: string }[] };
    const times = body.runs.map((r) => r.created_at);
    expect([...times].sort().reverse()).toEqual(times);
  });
});
