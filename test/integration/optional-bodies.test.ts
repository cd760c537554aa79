/**
 * Routes whose every body field has a default take no body at all: a bare `curl -X POST` (or a
 * client that sends none) is `{}`, not a 415 asking for JSON. A body that is sent is still read as
 * any other: a non-JSON content type is a 415 and an unknown field a 400.
 */
import { describe, expect, it } from "vitest";
import { exactTemplate, fakeModel } from "./helpers";
import { apiAs, createTenant } from "./tenant-helpers";
import { createTrigger } from "./trigger-helpers";
import { createEndpoint } from "./webhook-helpers";

describe("POST routes whose body is all defaults", async () => {
  const t = await createTenant({ name: "optional bodies" });
  const endpoint = await createEndpoint(t.key);
  const judge = await apiAs(t.key, "/v1/judges", {
    method: "POST",
    json: { name: "j", config: { type: "judge", prompt: "Is {{output}} right?", provider: fakeModel("j", "fake-optional-bodies") } },
  });
  expect(judge.status).toBe(201);
  const judgeId = ((await judge.json()) as { judge_id: string }).judge_id;
  const bench = await apiAs(t.key, "/v1/benchmarks", {
    method: "POST",
    json: { name: "b", questions: [{ id: "q", question: "?", template: exactTemplate("x") }] },
  });
  const trigger = await createTrigger(t.key, {
    name: "t",
    benchmark_id: ((await bench.json()) as { benchmark_id: string }).benchmark_id,
    config: {
      answering_models: [{ id: "m", interface: "manual", manual_answers: {} }],
      parsing_models: [fakeModel("j", "fake-optional-bodies")],
    },
    signing: { scheme: "github" },
  });
  // [route, path, the status a body of {} gets]
  const routes = [
    ["/v1/keys/:id/rotate", `/v1/keys/${t.key_id}/rotate`, 201],
    ["/v1/triggers/:id/rotate-secret", `/v1/triggers/${trigger.trigger_id}/rotate-secret`, 201],
    ["/v1/judges/:id/tokens", `/v1/judges/${judgeId}/tokens`, 201],
    ["/v1/webhook-endpoints/:id/rotate-secret", `/v1/webhook-endpoints/${endpoint.endpoint_id}/rotate-secret`, 201],
    // Sends a test event (the receiver need not answer: the 200 reports what it did).
    ["/v1/webhook-endpoints/:id/test", `/v1/webhook-endpoints/${endpoint.endpoint_id}/test`, 200],
  ] as const;

  it.each(routes)("POST %s with no body is what {} is", async (_route, path, status) => {
    const bare = await apiAs(t.key, path, { method: "POST" });
    expect(bare.status, await bare.clone().text()).toBe(status);
    const empty = await apiAs(t.key, path, { method: "POST", headers: { "content-length": "0" }, body: "" });
    expect(empty.status).toBe(status);
    expect((await apiAs(t.key, path, { method: "POST", json: {} })).status).toBe(status);
  });

  it.each(routes)("POST %s with a body still reads it: text/plain is 415, an unknown field 400", async (_route, path) => {
    const plain = await apiAs(t.key, path, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" });
    expect(plain.status).toBe(415);
    const unknown = await apiAs(t.key, path, { method: "POST", json: { colour: "red" } });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { issues: { path: string }[] } }).error.issues[0]!.path).toBe("colour");
  });
});
