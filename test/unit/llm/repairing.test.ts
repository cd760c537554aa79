import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { LlmResult, ModelPort, StructuredRequest, StructuredResponse } from "../../../src/llm/port";
import { repairingPort } from "../../../src/llm/repairing";

const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2, model: "m" };
const schema = z.object({ ok: z.boolean() });
const req: StructuredRequest<{ ok: boolean }> = {
  messages: [{ role: "user", content: "judge" }],
  schemaName: "Answer",
  jsonSchema: { type: "object" },
  schema,
  call_site: "parse_template",
};

function port(replies: LlmResult<StructuredResponse<unknown>>[]) {
  const seen: StructuredRequest<unknown>[] = [];
  const p = {
    identity: { interface: "openai", model_name: "m" },
    structured: async (r: StructuredRequest<unknown>) => {
      seen.push(r);
      return replies[Math.min(seen.length - 1, replies.length - 1)]!;
    },
  } as unknown as ModelPort;
  return { p, seen };
}

const invalid: LlmResult<StructuredResponse<unknown>> = {
  ok: false,
  error: { kind: "invalid_output", message: "no JSON in the model output", raw: "Sure! {oops" },
};

describe("structured output repair", () => {
  it("asks once more with the invalid output and the validation error, and returns the repaired value", async () => {
    const { p, seen } = port([invalid, { ok: true, value: { value: { ok: true }, raw: '{"ok":true}', usage } }]);
    const r = await repairingPort(p).structured(req);
    expect(r.ok && r.value.value).toEqual({ ok: true });
    expect(seen).toHaveLength(2);
    const repair = seen[1]!.messages;
    expect(repair.at(-2)).toEqual({ role: "assistant", content: "Sure! {oops" });
    expect(repair.at(-1)!.content).toContain("no JSON in the model output");
    expect(seen[1]!.call_site).toBe("parse_template/repair");
  });

  it("gives invalid_output, never a value, when the repair is invalid too", async () => {
    const { p, seen } = port([invalid, invalid, { ok: true, value: { value: { ok: true }, raw: "", usage } }]);
    const r = await repairingPort(p).structured(req);
    expect(seen).toHaveLength(2);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.kind).toBe("invalid_output");
      expect(r.error.message).toMatch(/after one repair retry/);
    }
  });

  it("does not repair transient errors (the retry decorator handles those)", async () => {
    const { p, seen } = port([{ ok: false, error: { kind: "server_error", message: "500" } }]);
    const r = await repairingPort(p).structured(req);
    expect(seen).toHaveLength(1);
    expect(!r.ok && r.error.kind).toBe("server_error");
  });
});
