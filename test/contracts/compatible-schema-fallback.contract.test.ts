// OpenAI-compatible servers that refuse `response_format: json_schema` (older vLLM, some proxies):
// the adapter asks for the JSON in the prompt instead, and remembers not to send the schema again.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createModelPort } from "../../src/llm/factory";

const FAKE = env.FAKE_LLM_URL;
const Verdict = z.object({ correct: z.boolean(), score: z.number() });
const jsonSchema = {
  type: "object",
  properties: { correct: { type: "boolean" }, score: { type: "number" } },
  required: ["correct", "score"],
};
const request = {
  messages: [
    { role: "system" as const, content: "You grade." },
    { role: "user" as const, content: "Is Paris the capital?" },
  ],
  schemaName: "verdict",
  jsonSchema,
  schema: Verdict,
};

async function addRules(rules: unknown[]) {
  const res = await fetch(`${FAKE}/_admin/rules`, { method: "POST", body: JSON.stringify({ rules }) });
  expect(res.status).toBe(200);
}
async function requestsFor(model: string) {
  const res = await fetch(`${FAKE}/_admin/requests?model=${encodeURIComponent(model)}`);
  return (
    await res.json<{ requests: { kind: string; body: { response_format?: unknown; messages: { role: string; content: string }[] } }[] }>()
  ).requests;
}
const port = (model_name: string) =>
  createModelPort({ id: "c", interface: "openai_compatible", model_name, base_url: FAKE }, () => undefined, { timeoutMs: 5_000 });

describe("openai_compatible without json_schema support", () => {
  it("retries with the schema in the system message, then sends no response_format again", async () => {
    const m = `compat-noschema-${crypto.randomUUID().slice(0, 8)}`;
    await addRules([
      {
        match: { model: m, kind: "structured" },
        reply: { fault: "400", error_message: "response_format 'json_schema' is not supported by this server" },
      },
      { match: { model: m, kind: "chat" }, reply: { text: '```json\n{"correct": true, "score": 0.9}\n```' } },
    ]);
    const p = port(m);
    const first = await p.structured(request);
    expect(first).toMatchObject({ ok: true, value: { value: { correct: true, score: 0.9 } } });
    const second = await p.structured(request);
    expect(second).toMatchObject({ ok: true, value: { value: { correct: true, score: 0.9 } } });

    const log = await requestsFor(m);
    expect(log.map((r) => r.kind)).toEqual(["structured", "chat", "chat"]);
    for (const r of log.slice(1)) {
      expect(r.body.response_format).toBeUndefined();
      expect(r.body.messages[0]).toMatchObject({ role: "system" });
      expect(r.body.messages[0]!.content).toContain("You grade.");
      expect(r.body.messages[0]!.content).toContain('"required":["correct","score"]');
    }
  });

  it("another 400 is returned as bad_request, without a retry", async () => {
    const m = `compat-badmodel-${crypto.randomUUID().slice(0, 8)}`;
    await addRules([{ match: { model: m }, reply: { fault: "400", error_message: "model not found" } }]);
    const r = await port(m).structured(request);
    expect(r).toMatchObject({ ok: false, error: { kind: "bad_request" } });
    expect((await requestsFor(m)).length).toBe(1);
  });
});
