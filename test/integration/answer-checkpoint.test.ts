// Where a job's answer is checkpointed before its first judge call: a row of the run's coordinator,
// or R2 when the answer is too long for a row. Either way the answering model is called once.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { addFakeRules, exactTemplate, fakeModel, fakeStats, submitRun, uniqueModel, waitForRun, runObjects } from "./helpers";

async function runWithAnswer(text: string) {
  const answerer = uniqueModel("ckpt-answerer");
  const judge = uniqueModel("ckpt-judge");
  await addFakeRules([
    { match: { model: answerer }, reply: { text } },
    { match: { model: judge }, reply: { json: { answer: "42" } } },
  ]);
  const runId = await submitRun({
    benchmark: { name: "ckpt", questions: [{ id: "q1", question: "What is six times seven?", template: exactTemplate("42") }] },
    config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)] },
  });
  const view = await waitForRun(runId);
  const inR2 = await env.BLOBS.head(`${runObjects(runId)}/checkpoints/0.0.1/answer.json`);
  return { view, inR2, answeringCalls: (await fakeStats(answerer)).total };
}

describe("answer checkpoint", () => {
  it("keeps a usual answer in the coordinator, not in R2", async () => {
    const { view, inR2, answeringCalls } = await runWithAnswer("It is 42.");
    expect(view).toMatchObject({ status: "completed", progress: { done: 1 } });
    expect(inR2).toBeNull();
    expect(answeringCalls).toBe(1);
  });

  it("puts an answer too long for a coordinator row in R2", async () => {
    const { view, inR2, answeringCalls } = await runWithAnswer(`It is 42. ${"Let me explain. ".repeat(40_000)}`);
    expect(view).toMatchObject({ status: "completed", progress: { done: 1 } });
    expect(inR2).not.toBeNull();
    expect(answeringCalls).toBe(1);
  });
});
