/**
 * The edge's model chain delimits answers (issue 16 item 6): what a provider receives from
 * /v1/judge and from a queued run has the graded text in a nonce block, and no untrusted-text mark
 * reaches it. The verdict side is test/unit/pipeline/injection.test.ts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { addFakeRules, api, exactTemplate, fakeModel, submitRun, uniqueModel, waitForRun } from "./helpers";

async function bodies(model: string): Promise<string[]> {
  const res = await fetch(`${env.FAKE_LLM_URL}/_admin/requests?model=${encodeURIComponent(model)}`);
  return ((await res.json()) as { requests: { body: unknown }[] }).requests.map((r) => JSON.stringify(r.body));
}
const block = (text: string) => new RegExp(`<answer-([0-9a-f]{12})>\\\\n${text}\\\\n</answer-\\1>`);

describe("answer delimiting at the edge", () => {
  it("/v1/judge sends the output in a nonce block", async () => {
    const model = uniqueModel("delimit-judge");
    await addFakeRules([{ match: { model }, reply: { json: { answer: 4 } } }]);
    const res = await api("/v1/judge", {
      method: "POST",
      json: { input: "q", output: "the graded output", config: { provider: fakeModel("j", model), type: "likert" } },
    });
    expect(res.status).toBe(200);
    const [sent] = await bodies(model);
    expect(sent).toMatch(block("the graded output"));
    expect(sent).not.toMatch(/\\ue00[01]|[\uE000\uE001]/);
  });

  it("a queued run's parsing call has the answer in a nonce block; the answering call has no marks", async () => {
    const answerer = uniqueModel("delimit-ans");
    const judge = uniqueModel("delimit-parse");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris, of course" } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const runId = await submitRun({
      benchmark: { name: "delimit", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)] },
    });
    expect((await waitForRun(runId)).status).toBe("completed");
    const [parse] = await bodies(judge);
    expect(parse).toMatch(block("Paris, of course"));
    for (const b of [...(await bodies(answerer)), parse!]) expect(b).not.toMatch(/\\ue00[01]|[\uE000\uE001]/);
  });
});
