/**
 * A disabled tenant is refused the same way by every credential it holds: its API keys, its
 * triggers' signed deliveries and its judge tokens each get 403 `tenant_disabled`, whose message
 * says the tenant is disabled and to ask the deployment's operator. Before, API keys got a 401
 * (which tells a client its key is bad, so it rotates or re-asks for one) while triggers and judge
 * tokens got a 403 `forbidden`.
 */
import { sign } from "@octokit/webhooks-methods";
import { describe, expect, it } from "vitest";
import { fakeModel, exactTemplate, uniqueModel } from "./helpers";
import { ADMIN_TOKEN, apiAs, createTenant } from "./tenant-helpers";
import { createTrigger, deliver } from "./trigger-helpers";
import { exports } from "cloudflare:workers";

async function expectDisabled(res: Response, tenantId: string, what: string) {
  expect(res.status, what).toBe(403);
  expect(res.headers.get("www-authenticate"), what).toBeNull();
  const { error } = (await res.json()) as { error: { code: string; message: string } };
  expect(error.code, what).toBe("tenant_disabled");
  expect(error.message, what).toContain(`tenant ${tenantId} is disabled`);
  expect(error.message, what).toContain("operator");
}

describe("a disabled tenant", () => {
  it("is refused 403 tenant_disabled, saying whom to ask, by its keys, its trigger hooks and its judge tokens alike", async () => {
    const t = await createTenant();
    const bench = await apiAs(t.key, "/v1/benchmarks", {
      method: "POST",
      json: { name: "one", questions: [{ id: "fr", question: "Capital of France?", template: exactTemplate("Paris") }] },
    });
    const { benchmark_id } = (await bench.json()) as { benchmark_id: string };
    const model = uniqueModel("disabled-refusals");
    const trig = await createTrigger(t.key, {
      name: "gh",
      benchmark_id,
      config: { answering_models: [{ id: "ci", interface: "manual", manual_answers: {} }], parsing_models: [fakeModel("j", model)] },
      signing: { scheme: "github" },
      mapping: { manual_answers: { pointer: "/answers" } },
    });
    const judge = await apiAs(t.key, "/v1/judges", {
      method: "POST",
      json: {
        name: "j",
        config: {
          type: "judge",
          prompt: "Is it Paris?",
          scale: { type: "continuous", min: 0, max: 1 },
          threshold: 0.5,
          provider: fakeModel("j", model),
        },
      },
    });
    const { judge_id } = (await judge.json()) as { judge_id: string };
    const token = (await (await apiAs(t.key, `/v1/judges/${judge_id}/tokens`, { method: "POST", json: {} })).json()) as {
      promptfoo_url: string;
    };

    expect((await apiAs(ADMIN_TOKEN, `/v1/admin/tenants/${t.tenant_id}`, { method: "PATCH", json: { disabled: true } })).status).toBe(200);

    await expectDisabled(await apiAs(t.key, "/v1/runs"), t.tenant_id, "API key");
    const payload = JSON.stringify({ answers: { fr: "Paris" } });
    const hook = await deliver(trig.trigger_id, payload, {
      "x-hub-signature-256": await sign(trig.secret, payload),
      "x-github-delivery": crypto.randomUUID(),
    });
    await expectDisabled(hook.res, t.tenant_id, "trigger hook");
    expect(hook.queueSends).toBe(0);
    const graded = await exports.default.fetch(`http://edgeval.test${token.promptfoo_url}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ output: "Paris", context: { prompt: "p", vars: {} } }),
    });
    await expectDisabled(graded, t.tenant_id, "judge token");
  });
});
