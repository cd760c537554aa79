/**
 * Model calls under injected faults: 429 with retry-after, 500, Anthropic 529, hangs past the
 * call timeout (5 s in tests) and malformed JSON, each on 20 % of a model's requests: rules are
 * tried in order, so they fire on 20 %, 25 % and 1/3 of the requests reaching them (seeded, so the
 * same requests fault on every run); 40 % of each model's requests succeed.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { addFakeRules, allResults, exactTemplate, fakeModel, fakeStats, submitRun, uniqueModel, waitForRun } from "./helpers";
import { requestLog, type LoggedRequest } from "./limits-support";

/** An anthropic-interface model served by the fake LLM server. */
const anthropicModel = (id: string, model_name: string) => ({
  id,
  interface: "anthropic",
  model_name,
  base_url: env.FAKE_LLM_URL,
  api_key_secret: "FAKE_PROVIDER_KEY",
});

const questions = ["France:Paris", "Italy:Rome"].map((pair, i) => {
  const [country, capital] = pair.split(":") as [string, string];
  return { id: `q${i + 1}`, question: `Capital of ${country}?`, template: exactTemplate(capital) };
});

/** Retry-group categories, and `parsing` for output that never became valid JSON. */
const CLASSIFIED = new Set(["rate_limit", "server_error", "timeout", "connection", "parsing"]);

/** Time for a 429 to reach the client and the shared limiter (local round trips). */
const NOTICE_SLACK_MS = 150;

/** Requests that arrived while an earlier 429's retry-after still held (after the slack). */
function insideRetryAfter(log: LoggedRequest[]): LoggedRequest[] {
  const windows = log
    .filter((r) => r.fault === "429" && r.retry_after_s !== undefined)
    .map((r) => [r.replied_at! + NOTICE_SLACK_MS, r.replied_at! + r.retry_after_s! * 1000] as const);
  return log.filter((r) => windows.some(([from, to]) => r.at > from && r.at < to));
}

describe("faults at 20 %", () => {
  it("ends every job with a result or a classified failure, and sends nothing inside a retry-after window", async () => {
    const answerer = uniqueModel("fault-answerer");
    const judge = uniqueModel("fault-judge");
    await addFakeRules([
      { match: { model: answerer, probability: 0.2, seed: 11 }, reply: { fault: "429", retry_after_s: 1 } },
      { match: { model: answerer, probability: 0.25, seed: 12 }, reply: { fault: "500" } },
      { match: { model: answerer, probability: 1 / 3, seed: 13 }, reply: { fault: "hang" } },
      { match: { model: answerer, contains: "France" }, reply: { text: "Paris" } },
      { match: { model: answerer }, reply: { text: "Rome" } },
      { match: { model: judge, probability: 0.2, seed: 21 }, reply: { fault: "529" } },
      { match: { model: judge, probability: 0.25, seed: 22 }, reply: { fault: "429", retry_after_s: 1 } },
      { match: { model: judge, probability: 1 / 3, seed: 23 }, reply: { fault: "malformed" } },
      { match: { model: judge, contains: "Paris" }, reply: { json: { answer: "Paris" } } },
      { match: { model: judge }, reply: { json: { answer: "Rome" } } },
    ]);
    const runId = await submitRun({
      benchmark: { name: "faults", questions },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [anthropicModel("j", judge)], replicate_count: 4 },
    });
    const view = await waitForRun(runId, ["completed", "partial", "failed"], 80_000);
    expect(view.progress).toEqual({ total: 8, done: 8 });

    const results = await allResults(runId);
    expect(results).toHaveLength(8);
    for (const r of results) {
      const failure = r.metadata.failure;
      if (failure) {
        expect([...CLASSIFIED]).toContain(failure.category);
        expect(r.template?.verify_result ?? null).toBeNull();
      } else {
        expect(typeof r.template.verify_result).toBe("boolean");
      }
    }
    // every fault kind was injected, and the retries that absorbed them are on the results
    const answererLog = await requestLog(answerer);
    const judgeLog = await requestLog(judge);
    const faults = new Set([...answererLog, ...judgeLog].map((r) => r.fault));
    expect([...faults]).toEqual(expect.arrayContaining(["429", "500", "hang", "529", "malformed"]));
    const retried = results.flatMap((r) => Object.keys(r.metadata.retry_counts ?? {}));
    expect(retried.length).toBeGreaterThan(0);
    expect(insideRetryAfter(answererLog)).toEqual([]);
    expect(insideRetryAfter(judgeLog)).toEqual([]);
  }, 90_000);

  it("never takes a verdict from malformed output: one repair retry, then a parsing failure", async () => {
    const answerer = uniqueModel("malformed-answerer");
    const judge = uniqueModel("malformed-judge");
    await addFakeRules([
      { match: { model: answerer }, reply: { text: "Paris" } },
      { match: { model: judge }, reply: { fault: "malformed" } },
    ]);
    const runId = await submitRun({
      benchmark: { name: "malformed", questions: questions.slice(0, 1) },
      config: { answering_models: [fakeModel("a", answerer)], parsing_models: [anthropicModel("j", judge)], replicate_count: 3 },
    });
    await waitForRun(runId);
    const results = await allResults(runId);
    expect(results).toHaveLength(3);
    for (const r of results) {
      expect(r.metadata.failure).toMatchObject({ category: "parsing" });
      expect(r.template.verify_result).toBeNull();
    }
    expect((await fakeStats(judge)).total).toBe(6); // the call and its one repair, per result
    const repairs = (await requestLog(judge)).filter((r: any) => JSON.stringify(r.body).includes("could not be used"));
    expect(repairs).toHaveLength(3);
  });
});
