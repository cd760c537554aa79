/**
 * Karenina's per-model request_timeout and retry_policy (ModelConfig, schemas/config/models.py:614-621),
 * and the run's as the default for models without their own (model_stamping, batch_runner.py:184-193),
 * honoured end to end through the queue, the SDK adapter and the fake LLM server.
 */
import { describe, expect, it } from "vitest";
import { addFakeRules, allResults, exactTemplate, fakeModel, fakeStats, submitRun, uniqueModel, waitForRun } from "./helpers";

const question = { id: "q", question: "What is the capital of France?", template: exactTemplate("Paris") };

async function runWith(answering: unknown[], judge: string, config: Record<string, unknown> = {}) {
  const runId = await submitRun({
    benchmark: { name: "limits", questions: [question] },
    config: { answering_models: answering, parsing_models: [fakeModel("j", judge)], ...config },
  });
  await waitForRun(runId);
  return allResults(runId);
}

describe("per-model request_timeout and retry_policy", () => {
  it("retry_policy: a model's own budget, else the run's, else Karenina's (server_error: 2 retries)", async () => {
    const [own, fromRun, karenina, judge] = [
      uniqueModel("rp-own"),
      uniqueModel("rp-run"),
      uniqueModel("rp-default"),
      uniqueModel("rp-judge"),
    ];
    await addFakeRules([
      { match: { model: own }, reply: { fault: "500" } },
      { match: { model: fromRun }, reply: { fault: "500" } },
      { match: { model: karenina }, reply: { fault: "500" } },
    ]);
    await runWith([fakeModel("own", own, { retry_policy: { server_error: { max_attempts: 0 } } }), fakeModel("run", fromRun)], judge, {
      retry_policy: { server_error: { max_attempts: 1, backoff_min: 0, backoff_max: 0 } },
    });
    await runWith([fakeModel("karenina", karenina)], judge);
    expect((await fakeStats(own)).total).toBe(1);
    expect((await fakeStats(fromRun)).total).toBe(2);
    expect((await fakeStats(karenina)).total).toBe(3);
  });

  it("request_timeout: a call slower than the model's request_timeout times out; the same reply within it passes", async () => {
    const [quick, patient, judge] = [uniqueModel("rt-1s"), uniqueModel("rt-default"), uniqueModel("rt-judge")];
    await addFakeRules([
      { match: { model: quick }, reply: { text: "Paris", latency_ms: 2_500 } },
      { match: { model: patient }, reply: { text: "Paris", latency_ms: 2_500 } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const results = await runWith(
      [fakeModel("quick", quick, { request_timeout: 1, retry_policy: { timeout: { max_attempts: 0 } } }), fakeModel("patient", patient)],
      judge,
    );
    const byModel = Object.fromEntries(results.map((r) => [r.metadata.answering.config_id ?? r.metadata.answering.model_name, r]));
    expect(byModel.quick!.metadata.failure).toMatchObject({ group: "retry" });
    expect(byModel.quick!.metadata.error).toMatch(/timeout|timed out/i);
    expect(byModel.patient!.template.verify_result).toBe(true);
  });
});
