import { describe, expect, it } from "vitest";
import { addFakeRules, allResults, d1ResultRows, exactTemplate, fakeModel, fakeStats, submitRun, uniqueModel, waitForRun } from "./helpers";

describe("checkpoints and redelivery", () => {
  it("resumes a job whose second judge failed: two rows share one answer, one answering call", async () => {
    const answerer = uniqueModel("answerer");
    const judge1 = uniqueModel("judge1");
    const judge2 = uniqueModel("judge2");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "It is 42." } },
      { match: { model: judge1 }, reply: { json: { answer: "42" } } },
      // The second judge's first call dies: the job is redelivered after judge1's result was saved.
      { match: { model: judge2 }, reply: { fault: "500" }, times: 1 },
      { match: { model: judge2 }, reply: { json: { answer: "42" } } },
    ]);
    const runId = await submitRun({
      benchmark: { name: "resume", questions: [{ id: "q1", question: "What is six times seven?", template: exactTemplate("42") }] },
      config: {
        answering_models: [fakeModel("answerer", answerer)],
        parsing_models: [fakeModel("judge1", judge1), fakeModel("judge2", judge2)],
      },
    });
    const view = await waitForRun(runId);
    expect(view.status).toBe("completed");
    expect(await d1ResultRows(runId)).toHaveLength(2);
    const results = await allResults(runId);
    expect(results.map((r) => r.template.raw_llm_response)).toEqual(["It is 42.", "It is 42."]);
    expect(results.every((r) => r.template.verify_result === true)).toBe(true);
    expect((await fakeStats(answerer)).total).toBe(1);
    expect((await fakeStats(judge1)).total).toBe(1);
    expect((await fakeStats(judge2)).total).toBe(2);
  });

  it("records a judge that keeps failing as a retry-group error after the last attempt, not as wrong", async () => {
    const answerer = uniqueModel("answerer");
    const judge = uniqueModel("judge-down");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris" } },
      { match: { model: judge }, reply: { fault: "500" } },
    ]);
    const runId = await submitRun({
      benchmark: { name: "down", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)] },
    });
    const view = await waitForRun(runId);
    // Its only result errored, so nothing was graded: the run is failed (issue 15 item 1), never "wrong".
    expect(view.status).toBe("failed");
    expect(view.summary[0]).toMatchObject({ passed: 0, failed: 0, errored: 1, pass_rate: null });
    const [result] = await allResults(runId);
    expect(result.metadata.failure).toMatchObject({ category: "server_error", group: "retry", stage: "parse_template" });
    expect(result.template.verify_result).toBeNull();
    // JOB_MAX_ATTEMPTS is 3 in the test config: three judge calls, one answer.
    expect((await fakeStats(judge)).total).toBe(3);
    expect((await fakeStats(answerer)).total).toBe(1);
  });

  it("turns malformed judge output into a parsing failure (error), never a verdict", async () => {
    const answerer = uniqueModel("answerer");
    const judge = uniqueModel("judge-babble");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris" } },
      { match: { model: judge }, reply: { fault: "malformed" } },
    ]);
    const runId = await submitRun({
      benchmark: { name: "babble", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)] },
    });
    const view = await waitForRun(runId);
    expect(view.summary[0]).toMatchObject({ passed: 0, failed: 0, errored: 1 });
    const [result] = await allResults(runId);
    expect(result.metadata.failure).toMatchObject({ category: "parsing", group: "system" });
    expect(result.template.verify_result).toBeNull();
  });
});
