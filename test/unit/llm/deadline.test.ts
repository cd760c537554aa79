/** deadlinePort: no call starts after the deadline, and a call in progress is not waited for past it. */
import { describe, expect, it } from "vitest";
import { deadlinePort } from "../../../src/llm/deadline";
import { ok, type ModelPort } from "../../../src/llm/port";

function countingPort(latencyMs: number) {
  let calls = 0;
  const port = {
    identity: { interface: "openai_compatible", model_name: "m" },
    chat: async () => {
      calls += 1;
      await new Promise((r) => setTimeout(r, latencyMs));
      return ok({ text: "done", usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2, model: "m" } });
    },
  } as unknown as ModelPort;
  return { port, calls: () => calls };
}

describe("deadlinePort", () => {
  it("makes no call once the deadline has passed, and says so as a deferred timeout", async () => {
    const inner = countingPort(0);
    let now = 1_000;
    const port = deadlinePort(inner.port, { at: 1_500, ms: 500, now: () => now });
    expect((await port.chat({ messages: [] })).ok).toBe(true);
    now = 1_500;
    const late = await port.chat({ messages: [] });
    expect(late).toEqual({
      ok: false,
      error: { kind: "timeout", message: "deadline_ms 500 passed: no further model calls were made", deferred: true },
    });
    expect(inner.calls()).toBe(1);
  });

  it("answers at the deadline when a call in progress would take longer", async () => {
    const inner = countingPort(10_000);
    const port = deadlinePort(inner.port, { at: Date.now() + 20, ms: 20, now: Date.now });
    const r = await port.chat({ messages: [] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.kind).toBe("timeout");
    expect(inner.calls()).toBe(1);
  });
});
