/**
 * The AI binding in wrangler.toml under local workerd: it exists, but Workers AI runs only on
 * Cloudflare, so every call is refused. A run with a workers_ai model must say so and end, not retry.
 */
import { describe, expect, it } from "vitest";
import { addFakeRules, allResults, exactTemplate, fakeModel, fakeStats, submitRun, uniqueModel, waitForRun } from "./helpers";

describe("workers_ai in local workerd", () => {
  it("ends the job with a bad_request failure that says Workers AI needs Cloudflare, without retrying", async () => {
    const judge = uniqueModel("wai-local-judge");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "Paris" } } }]);
    const runId = await submitRun({
      benchmark: { name: "wai-local", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: {
        answering_models: [{ id: "wai", interface: "workers_ai", model_name: "@cf/meta/llama-3.1-8b-instruct" }],
        parsing_models: [fakeModel("j", judge)],
      },
    });
    const view = await waitForRun(runId);
    // Its only job errored: nothing was graded, so the run is failed (issue 15 item 1).
    expect(view).toMatchObject({ status: "failed", progress: { total: 1, done: 1 } });
    expect(view.summary[0]).toMatchObject({ passed: 0, failed: 0, errored: 1 });
    const [result] = await allResults(runId);
    expect(result.metadata.failure).toMatchObject({ stage: "generate_answer" });
    expect(result.metadata.error).toContain("bad_request");
    expect(result.metadata.error).toContain("wrangler dev --remote");
    expect(result.metadata.retry_counts).toEqual({}); // a bad_request is not retried
    expect((await fakeStats(judge)).total).toBe(0); // no answer, nothing to judge
  });
});
