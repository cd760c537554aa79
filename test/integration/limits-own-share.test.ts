/**
 * Issue 16: a run's `limits` belong to the run. Before, they were written into the key's shared
 * ProviderLimiter: after one run with `{rpm: 1, concurrency: 1}` an unrelated 4-question run on the
 * same provider, base URL, key and model waited a minute. Now the shared limiter keeps its
 * defaults (read inside the Durable Object) and grants the next calls at once; the run's limits
 * hold in a limiter of its own.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { NO_KEY_PLACEHOLDER } from "../../src/llm/factory";
import { limiterName } from "../../src/limiter/limiter-client";
import { PROVIDER_DEFAULTS } from "../../src/limiter/limiter-state";
import type { ProviderLimiter } from "../../src/limiter/provider-limiter";
import { buildApp } from "../../src/http/app";
import { addFakeRules, api, exactTemplate, fakeModel, TOKEN, uniqueModel, type RunView } from "./helpers";
import { deliverUntilDone, startCapturedRun } from "./limits-support";

const viewOf = (name: string) => runInDurableObject(env.LIMITER.getByName(name), (instance: ProviderLimiter) => instance.view());

describe("a run's limits bound only its own share", () => {
  it("leaves the key's shared limiter at its defaults, and the next run's calls are granted without waiting", async () => {
    const model = uniqueModel("own-share");
    const judge = `${model}-judge`;
    await addFakeRules([
      { match: { model }, reply: { text: "Paris" } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
    ]);
    const answering = fakeModel("a", model);
    const { runId, bodies } = await startCapturedRun({
      benchmark: { name: "poison", questions: [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }] },
      config: { answering_models: [answering], parsing_models: [fakeModel("j", judge)] },
      limits: { a: { rpm: 1, concurrency: 1 } },
    });
    await deliverUntilDone(bodies, 1);
    expect(((await (await api(`/v1/runs/${runId}`)).json()) as RunView).status).toBe("completed");

    const sharedName = await limiterName(answering as never, NO_KEY_PLACEHOLDER);
    // The shared limiter is at the interface's defaults, as if the run had set nothing.
    expect(await viewOf(sharedName)).toEqual({ in_flight: 0, allowance: PROVIDER_DEFAULTS.openai_compatible });
    // The run's limits held where they belong: its own limiter.
    expect((await viewOf(await limiterName(answering as never, NO_KEY_PLACEHOLDER, `run:${runId}`)))?.allowance).toMatchObject({
      rpm: 1,
      concurrency: 1,
    });

    // The next caller without limits (another run, another tenant): 4 calls at once, none asked to wait.
    const stub = env.LIMITER.getByName(sharedName);
    const grants = await Promise.all(
      Array.from({ length: 4 }, () => stub.acquire({ provider: "openai_compatible", estimated_tokens: 100 })),
    );
    expect(grants.map((g) => (g.granted ? 0 : g.wait_ms))).toEqual([0, 0, 0, 0]);
    for (const g of grants) if (g.granted) await stub.release({ lease_id: g.lease_id });
  });

  it("takes limits above or below the defaults for a keyless server from the operator's EDGEVAL_PROVIDER_LIMITS", async () => {
    const model = uniqueModel("operator-limits");
    await addFakeRules([{ match: { model }, reply: { json: { answer: 4 } } }]);
    const provider = fakeModel("j", model);
    const bindings = { ...env, EDGEVAL_PROVIDER_LIMITS: JSON.stringify({ [env.FAKE_LLM_URL]: { rpm: 12_000, concurrency: 3 } }) };
    const res = await buildApp().fetch(
      new Request("http://edgeval.test/v1/judge", {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ input: "q", output: "a", config: { provider, type: "likert" } }),
      }),
      bindings,
    );
    expect(res.status).toBe(200);
    const view = await viewOf(await limiterName(provider as never, NO_KEY_PLACEHOLDER));
    expect(view?.allowance).toEqual({ ...PROVIDER_DEFAULTS.openai_compatible, rpm: 12_000, concurrency: 3 });
  });
});
