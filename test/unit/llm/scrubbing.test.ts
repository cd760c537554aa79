/** scrubDeep / scrubbingPort: every string at any depth, errors included; short strings and unchanged values left alone. */
import { describe, expect, it } from "vitest";
import { ok, fail, type ModelPort } from "../../../src/llm/port";
import { scrubDeep, scrubbingPort } from "../../../src/llm/scrubbing";

const KEY = "sk-test-0123456789";

describe("scrubDeep", () => {
  it("replaces a secret in strings at any depth, keys of objects untouched", () => {
    const v = { text: `a ${KEY} b`, tool_calls: [{ arguments: { note: `${KEY}${KEY}` } }], n: 3, ok: true, none: null };
    expect(scrubDeep(v, [KEY])).toEqual({
      text: "a [redacted] b",
      tool_calls: [{ arguments: { note: "[redacted][redacted]" } }],
      n: 3,
      ok: true,
      none: null,
    });
  });

  it("returns the same object when there is nothing to replace", () => {
    const v = { vectors: [[0.1, 0.2]], text: "clean" };
    expect(scrubDeep(v, [KEY])).toBe(v);
  });
});

describe("scrubbingPort", () => {
  it("scrubs outputs and error messages and raw output, longest secret first; ignores secrets under 8 characters", async () => {
    const inner = {
      identity: { interface: "openai", model_name: "m" },
      chat: async () =>
        ok({ text: `${KEY}-extended and ${KEY} and short`, usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2, model: "m" } }),
      structured: async () => fail({ kind: "invalid_output", message: `bad: ${KEY}`, raw: `{"k": "${KEY}"}` }),
    } as unknown as ModelPort;
    const port = scrubbingPort(inner, [KEY, `${KEY}-extended`, "short", undefined]);
    const chat = await port.chat({ messages: [] });
    expect(chat.ok && chat.value.text).toBe("[redacted] and [redacted] and short");
    expect(await port.structured({} as never)).toEqual(
      fail({ kind: "invalid_output", message: "bad: [redacted]", raw: '{"k": "[redacted]"}' }),
    );
  });
});
