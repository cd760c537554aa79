/** guardedFetch with a scripted inner fetch: what reaches the network and what comes back. */
import { describe, expect, it } from "vitest";
import { guardedFetch } from "../../../src/outbound/guarded-fetch";
import type { OutboundPolicy } from "../../../src/outbound/url-policy";

const policy: OutboundPolicy = { local: false, privateOrigins: new Set(), providerOrigins: new Set(["https://api.openai.com"]) };

function scripted(res: () => Response) {
  const seen: { url: string; redirect: RequestInit["redirect"] }[] = [];
  const inner = (async (input: RequestInfo | URL, init?: RequestInit) => {
    seen.push({ url: String(input), redirect: init?.redirect });
    return res();
  }) as typeof fetch;
  return { seen, inner };
}

describe("guardedFetch", () => {
  it("sends nothing to a refused URL and answers 400 with the reason", async () => {
    const { seen, inner } = scripted(() => new Response("{}"));
    const res = await guardedFetch(policy, "base", inner)("https://10.0.0.1/v1/chat/completions", { method: "POST" });
    expect(seen).toEqual([]);
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toContain("10.0.0.1, a private address");
  });

  it("gives the same verdict on a URL every time it is asked (the verdict is kept per URL)", async () => {
    const { seen, inner } = scripted(() => new Response("{}", { headers: { "content-type": "application/json" } }));
    const send = guardedFetch(policy, "base", inner);
    for (let i = 0; i < 3; i++) {
      expect((await send("https://10.0.0.1/v1/chat/completions")).status).toBe(400);
      expect((await send("https://llm.example.com/v1/chat/completions")).status).toBe(200);
    }
    expect(seen.map((s) => s.url)).toEqual(Array(3).fill("https://llm.example.com/v1/chat/completions"));
  });

  it("asks for manual redirects and turns a 3xx into a refusal", async () => {
    const { seen, inner } = scripted(() => new Response(null, { status: 302, headers: { location: "http://169.254.169.254/" } }));
    const res = await guardedFetch(policy, "base", inner)("https://llm.example.com/v1/chat/completions");
    expect(seen).toEqual([{ url: "https://llm.example.com/v1/chat/completions", redirect: "manual" }]);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("does not follow");
  });

  it("keeps a non-provider's status and rate-limit headers but not its error text", async () => {
    const { inner } = scripted(
      () =>
        new Response("internal: db password hunter2", {
          status: 429,
          headers: { "retry-after": "7", "x-ratelimit-remaining-requests": "0", "x-secret": "s" },
        }),
    );
    const res = await guardedFetch(policy, "base", inner)("https://llm.example.com/v1/chat/completions");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(res.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect(res.headers.get("x-secret")).toBeNull();
    expect(await res.text()).not.toContain("hunter2");
  });

  it("passes a provider origin's error answer through unchanged", async () => {
    const { inner } = scripted(() => new Response(JSON.stringify({ error: { message: "model not found" } }), { status: 404 }));
    const res = await guardedFetch(policy, "base", inner)("https://api.openai.com/v1/chat/completions");
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("model not found");
  });

  it("refuses a query in a URL built from a base URL, but not in an endpoint (a webhook)", async () => {
    const { seen, inner } = scripted(() => new Response("{}", { headers: { "content-type": "application/json" } }));
    expect((await guardedFetch(policy, "base", inner)("https://search.example.com/v1?x=/search")).status).toBe(400);
    expect((await guardedFetch(policy, "endpoint", inner)("https://hooks.example.com/in?token=abc")).status).toBe(200);
    expect(seen.map((s) => s.url)).toEqual(["https://hooks.example.com/in?token=abc"]);
  });
});
