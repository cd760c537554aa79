/**
 * Issue 15 item 1: a run whose every job errored ends `failed`, not `completed` (the precedence
 * rule is src/coordinator/progress.ts statusOf); one graded result among errors is enough to complete.
 */
import { describe, expect, it } from "vitest";
import { addFakeRules, api, exactTemplate, fakeModel, submitRun, uniqueModel, waitForRun } from "./helpers";

const questions = [
  { id: "q1", question: "Which gene encodes p53?", template: exactTemplate("TP53") },
  { id: "q2", question: "Which planet is largest?", template: exactTemplate("Jupiter") },
];

describe("run status", () => {
  it("is failed when every job's judge keeps failing: no result says anything about an answer", async () => {
    const [answerer, judge] = [uniqueModel("st-ans"), uniqueModel("st-judge-down")];
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "ANSWER<TP53>" } },
      { match: { model: judge }, reply: { fault: "500" } },
    ]);
    const runId = await submitRun({
      benchmark: { name: "all-errors", questions },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)] },
    });
    const view = (await waitForRun(runId, ["completed", "partial", "failed"], 30_000)) as any;
    expect(view.status).toBe("failed");
    expect(view.summary[0]).toMatchObject({ total: 2, passed: 0, failed: 0, errored: 2 });
    const listed = (await (await api("/v1/runs?limit=50")).json()) as { runs: { run_id: string; status: string }[] };
    expect(listed.runs.find((r) => r.run_id === runId)?.status).toBe("failed");
  });

  it("is completed when at least one result is graded, even if others errored", async () => {
    const [answerer, judge] = [uniqueModel("st-ans2"), uniqueModel("st-judge-half")];
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "ANSWER<TP53>" } },
      { match: { model: judge, contains: "Which gene" }, reply: { json: { answer: "TP53" } } },
      { match: { model: judge }, reply: { fault: "500" } },
    ]);
    const runId = await submitRun({
      benchmark: { name: "some-errors", questions },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)] },
    });
    const view = (await waitForRun(runId, ["completed", "partial", "failed"], 30_000)) as any;
    expect(view.status).toBe("completed");
    expect(view.summary[0]).toMatchObject({ passed: 1, errored: 1 });
  });
});
