/**
 * Where a result is stored (src/storage/result-store.ts): a small one whole in its D1 row (no R2
 * object, one put fewer per result), a large one in R2 with the compact form in D1. Either way
 * GET …/results/:id returns the full result and the listing the compact one.
 */
import { describe, expect, it } from "vitest";
import { INLINE_RESULT_MAX } from "../../src/storage/result-store";
import {
  addFakeRules,
  allResults,
  api,
  exactTemplate,
  fakeModel,
  LONG_ANSWER,
  r2Keys,
  runObjects,
  savedResults,
  submitRun,
  uniqueModel,
  waitForRun,
} from "./helpers";

async function runWith(answerText: string) {
  const answerer = uniqueModel("store-answerer");
  const judge = uniqueModel("store-judge");
  await addFakeRules([
    { match: { model: answerer }, reply: { text: answerText } },
    { match: { model: judge }, reply: { json: { answer: "Paris" } } },
  ]);
  const runId = await submitRun({
    benchmark: { name: "store", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
    config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)] },
  });
  expect((await waitForRun(runId)).status).toBe("completed");
  const [listed] = await allResults(runId);
  const res = await api(`/v1/runs/${runId}/results/${listed.metadata.result_id}`);
  expect(res.status).toBe(200);
  return { runId, listed, full: (await res.json()) as any };
}

describe("result storage", () => {
  it("keeps a small result whole in its D1 row: no R2 object, and the full result has its trace", async () => {
    const { runId, listed, full } = await runWith("Paris");
    expect(await savedResults(runId)).toEqual(["d1"]);
    expect(await r2Keys(`${runObjects(runId)}/results/`)).toEqual([]);
    expect(listed.template.trace_messages).toBeUndefined();
    expect(full.template.trace_messages.at(-1)).toEqual({ role: "assistant", content: "Paris" });
    const { trace_messages: _trace, ...template } = full.template;
    expect({ ...full, template }).toEqual(listed);
  });

  it("puts a large result in R2 and the compact form in D1", async () => {
    expect(LONG_ANSWER.length).toBeGreaterThan(INLINE_RESULT_MAX);
    const { runId, listed, full } = await runWith(LONG_ANSWER);
    expect(await savedResults(runId)).toEqual(["r2"]);
    expect(await r2Keys(`${runObjects(runId)}/results/`)).toEqual([`${runObjects(runId)}/results/${listed.metadata.result_id}.json`]);
    expect(full.template.trace_messages.at(-1)).toEqual({ role: "assistant", content: LONG_ANSWER });
    const { trace_messages: _trace, ...template } = full.template;
    expect({ ...full, template }).toEqual(listed);
  });
});
