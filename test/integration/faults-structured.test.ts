/** Structured output on the wire: strict json_schema for OpenAI, the schema as written for compatible servers. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { OpenAIAdapter } from "../../src/llm/openai";
import { addFakeRules, uniqueModel } from "./helpers";
import { requestLog } from "./limits-support";

const jsonSchema = {
  type: "object",
  required: ["answer"],
  properties: { answer: { type: "string" }, confidence: { type: "number" } },
};
const schema = z.object({ answer: z.string(), confidence: z.number().optional() });

function adapter(iface: "openai" | "openai_compatible", model: string) {
  return new OpenAIAdapter({ interface: iface, model_name: model, apiKey: "k", baseURL: `${env.FAKE_LLM_URL}/v1`, timeoutMs: 5_000 });
}

describe("structured output that holds", () => {
  it("sends OpenAI a strict schema (all required, optional made nullable, no extra properties) and reads its nulls back as absent", async () => {
    const model = uniqueModel("strict");
    await addFakeRules([{ match: { model }, reply: { json: { answer: "Paris", confidence: null } } }]);
    const r = await adapter("openai", model).structured({
      messages: [{ role: "user", content: "q" }],
      schemaName: "Answer",
      jsonSchema,
      schema,
    });
    expect(r.ok && r.value.value).toEqual({ answer: "Paris" });
    const sent = ((await requestLog(model))[0] as unknown as { body: any }).body.response_format.json_schema;
    expect(sent.strict).toBe(true);
    expect(sent.schema).toMatchObject({
      required: ["answer", "confidence"],
      additionalProperties: false,
      properties: { confidence: { type: ["number", "null"] } },
    });
  });

  it("sends compatible servers the schema as written and extracts fenced JSON from their text", async () => {
    const model = uniqueModel("compat");
    await addFakeRules([{ match: { model }, reply: { text: 'Here you go:\n```json\n{"answer": "Rome"}\n```' } }]);
    const r = await adapter("openai_compatible", model).structured({
      messages: [{ role: "user", content: "q" }],
      schemaName: "Answer",
      jsonSchema,
      schema,
    });
    expect(r.ok && r.value.value).toEqual({ answer: "Rome" });
    const sent = ((await requestLog(model))[0] as unknown as { body: any }).body.response_format.json_schema;
    expect(sent.strict).toBeUndefined();
    expect(sent.schema).toEqual(jsonSchema);
  });
});
