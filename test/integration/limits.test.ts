/**
 * The shared limiter against a provider that refuses more than 8 calls in flight. The local
 * queue delivers one batch at a time, so the test makes the concurrency itself: several batches
 * delivered at once, as several consumer invocations would be in production.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { addFakeRules, api, exactTemplate, fakeModel, uniqueModel, type RunView } from "./helpers";
import { deliverConcurrently, deliverUntilDone, requestLog, startCapturedRun } from "./limits-support";

/**
 * Every job's first answering call is in the opening burst: 24 calls granted before any 429 was
 * heard of. On a loaded machine some of them reach the server hundreds of ms after the first 429
 * went back, so the time since that 429 cannot tell a late first call from one the limiter let
 * through knowing of it. Calls after the first 24 (retries, the only calls a job makes after its
 * 429) are each granted after the limiter heard of that 429.
 */
const OPENING_BURST = 24;

describe("ProviderLimiter against a provider that takes 8 calls at a time", () => {
  it("gets a 429, keeps the provider at 8 or fewer in flight from then on, and completes the run", async () => {
    const answerer = uniqueModel("cap8-answerer");
    const judge = uniqueModel("cap8-judge");
    await addFakeRules([
      { match: { model: answerer, in_flight_above: 8 }, reply: { fault: "429", retry_after_s: 1 } },
      { match: { model: answerer }, reply: { text: "Paris", latency_ms: 200 } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const { runId, bodies } = await startCapturedRun({
      benchmark: { name: "cap8", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)], replicate_count: 24 },
    });
    // 6 batches × 4 jobs side by side = 24 answering calls offered at once against a cap of 8.
    await deliverUntilDone(bodies, 6);

    const log = await requestLog(answerer);
    const refusals = log.filter((r) => r.fault === "429");
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    const first = Math.min(...refusals.map((r) => r.replied_at!));
    const retries = [...log].sort((a, b) => a.at - b.at).slice(OPENING_BURST);
    expect(retries.length).toBeGreaterThan(0);
    expect(Math.max(...retries.map((r) => r.in_flight))).toBeLessThanOrEqual(8);
    // the retry-after (1 s) blocked the key for every consumer: no retry before it ran out
    expect(retries.filter((r) => r.at < first + 1_000)).toEqual([]);

    const view = (await (await api(`/v1/runs/${runId}`)).json()) as RunView;
    expect(view).toMatchObject({ status: "completed", progress: { total: 24, done: 24 } });
    expect(view.summary[0]).toMatchObject({ passed: 24, errored: 0 });
  });
});

describe("run-level limits", () => {
  it("caps a model at the concurrency the run sets for it, over the interface default", async () => {
    const answerer = uniqueModel("limit2-answerer");
    const judge = uniqueModel("limit2-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris", latency_ms: 100 } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const { runId, bodies } = await startCapturedRun({
      benchmark: { name: "limit2", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)], replicate_count: 8 },
      limits: { a: { concurrency: 2 } },
    });
    await deliverUntilDone(bodies, 2); // 8 answering calls offered at once
    const stats = (await (await fetch(`${env.FAKE_LLM_URL}/stats?model=${answerer}`)).json()) as { total: number; peak_in_flight: number };
    expect(stats).toMatchObject({ total: 8, peak_in_flight: 2 });
    const view = (await (await api(`/v1/runs/${runId}`)).json()) as RunView;
    expect(view).toMatchObject({ status: "completed", progress: { total: 8, done: 8 } });
  });

  it("holds a queued run to the rpm the run sets, leases handed on within an invocation included", async () => {
    const answerer = uniqueModel("rpm120-answerer");
    const judge = uniqueModel("rpm120-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris", latency_ms: 20 } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const RPM = 120;
    const CALLS = RPM + 10; // at most 120 in any minute: the last 10 wait for the minute to pass
    const { runId, bodies } = await startCapturedRun({
      benchmark: { name: "rpm120", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [fakeModel("j", judge)], replicate_count: CALLS },
      // Two slots for all jobs at once: calls wait in their invocation's lease pool, so finished
      // calls hand their leases on, which the limiter must have paid for from the minute's requests.
      limits: { a: { rpm: RPM, concurrency: 2 } },
    });
    // Two invocations running all their jobs side by side, each with one lease pool. One round: the
    // jobs the minute has no room for are handed back to wait it out (a deferral of about a minute),
    // which this test does not sit through (scenario 6 of the reliability suite does).
    const handedBack = await deliverConcurrently(bodies, 2, 1, { JOB_CONCURRENCY: String(CALLS) });

    // The old token bucket (full at the start, refilled continuously) let all 130 through within
    // seconds: 120 at once, then one every 500 ms.
    const arrivals = (await requestLog(answerer)).map((r) => r.at);
    expect(arrivals).toHaveLength(RPM);
    expect(handedBack).toHaveLength(CALLS - RPM);
    const view = (await (await api(`/v1/runs/${runId}`)).json()) as RunView;
    expect(view).toMatchObject({ status: "running", progress: { total: CALLS, done: RPM } });
  }, 60_000);

  it("refuses limits for a model id the run does not have", async () => {
    const res = await api("/v1/runs", {
      method: "POST",
      json: {
        benchmark: { name: "x", questions: [{ id: "q1", question: "Q?", template: exactTemplate("A") }] },
        config: { answering_models: [fakeModel("a", "m")], parsing_models: [fakeModel("j", "m")] },
        limits: { nope: { rpm: 10 } },
      },
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("limits.nope");
  });
});
