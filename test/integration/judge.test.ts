/** POST /v1/judge and /v1/judge/calibrate in workerd, through the real SDK adapters and the fake LLM. */
import { describe, expect, it } from "vitest";
import { addFakeRules, api, fakeModel, fakeStats, uniqueModel } from "./helpers";

const post = async (path: string, json: unknown) => {
  const res = await api(path, { method: "POST", json });
  return { status: res.status, body: (await res.json()) as any };
};
const sample = { input: "q", output: "an answer" };

describe("POST /v1/judge", () => {
  it("refuses an invalid graph with 400 at the config path, before any model call", async () => {
    const model = uniqueModel("judge-400");
    const { status, body } = await post("/v1/judge", {
      ...sample,
      config: {
        provider: fakeModel("j", model),
        pipeline: [
          { layer: { unit: { type: "judge", prompt: "p" }, repeat: 3, outer: "broadcast" } },
          { layer: { unit: { type: "verify" }, repeat: 2 } },
          { type: "max-pool" },
        ],
      },
    });
    expect(status).toBe(400);
    expect(body.error.issues).toEqual([
      { path: "config.pipeline[0].layer.outer", message: expect.stringContaining("same size (here 3 → 2)") },
    ]);
    expect((await fakeStats(model)).total).toBe(0);
  });

  it("a prompt placing {{input}} in a request without input is a 400 at the prompt, before any call", async () => {
    // Before 8 Dec input defaulted to "" and the model was asked to judge "Question: " blind.
    const model = uniqueModel("judge-no-input");
    const config = { provider: fakeModel("j", model), type: "likert", prompt: "Question: {{input}}\nAnswer: {{output}}" };
    const res = await post("/v1/judge", { output: "Paris", config });
    expect(res.status).toBe(400);
    expect(res.body.error.issues).toEqual([
      { path: "config.prompt", message: "uses {{input}}, which this request does not give: send input (the question the output answers)" },
    ]);
    const items = [true, false].map((label) => ({ output: "Paris", label }));
    const cal = await post("/v1/judge/calibrate", { config, items: [items[0], { ...items[1], input: "Capital of France?" }] });
    expect(cal.status).toBe(400);
    expect(cal.body.error.issues).toEqual([
      { path: "items[0].input", message: "the judge's config.prompt uses {{input}}, which this item does not give" },
    ]);
    expect((await fakeStats(model)).total).toBe(0);
  });

  it("names a var the prompt needs but the request lacks, and an unknown key", async () => {
    const provider = fakeModel("j", uniqueModel("judge-vars"));
    const missing = await post("/v1/judge", { ...sample, config: { provider, type: "likert", prompt: "{{vars.requirements}}" } });
    expect(missing.body.error.issues).toEqual([
      { path: "config.prompt", message: "uses {{vars.requirements}}, which this request does not give" },
    ]);
    const unknown = await post("/v1/judge", { ...sample, config: { provider, type: "likert", scael: [1, 5] } });
    expect(unknown.body.error.issues[0].path).toBe("config.scael");
  });

  it("refuses a judge that plans more model calls than one request may make", async () => {
    const provider = fakeModel("j", uniqueModel("judge-cap"));
    const units = Array.from({ length: 13 }, (_, i) => ({ type: "judge", name: `u${i}` }));
    const { status, body } = await post("/v1/judge", {
      ...sample,
      config: { provider, pipeline: [{ layer: { units, repeat: 16 } }, { type: "mean" }] },
    });
    expect(status).toBe(400);
    expect(body.error.issues).toEqual([
      { path: "config", message: "this judge plans 208 model calls; one request may make at most 200 — split the work" },
    ]);
  });

  it("a model whose key secret is not set is a 400 naming the secret, not a failed judgment", async () => {
    const provider = fakeModel("j", uniqueModel("judge-secret"), { api_key_secret: "JUDGE_TEST_UNSET_KEY" });
    const { status, body } = await post("/v1/judge", { ...sample, config: { provider, type: "likert" } });
    expect(status).toBe(400);
    expect(body.error.issues).toEqual([
      {
        path: "config.provider",
        message:
          "model j needs the secret JUDGE_TEST_UNSET_KEY, which is not set; PUT /v1/secrets/JUDGE_TEST_UNSET_KEY, or for the deployment's own keys add JUDGE_TEST_UNSET_KEY=… to .dev.vars.local, then restart npm start / npm run dev",
      },
    ]);
  });

  it("a model that would send its key outside EDGEVAL_KEY_ORIGINS is a 400 naming the origin, and nothing is called", async () => {
    const provider = {
      id: "j",
      interface: "openai_compatible",
      model_name: uniqueModel("judge-key-dest"),
      base_url: "https://collector.example/v1",
      api_key_secret: "FAKE_PROVIDER_KEY",
    };
    const { status, body } = await post("/v1/judge", { ...sample, config: { provider, type: "likert" } });
    expect(status).toBe(400);
    expect(body.error.issues).toHaveLength(1);
    expect(body.error.issues[0].path).toBe("config.provider");
    expect(body.error.issues[0].message).toContain("FAKE_PROVIDER_KEY to https://collector.example");
  });

  it("a provider temperature its API refuses is a 400 at the model's temperature", async () => {
    const provider = { id: "j", interface: "anthropic", model_name: uniqueModel("judge-temp"), temperature: 1.7 };
    const { status, body } = await post("/v1/judge", { ...sample, config: { provider, type: "likert" } });
    expect(status).toBe(400);
    expect(body.error.issues).toContainEqual({
      path: "config.provider.temperature",
      message: 'interface "anthropic" takes a temperature from 0 to 1 (got 1.7); the provider would refuse every call',
    });
  });

  it("a model that keeps failing gives pass: null with the failing unit, never pass: false", async () => {
    const model = uniqueModel("judge-down");
    await addFakeRules([{ match: { model }, reply: { fault: "500" } }]);
    const { status, body } = await post("/v1/judge", {
      ...sample,
      config: { provider: fakeModel("j", model), type: "likert", retries: 2 },
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ pass: null, score: null, error: { unit: "likert", kind: "server_error" } });
    // Transport retries by class share one budget per request (server_error: 2 retries): the
    // first unit attempt makes 1 + 2 calls, the unit's own retry 1 more before the budget is spent.
    expect((await fakeStats(model)).total).toBe(4);
  });

  it("absorbs a transient provider error with a retry in place, as queue jobs do", async () => {
    const model = uniqueModel("judge-blip");
    await addFakeRules([
      { match: { model }, reply: { fault: "500" }, times: 1 },
      { match: { model }, reply: { json: { answer: 5 } } },
    ]);
    const { status, body } = await post("/v1/judge", { ...sample, config: { provider: fakeModel("j", model), type: "likert" } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ pass: true, score: 5 });
    expect((await fakeStats(model)).total).toBe(2);
  });

  it("falls back to the next model in the provider list", async () => {
    const [down, up] = [uniqueModel("judge-fb-down"), uniqueModel("judge-fb-up")];
    await addFakeRules([
      { match: { model: down }, reply: { fault: "500" } },
      { match: { model: up }, reply: { json: { answer: 5 } } },
    ]);
    const { body } = await post("/v1/judge", {
      ...sample,
      config: { provider: [fakeModel("a", down), fakeModel("b", up)], type: "likert", retries: 1 },
    });
    expect(body).toMatchObject({ pass: true, score: 5, units: [{ attempts: 2, usage: { models: [up] } }] });
  });

  it("reports usage and cost per unit with the request's prices", async () => {
    const model = uniqueModel("judge-cost");
    await addFakeRules([{ match: { model }, reply: { json: { answer: 3 } } }]);
    const { body } = await post("/v1/judge", {
      ...sample,
      config: { provider: fakeModel("j", model), type: "likert" },
      prices: { [model]: { input_per_mtok: 1_000_000, output_per_mtok: 0 } },
    });
    const u = body.units[0].usage;
    expect(u).toMatchObject({ calls: 1, models: [model] });
    expect(u.input_tokens).toBeGreaterThan(0);
    expect(u.cost_usd).toBe(u.input_tokens);
    expect(body.usage.cost_usd).toBe(u.input_tokens);
  });

  it("token-probability reads the first token's logprobs from the OpenAI-compatible adapter", async () => {
    const model = uniqueModel("judge-tp");
    await addFakeRules([{ match: { model }, reply: { text: "4" } }]);
    const { body } = await post("/v1/judge", {
      ...sample,
      config: { provider: fakeModel("j", model), type: "likert", extractor: { type: "token-probability", mode: "argmax" } },
    });
    expect(body).toMatchObject({ pass: true, score: 4, units: [{ answer: 4, distribution: { "4": 1 } }] });
  });

  it("post-hoc: free text from the judge model, structured by a second model", async () => {
    const [main, cheap] = [uniqueModel("judge-ph-main"), uniqueModel("judge-ph-cheap")];
    await addFakeRules([
      { match: { model: main, kind: "chat" }, reply: { text: "I would say yes, it is helpful." } },
      { match: { model: cheap, kind: "structured", contains: "I would say yes" }, reply: { json: { answer: "yes" } } },
    ]);
    const config = {
      provider: fakeModel("j", main),
      type: "categorical",
      categories: ["yes", "no"],
      extractor: { type: "post-hoc", provider: fakeModel("c", cheap) },
    };
    const { body } = await post("/v1/judge", { ...sample, config });
    expect(body).toMatchObject({ pass: true, score: 1, usage: { calls: 2 } });
  });
});

describe("POST /v1/judge/calibrate", () => {
  it("reports accuracy and Cohen's κ as computed by hand: p_o = 3/5, p_e = 0.52, κ = 0.08 / 0.48 = 1/6", async () => {
    const model = uniqueModel("judge-cal");
    const judged = ["yes", "yes", "no", "no", "yes"];
    await addFakeRules(judged.map((answer, i) => ({ match: { model, contains: `answer number ${i}.` }, reply: { json: { answer } } })));
    const human = [true, true, true, false, false];
    const items = human.map((label, i) => ({ output: `answer number ${i}.`, label }));
    const { status, body } = await post("/v1/judge/calibrate", {
      config: { provider: fakeModel("j", model), type: "categorical", categories: ["yes", "no"] },
      items,
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ n: 5, judged: 5, errored: 0, accuracy: 0.6 });
    expect(body.cohen_kappa).toBeCloseTo(1 / 6, 12);
    expect(body.items.map((i: any) => i.pass[0])).toEqual([true, true, false, false, true]);
  });

  it("reports flip rate across repeats and position-swap conflicts for a position-biased pairwise judge", async () => {
    const model = uniqueModel("judge-cal-swap");
    await addFakeRules([{ match: { model }, reply: { json: { choice: "A" } } }]);
    const items = [0, 1, 2].map((i) => ({ output: `o${i}`, label: true }));
    const config = { provider: fakeModel("j", model), type: "pairwise", swap: true, options: ["{{output}}", "baseline"] };
    const { body } = await post("/v1/judge/calibrate", { config, items, repeats: 2 });
    expect(body).toMatchObject({ position_swap_conflict_rate: 1, flip_rate: 0 });
    expect((await fakeStats(model)).total).toBe(12);
  });
});
