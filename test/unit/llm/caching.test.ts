import { describe, expect, it } from "vitest";
import { z } from "zod";
import { cacheKey, cachingPort, canonicalJson, type ResponseStore } from "../../../src/llm/caching";
import type { ModelPort } from "../../../src/llm/port";
import { addUsage } from "../../../src/core-shared/usage";

function memoryStore(): ResponseStore & { map: Map<string, unknown> } {
  const map = new Map<string, unknown>();
  return { map, get: async (k) => map.get(k) ?? null, put: async (k, v) => void map.set(k, JSON.parse(JSON.stringify(v))) };
}

function countingPort() {
  let calls = 0;
  const usage = { input_tokens: 3, output_tokens: 2, total_tokens: 5, model: "m" };
  const port = {
    identity: { interface: "openai", model_name: "m" },
    chat: async () => ({ ok: true, value: { text: `answer ${++calls}`, usage } }),
    structured: async () => ({ ok: true, value: { value: { n: ++calls }, raw: "{}", usage } }),
  } as unknown as ModelPort;
  return { port, calls: () => calls };
}

const scope = (job: string) => ({ model: { interface: "openai", model_name: "m" }, job, ttlSeconds: 60 });
const ask = { messages: [{ role: "user" as const, content: "q" }] };

describe("response cache decorator", () => {
  it("serves the same request at the same call site from the store, marked cached", async () => {
    const { port, calls } = countingPort();
    const store = memoryStore();
    const a = await cachingPort(port, store, scope("q1|a|1")).chat(ask);
    const b = await cachingPort(port, store, scope("q1|a|1")).chat(ask);
    expect(calls()).toBe(1);
    expect(a.ok && b.ok && b.value.text).toBe(a.ok ? a.value.text : null);
    expect(b.ok && b.value.usage.cached).toBe(true);
  });

  it("keeps replicates and repeated units apart: another job scope or call_site is another call", async () => {
    const { port, calls } = countingPort();
    const store = memoryStore();
    await cachingPort(port, store, scope("q1|a|1")).chat(ask);
    await cachingPort(port, store, scope("q1|a|2")).chat(ask);
    await cachingPort(port, store, scope("q1|a|1")).chat({ ...ask, call_site: "judge/unit1#2" });
    expect(calls()).toBe(3);
  });

  it("hashes requests canonically (key order does not matter) and never stores failures", async () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] })).toBe('{"a":[{"d":2}],"b":1}');
    const k1 = await cacheKey(scope("j"), "chat", { temperature: 0, messages: [] });
    const k2 = await cacheKey(scope("j"), "chat", { messages: [], temperature: 0 });
    expect(k1).toBe(k2);
    const failing = {
      identity: { interface: "openai", model_name: "m" },
      chat: async () => ({ ok: false, error: { kind: "server_error", message: "x" } }),
    } as unknown as ModelPort;
    const store = memoryStore();
    await cachingPort(failing, store, scope("j")).chat(ask);
    expect(store.map.size).toBe(0);
  });

  it("re-validates a structured hit against the request's schema and calls again when it no longer fits", async () => {
    const { port, calls } = countingPort();
    const store = memoryStore();
    const req = { ...ask, schemaName: "A", jsonSchema: { type: "object" }, schema: z.object({ n: z.number() }) };
    await cachingPort(port, store, scope("j")).structured(req);
    const hit = await cachingPort(port, store, scope("j")).structured(req);
    expect(calls()).toBe(1);
    expect(hit.ok && hit.value.value).toEqual({ n: 1 });
    const stricter = await cachingPort(port, store, scope("j")).structured({ ...req, schema: z.object({ n: z.number().min(5) }) });
    expect(calls()).toBe(2);
    expect(stricter.ok && stricter.value.usage.cached).toBeFalsy();
  });

  it("marks a stage of several calls as cached only when every call was a hit", () => {
    const hit = { input_tokens: 1, output_tokens: 1, total_tokens: 2, model: "m", cached: true };
    const miss = { input_tokens: 1, output_tokens: 1, total_tokens: 2, model: "m" };
    expect(addUsage(hit, hit).cached).toBe(true);
    expect(addUsage(hit, miss).cached).toBeUndefined();
  });
});
