/** promptfoo's webhook body → the judge's sample, and the outcome → promptfoo's answer (src/stored-judges/promptfoo.ts). */
import { describe, expect, it } from "vitest";
import { promisedSample, promptfooAnswer, promptfooSample } from "../../../src/stored-judges/promptfoo";
import { PromptfooRequest } from "../../../src/schemas/stored-judges";

const body = (raw: unknown) => PromptfooRequest.parse(raw);

describe("promptfooSample", () => {
  it("takes input from the prompt, reference and vars from the mapped test vars; lists and objects as JSON", () => {
    const got = promptfooSample(
      body({ output: { city: "Paris" }, context: { prompt: "Capital?", vars: { expected: "Paris", tags: ["geo"], n: 3, skip: null } } }),
      {
        reference: "expected",
        vars: { labels: "tags", count: "n" },
      },
    );
    expect(got).toEqual({
      ok: true,
      sample: { input: "Capital?", output: '{"city":"Paris"}', reference: "Paris", vars: { labels: '["geo"]', count: 3 } },
    });
  });

  it("passes every non-null test var under its own name without a vars mapping, and reads input from a var when told", () => {
    const got = promptfooSample(
      body({ output: "Paris", context: { prompt: "p", vars: { question: "Capital of France?", a: true, gone: null } } }),
      { input: "question" },
    );
    expect(got).toEqual({
      ok: true,
      sample: { input: "Capital of France?", output: "Paris", vars: { question: "Capital of France?", a: true } },
    });
  });

  it("names every mapped var the test lacks (a null counts as missing)", () => {
    const got = promptfooSample(body({ output: "x", context: { vars: { expected: null } } }), {
      reference: "expected",
      vars: { topic: "subject" },
    });
    expect(got.ok).toBe(false);
    expect(!got.ok && got.issues.map((i) => i.path)).toEqual(["context.vars.expected", "context.vars.subject"]);
  });

  it("promises, for a store-time check, the reference only when mapped and any var when vars pass through", () => {
    expect("reference" in promisedSample({})).toBe(false);
    expect("anything" in promisedSample({}).vars).toBe(true);
    expect(Object.keys(promisedSample({ reference: "e", vars: { topic: "s" } }).vars)).toEqual(["topic"]);
    expect("other" in promisedSample({ vars: { topic: "s" } }).vars).toBe(false);
  });
});

describe("promptfooAnswer", () => {
  const usage = { calls: 1, input_tokens: 1, output_tokens: 1, total_tokens: 2, models: [], cost_usd: 0, unpriced_models: [] };
  it("a decided judge: its pass, score and reason", () => {
    expect(promptfooAnswer({ pass: false, score: 0.2, threshold: 0.5, reason: "0.2 < 0.5", units: [], usage })).toEqual({
      decided: true,
      verdict: { pass: false, score: 0.2, reason: "0.2 < 0.5" },
    });
  });
  it("an undecided judge is never a verdict: pass null → undecided, naming the unit and the error", () => {
    const a = promptfooAnswer({
      pass: null,
      score: null,
      threshold: 0.5,
      reason: "failed",
      units: [],
      usage,
      error: { unit: "judge", kind: "timeout", message: "deadline" },
    });
    expect(a).toEqual({ decided: false, why: "the judge could not decide (unit judge, timeout): deadline" });
  });
});
