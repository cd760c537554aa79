/**
 * Every example configuration of ../shared/spec/compound-judges-verdict.md (the `value` of each
 * `type: verdict` assertion, with `provider` as a ModelConfig), plus Verdict's ensemble-verify
 * protocol and a three-round debate, through POST /v1/judge against the fake LLM.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { addFakeRules, api, fakeModel, fakeStats, uniqueModel } from "./helpers";

async function judge(config: object, extra: object = {}) {
  const res = await api("/v1/judge", {
    method: "POST",
    json: { input: "Say hello politely.", output: "Hello! How may I help you today?", ...extra, config },
  });
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}
const setup = (prefix: string) => {
  const model = uniqueModel(prefix);
  return { model, provider: fakeModel("judge", model) };
};

describe("spec examples run end to end on the fake LLM", () => {
  it("judge → verify ×3 with aggregate: max (the spec's first configuration schema)", async () => {
    const { model, provider } = setup("spec-pipeline");
    await addFakeRules([
      { match: { model, contains: "Evaluate politeness" }, reply: { json: { answer: 4 } } },
      { match: { model, contains: "Check if explanation is valid" }, reply: { json: { answer: 5 } } },
    ]);
    const body = await judge({
      provider,
      pipeline: [
        { type: "judge", prompt: "Evaluate politeness...", scale: [1, 5] },
        { type: "verify", prompt: "Check if explanation is valid...", repeat: 3 },
      ],
      aggregate: "max",
    });
    expect(body).toMatchObject({ pass: true, score: 5, threshold: 3 });
    expect(body.units.map((u: any) => u.name)).toEqual(["judge", "verify[0]", "verify[1]", "verify[2]", "max-pool"]);
    expect((await fakeStats(model)).total).toBe(4);
  });

  it("simple categorical judgment with threshold 0.8", async () => {
    const { model, provider } = setup("spec-categorical");
    await addFakeRules([{ match: { model, kind: "structured" }, reply: { json: { answer: "no" } } }]);
    const body = await judge({
      provider,
      type: "categorical",
      prompt: "Is this response helpful?",
      categories: ["yes", "no"],
      threshold: 0.8,
    });
    expect(body).toMatchObject({ pass: false, score: 0, threshold: 0.8, units: [{ answer: "no", pass_value: "yes" }] });
  });

  it("likert scale rating with explanation and threshold 4", async () => {
    const { model, provider } = setup("spec-likert");
    await addFakeRules([{ match: { model }, reply: { json: { explanation: "warm and clear", answer: 5 } } }]);
    const body = await judge({
      provider,
      type: "likert",
      prompt: "Rate the quality of this response",
      scale: [1, 5],
      explanation: true,
      threshold: 4,
    });
    expect(body).toMatchObject({ pass: true, score: 5, units: [{ explanation: "warm and clear" }] });
    expect(body.reason).toContain("warm and clear");
  });

  it("pairwise comparison of the output with {{vars.baseline}}", async () => {
    const { model, provider } = setup("spec-pairwise");
    await addFakeRules([{ match: { model, contains: "Option B:\nHi." }, reply: { json: { choice: "A" } } }]);
    const body = await judge(
      { provider, type: "pairwise", prompt: "Which response is more accurate?", options: ["{{output}}", "{{vars.baseline}}"] },
      { vars: { baseline: "Hi." } },
    );
    expect(body).toMatchObject({ pass: true, score: 1, units: [{ chosen: "A" }] });
  });

  it("hierarchical verification with majority voting (categorical ×3 → verify → max-pool 0.7)", async () => {
    const { model, provider } = setup("spec-hier");
    await addFakeRules([
      {
        match: { model, contains: "Does this response contain factual errors?" },
        reply: { json: { explanation: "no claims to check", answer: "no" } },
      },
      { match: { model, contains: "Check if the explanation correctly identifies" }, reply: { json: { answer: "no" } } },
    ]);
    const body = await judge({
      provider,
      pipeline: [
        {
          layer: {
            unit: {
              type: "categorical-judge",
              prompt: "Does this response contain factual errors?",
              categories: ["yes", "no"],
              pass_value: "no",
              explanation: true,
            },
            repeat: 3,
          },
        },
        {
          layer: {
            unit: {
              type: "verify",
              prompt:
                "Check if the explanation correctly identifies factual errors:\nExplanation: {{previous.explanation}}\nResponse: {{output}}",
            },
          },
        },
        { type: "max-pool", threshold: 0.7 },
      ],
    });
    expect(body).toMatchObject({ pass: true, score: 1, threshold: 0.7 });
    const sent = (await (await fetch(`${env.FAKE_LLM_URL}/_admin/requests?model=${model}`)).json()) as { requests: unknown[] };
    const verifyText = JSON.stringify(sent.requests);
    expect(verifyText).toContain("[categorical-judge[0]] no claims to check");
  });

  it("multi-criteria evaluation with weighted-mean and threshold 4.0", async () => {
    const { model, provider } = setup("spec-multi");
    await addFakeRules([
      { match: { model, contains: "Rate accuracy" }, reply: { json: { answer: 5 } } },
      { match: { model, contains: "Rate clarity" }, reply: { json: { answer: 4 } } },
      { match: { model, contains: "Rate completeness" }, reply: { json: { answer: 2 } } },
    ]);
    const body = await judge({
      provider,
      pipeline: [
        {
          layer: {
            units: [
              { type: "likert", name: "accuracy", prompt: "Rate accuracy (1-5)", scale: [1, 5] },
              { type: "likert", name: "clarity", prompt: "Rate clarity (1-5)", scale: [1, 5] },
              { type: "likert", name: "completeness", prompt: "Rate completeness (1-5)", scale: [1, 5] },
            ],
          },
        },
        { type: "weighted-mean", weights: { accuracy: 0.5, clarity: 0.3, completeness: 0.2 } },
      ],
      threshold: 4.0,
    });
    expect(body.score).toBeCloseTo(2.5 + 1.2 + 0.4);
    expect(body.pass).toBe(true);
  });

  it("debate-style evaluation (for/against ×2 → judge with categories)", async () => {
    const { model, provider } = setup("spec-debate");
    await addFakeRules([
      { match: { model, kind: "chat", contains: "Argue why this response is good" }, reply: { text: "It is polite." } },
      { match: { model, kind: "chat", contains: "Argue why this response is bad" }, reply: { text: "It is generic." } },
      { match: { model, kind: "structured", contains: "Debate so far" }, reply: { json: { answer: "yes" } } },
    ]);
    const body = await judge({
      provider,
      pipeline: [
        {
          layer: {
            units: [
              { type: "debate-for", prompt: "Argue why this response is good" },
              { type: "debate-against", prompt: "Argue why this response is bad" },
            ],
            repeat: 2,
          },
        },
        { type: "judge", prompt: "Based on the debate, is this a good response?", categories: ["yes", "no"] },
      ],
    });
    expect(body).toMatchObject({ pass: true, score: 1 });
    expect(body.units.slice(0, 4).map((u: any) => u.text)).toEqual(["It is polite.", "It is generic.", "It is polite.", "It is generic."]);
  });

  it("using with providers: the config's provider is the default and a unit may override it", async () => {
    const a = setup("spec-prov-default");
    const b = setup("spec-prov-unit");
    const body = await judge({
      provider: a.provider,
      pipeline: [
        {
          layer: {
            units: [
              { type: "categorical", name: "x", prompt: "Is this appropriate?", categories: ["yes", "no"] },
              { type: "categorical", name: "y", prompt: "Is this appropriate?", categories: ["yes", "no"], provider: b.provider },
            ],
          },
        },
        { type: "mean" },
      ],
    });
    expect(body).toMatchObject({ pass: true, score: 1 });
    expect([(await fakeStats(a.model)).total, (await fakeStats(b.model)).total]).toEqual([1, 1]);
    const simple = await judge({ provider: a.provider, type: "categorical", prompt: "Is this appropriate?", categories: ["yes", "no"] });
    expect(simple.pass).toBe(true);
  });

  it("using with variables: {{vars.requirements}} on a 1–10 scale with a metric name", async () => {
    const { model, provider } = setup("spec-vars");
    await addFakeRules([{ match: { model, contains: "Given the requirements: greet the user" }, reply: { json: { answer: 8 } } }]);
    const config = {
      provider,
      type: "likert",
      prompt: "Given the requirements: {{vars.requirements}}\nRate how well this response meets them.",
      scale: [1, 10],
      metric: "requirement-satisfaction",
    };
    expect(await judge(config, { vars: { requirements: "greet the user" } })).toMatchObject({ pass: true, score: 8, threshold: 5.5 });
  });

  it("combining with other assertions: the verdict part (tone categorical) runs alone", async () => {
    const { provider } = setup("spec-combined");
    const body = await judge({ provider, type: "categorical", prompt: "Is the tone professional?", categories: ["yes", "no"] });
    expect(body).toMatchObject({ pass: true, score: 1, units: [{ answer: "yes" }] });
  });
});

describe("Verdict protocols on the fake LLM", () => {
  it("ensemble-verify: 3 × [judge with explanation → verify] → max-pool, judges and verifiers paired by broadcast", async () => {
    const { model, provider } = setup("ensemble-verify");
    await addFakeRules([
      {
        match: { model, contains: "Is the response supported by the source?" },
        reply: { json: { explanation: "every claim appears in the source", answer: "yes" } },
      },
      { match: { model, contains: "every claim appears in the source" }, reply: { json: { answer: "yes" } }, times: 2 },
      { match: { model, contains: "every claim appears in the source" }, reply: { json: { answer: "no" } } },
    ]);
    const body = await judge({
      provider,
      pipeline: [
        {
          layer: {
            unit: {
              type: "categorical",
              name: "judge",
              prompt: "Is the response supported by the source?",
              categories: ["yes", "no"],
              explanation: true,
              temperature: 0.7,
            },
            repeat: 3,
            outer: "broadcast",
          },
        },
        { layer: { unit: { type: "verify", name: "verifier", temperature: 0 }, repeat: 3 } },
        { type: "max-pool" },
      ],
    });
    expect(body.units.map((u: any) => [u.name, u.inputs])).toEqual([
      ["judge[0]", []],
      ["judge[1]", []],
      ["judge[2]", []],
      ["verifier[0]", ["judge[0]"]],
      ["verifier[1]", ["judge[1]"]],
      ["verifier[2]", ["judge[2]"]],
      ["max-pool", ["verifier[0]", "verifier[1]", "verifier[2]"]],
    ]);
    expect(body.units[6]).toMatchObject({ answer: "yes", votes: { yes: 2, no: 1 } });
    expect(body.score).toBeCloseTo(2 / 3);
    expect(body.pass).toBe(true);
    expect(body.usage.calls).toBe(6);
  });

  it("debate: proponent/opponent × 3 rounds taking turns → judge", async () => {
    const { model, provider } = setup("debate3");
    await addFakeRules([
      { match: { model, kind: "chat", contains: "Your role: argue that the response is good" }, reply: { text: "pro point" } },
      { match: { model, kind: "chat", contains: "Your role: argue that the response is bad" }, reply: { text: "con point" } },
      { match: { model, kind: "structured" }, reply: { json: { explanation: "pro wins", answer: 4 } } },
    ]);
    const body = await judge({
      provider,
      pipeline: [
        {
          layer: {
            units: [
              { type: "debate-for", name: "proponent" },
              { type: "debate-against", name: "opponent" },
            ],
            repeat: 3,
            inner: "chain",
          },
        },
        { type: "judge", name: "referee", prompt: "Who argued better, and how good is the response?", scale: [1, 5], explanation: true },
      ],
    });
    expect(body.units.map((u: any) => u.name)).toEqual([
      "proponent[0]",
      "opponent[0]",
      "proponent[1]",
      "opponent[1]",
      "proponent[2]",
      "opponent[2]",
      "referee",
    ]);
    expect(body.units[5].inputs).toEqual(["proponent[2]"]);
    expect(body).toMatchObject({ pass: true, score: 4 });
    expect((await fakeStats(model)).total).toBe(7);
  });
});
