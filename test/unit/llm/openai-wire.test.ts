// The OpenAI calls without the SDK: failures map the way the SDK's error classes did (the
// contract suite runs the adapter against the fake server; these are the cases it cannot script).
import { describe, expect, it } from "vitest";
import { postOpenAI } from "../../../src/llm/openai-wire";

const KEY = "sk-wire-test-0b7e41";
const answer = (status: number, body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
  (async () => new Response(body, { status, headers })) as unknown as typeof fetch;
const wire = (f: typeof fetch, timeoutMs = 1_000) => ({ baseURL: "http://llm.test/v1/", apiKey: KEY, timeoutMs, fetch: f, now: () => 0 });

describe("postOpenAI", () => {
  it("posts JSON with the bearer key to the path under the base URL (a trailing slash allowed)", async () => {
    let seen: { url: string; init: RequestInit } | undefined;
    const f = (async (url: string, init: RequestInit) => {
      seen = { url, init };
      return new Response('{"id":"x"}', { headers: { "content-type": "application/json; charset=utf-8" } });
    }) as unknown as typeof fetch;
    expect(await postOpenAI(wire(f), "/chat/completions", { model: "m" })).toEqual({ ok: true, value: { id: "x" } });
    expect(seen?.url).toBe("http://llm.test/v1/chat/completions");
    expect((seen?.init.headers as Record<string, string> | undefined)?.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(String(seen?.init.body))).toEqual({ model: "m" });
  });

  it("words a status error as the SDK did, with the body's error code, and scrubs the key", async () => {
    const r = await postOpenAI(wire(answer(400, JSON.stringify({ error: { message: `bad key ${KEY}`, code: "x_code" } }))), "/p", {});
    expect(r).toEqual({ ok: false, error: { kind: "bad_request", status: 400, message: "400 bad key [redacted]" } });
    const noBody = await postOpenAI(wire(answer(500, "")), "/p", {});
    expect(noBody.ok ? null : noBody.error.message).toBe("500 status code (no body)");
    const text = await postOpenAI(wire(answer(502, "upstream down", { "content-type": "text/plain" })), "/p", {});
    expect(text.ok ? null : text.error).toMatchObject({ kind: "server_error", status: 502, message: "502 upstream down" });
  });

  it("a 429 with insufficient_quota is not a rate limit; a plain 429 carries its retry-after", async () => {
    const quota = await postOpenAI(
      wire(answer(429, JSON.stringify({ error: { message: "no credit", code: "insufficient_quota" } }))),
      "/p",
      {},
    );
    expect(quota.ok ? null : quota.error.kind).toBe("bad_request");
    const limited = await postOpenAI(
      wire(answer(429, JSON.stringify({ error: { message: "slow down" } }), { "content-type": "application/json", "retry-after": "3" })),
      "/p",
      {},
    );
    expect(limited.ok ? null : limited.error).toMatchObject({ kind: "rate_limit", retryAfterMs: 3_000 });
  });

  it("a 2xx whose JSON does not parse is server_error; one that is not JSON comes back as text", async () => {
    const broken = await postOpenAI(wire(answer(200, "{oops")), "/p", {});
    expect(broken.ok ? null : broken.error.kind).toBe("server_error");
    expect(await postOpenAI(wire(answer(200, "plain", { "content-type": "text/plain" })), "/p", {})).toEqual({ ok: true, value: "plain" });
  });

  it("a fetch that throws is connection naming the base URL; one that outlives the timeout is timeout", async () => {
    const thrown = (async () => {
      throw new TypeError("Network connection lost.");
    }) as unknown as typeof fetch;
    const lost = await postOpenAI(wire(thrown), "/p", {});
    expect(lost.ok ? null : lost.error).toMatchObject({
      kind: "connection",
      message: expect.stringContaining("could not connect to http://llm.test/v1/"),
    });
    const hang = ((_url: string, init: RequestInit) =>
      new Promise((_resolve, reject) =>
        init.signal?.addEventListener("abort", () => reject(new Error("aborted"))),
      )) as unknown as typeof fetch;
    const slow = await postOpenAI(wire(hang, 20), "/p", {});
    expect(slow.ok ? null : slow.error).toEqual({ kind: "timeout", message: "request timed out" });
  });
});
