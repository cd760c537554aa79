/**
 * Scenario 9, canary-secret sweep: every kind of secret the service holds gets a canary value and
 * is used for real — a tenant API key (two, one minted by /v1/keys), a provider key set with
 * PUT /v1/secrets and sent to the fake provider by a queued run, a stored judge and its promptfoo
 * token, an inbound trigger's signing secret (a signed delivery starts a run), a webhook endpoint's
 * secret (its run.completed delivery signed and received). Then every place a secret must never
 * reach is swept for each canary, as is and base64/hex (leak-scan.ts `forms`): every D1 row, every
 * R2 object, the runs' coordinator storage, the job messages, the worker's console output, the
 * results and exports, the webhook bodies received. A leak fails the row (and the test).
 */
import { Webhook } from "standardwebhooks";
import { env, exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CreateRunBody } from "../../src/schemas/api";
import { coordinatorName } from "../../src/storage/r2-keys";
import { addFakeRules, exactTemplate, uniqueModel } from "../integration/helpers";
import { coordinatorDump, d1Dump, forms, r2Dump, runQueuedAs } from "../integration/leak-scan";
import { apiAs, createKey, createTenant, waitAs } from "../integration/tenant-helpers";
import { createTrigger, deliver } from "../integration/trigger-helpers";
import { createEndpoint, receivedBy, waitForReceived } from "../integration/webhook-helpers";
import type { InvariantOutcome } from "./report";
import { writeTestFigures } from "./scenario";

afterEach(() => vi.restoreAllMocks());

async function fakeCredentials(model: string): Promise<(string | null)[]> {
  const res = await fetch(`${env.FAKE_LLM_URL}/_admin/requests?model=${encodeURIComponent(model)}`);
  return ((await res.json()) as { requests: { credential: string | null }[] }).requests.map((r) => r.credential);
}

describe("scenario 9: canary-secret sweep", () => {
  it("no secret, in any form, in D1, R2, Durable Object storage, queue messages, logs, results, exports or webhook bodies", async () => {
    const logs: string[] = [];
    for (const m of ["log", "warn", "error", "info", "debug"] as const)
      vi.spyOn(console, m).mockImplementation((...a) => void logs.push(a.map(String).join(" ")));

    const t = await createTenant({ name: "canary sweep" });
    const minted = await createKey(t.key, { name: "ci", scopes: ["runs:read", "runs:write"] });
    const providerKey = `sk-canary-${crypto.randomUUID()}`;
    const put = await apiAs(t.key, "/v1/secrets/CANARY_PROVIDER_KEY", {
      method: "PUT",
      json: { value: providerKey, interface: "openai", origins: [env.FAKE_LLM_URL] },
    });
    expect(put.status).toBe(201);
    const answerer = uniqueModel("canary-answerer");
    const judge = uniqueModel("canary-judge");
    const scorer = uniqueModel("canary-scorer");
    // A provider that echoes the key in its error, as OpenAI's "Incorrect API key provided: sk-…" does:
    // the error reaches the result's failure, the log of the job and the exports.
    const echo = uniqueModel("canary-echo");
    // And one that refuses with a long retry-after, echoing it too: the job is deferred, and its log line quotes the error.
    const busy = uniqueModel("canary-busy");
    await addFakeRules([
      { match: { model: busy }, reply: { fault: "429", retry_after_s: 30, error_message: `Rate limit reached for key ${providerKey}` } },
      { match: { model: echo }, reply: { fault: "401", error_message: `Incorrect API key provided: ${providerKey}` } },
      { match: { model: answerer }, reply: { text: "Paris" } },
      { match: { model: judge }, reply: { json: { answer: "Paris" } } },
      { match: { model: scorer }, reply: { json: { answer: 0.9 } } },
    ]);
    const model = (id: string, model_name: string) => ({
      id,
      interface: "openai",
      model_name,
      base_url: `${env.FAKE_LLM_URL}/v1`,
      api_key_secret: "CANARY_PROVIDER_KEY",
    });
    const questions = [{ id: "q1", question: "Capital of France?", template: exactTemplate("Paris") }];

    // A webhook endpoint: every run of the tenant is delivered to the receiver, signed with its secret.
    const endpoint = await createEndpoint(t.key);

    // A queued run on the provider key (its job messages captured, to be swept).
    const { spec, sent, outcome } = await runQueuedAs(
      t.tenant_id,
      CreateRunBody.parse({
        benchmark: { name: "canary", questions },
        config: { answering_models: [model("a", answerer), model("e", echo)], parsing_models: [model("j", judge)], replicate_count: 2 },
      }),
    );
    expect(outcome.retryMessages).toEqual([]);
    expect((await waitAs(minted.key, spec.run_id)).status).toBe("completed");
    const deferredRun = await runQueuedAs(
      t.tenant_id,
      CreateRunBody.parse({
        benchmark: { name: "canary-busy", questions },
        config: { answering_models: [model("b", busy)], parsing_models: [model("j", judge)] },
      }),
    );
    expect(deferredRun.sent).toHaveLength(2); // the job, and the job again to wait out the 30 s

    // A signed inbound trigger starts a run on the same provider key.
    const bench = await apiAs(t.key, "/v1/benchmarks", { method: "POST", json: { name: "canary-trigger", questions } });
    const trigger = await createTrigger(t.key, {
      name: "deploy",
      benchmark_id: ((await bench.json()) as { benchmark_id: string }).benchmark_id,
      config: { answering_models: [{ id: "ci", interface: "manual", manual_answers: {} }], parsing_models: [model("j", judge)] },
      signing: { scheme: "standard_webhooks" },
      mapping: { manual_answers: { pointer: "/answers" } },
    });
    const body = JSON.stringify({ answers: { q1: "Paris" } });
    const at = new Date();
    const delivered = await deliver(trigger.trigger_id, body, {
      "webhook-id": "msg_canary",
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(trigger.secret).sign("msg_canary", at, body),
    });
    expect(delivered.res.status).toBe(202);
    const triggered = ((await delivered.res.json()) as { run_id: string }).run_id;
    expect((await waitAs(t.key, triggered)).status).toBe("completed");

    // A stored judge on the provider key, called through a promptfoo token.
    const stored = await apiAs(t.key, "/v1/judges", {
      method: "POST",
      json: {
        name: "canary judge",
        config: {
          type: "judge",
          prompt: "Does the answer name Paris?",
          scale: { type: "continuous", min: 0, max: 1 },
          threshold: 0.5,
          provider: model("s", scorer),
        },
      },
    });
    expect(stored.status, await stored.clone().text()).toBe(201);
    const judgeId = ((await stored.json()) as { judge_id: string }).judge_id;
    const tokenRes = await apiAs(t.key, `/v1/judges/${judgeId}/tokens`, { method: "POST", json: { name: "ci" } });
    const token = (await tokenRes.json()) as { token: string; promptfoo_url: string };
    // promptfoo's webhook assertion: the token in the URL, no Authorization header.
    const graded = await exports.default.fetch(`http://edgeval.test${token.promptfoo_url}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ output: "Paris", context: { prompt: "Capital of France?", vars: {} } }),
    });
    const gradedText = await graded.text();
    expect(graded.status, gradedText).toBe(200);

    // The provider key was used: every call reached the provider with it.
    const credentials = [...(await fakeCredentials(answerer)), ...(await fakeCredentials(judge)), ...(await fakeCredentials(scorer))];
    expect(credentials.length).toBeGreaterThanOrEqual(6);
    expect(credentials.every((c) => c === providerKey)).toBe(true);
    await waitForReceived(endpoint.name, (r) => r.length >= 2);

    const canaries: Record<string, string> = {
      provider_key: providerKey,
      api_key: t.key.split("_").at(-1)!,
      minted_api_key: minted.key.split("_").at(-1)!,
      webhook_secret: endpoint.secret.replace(/^whsec_/, ""),
      trigger_secret: trigger.secret.replace(/^whsec_/, ""),
      judge_token: token.token.split("_").at(-1)!,
    };
    const results = [spec.run_id, triggered].map((id) => apiAs(minted.key, `/v1/runs/${id}/results`).then((r) => r.text()));
    const exportsText = [spec.run_id, triggered].flatMap((id) =>
      ["ndjson", "csv"].map((format) => apiAs(t.key, `/v1/runs/${id}/export?format=${format}`).then((r) => r.text())),
    );
    const haystacks: Record<string, string> = {
      d1: await d1Dump(),
      r2: await r2Dump(),
      durable_objects: [
        await coordinatorDump(coordinatorName(spec)),
        await coordinatorDump(coordinatorName({ run_id: triggered, tenant_id: t.tenant_id })),
      ].join("\n"),
      queue_messages: JSON.stringify([...sent, ...deferredRun.sent]),
      logs: logs.join("\n"),
      results: (await Promise.all(results)).join("\n") + gradedText,
      exports: (await Promise.all(exportsText)).join("\n"),
      webhook_bodies: (await receivedBy(endpoint.name)).map((r) => r.body).join("\n"),
    };
    // The sweep looks where the secrets' traces are: the D1 rows name the secret and hold the key hashes.
    expect(haystacks.d1).toContain("CANARY_PROVIDER_KEY");
    expect(haystacks.webhook_bodies).toContain(spec.run_id);
    expect(haystacks.logs).toContain("job_deferred");

    const invariants: Record<string, InvariantOutcome> = {};
    let leaks = 0;
    for (const [where, text] of Object.entries(haystacks)) {
      const found = Object.entries(canaries).flatMap(([name, secret]) =>
        forms(secret)
          .filter((f) => text.includes(f))
          .map(() => name),
      );
      leaks += found.length;
      invariants[`no_leak_${where}`] = {
        pass: found.length === 0,
        detail: found.length
          ? `leaked: ${[...new Set(found)].join(", ")}`
          : `${Object.keys(canaries).length} canaries × 4 forms absent from ${text.length} chars`,
      };
    }
    await writeTestFigures({
      name: "s9-canary-sweep",
      scenario: "9 canary-secret sweep",
      size: `${Object.keys(canaries).length} secrets, ${Object.keys(haystacks).length} places`,
      faults_injected: Object.keys(canaries).length,
      invariants,
      figures: {
        canaries: Object.keys(canaries).length,
        forms: 4,
        places: Object.keys(haystacks).length,
        chars_swept: Object.values(haystacks).reduce((n, s) => n + s.length, 0),
        provider_calls: credentials.length,
        leaks,
      },
    });
    expect(Object.fromEntries(Object.entries(invariants).filter(([, v]) => !v.pass))).toEqual({});
  });
});
