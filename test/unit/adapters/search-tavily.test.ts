import { describe, expect, it } from "vitest";
import { createTavilySearch } from "../../../src/adapters/search-tavily";

function fakeFetch(reply: () => Response) {
  const calls: { url: string; init: RequestInit }[] = [];
  const f = (async (url: string, init: RequestInit) => (calls.push({ url, init }), reply())) as unknown as typeof fetch;
  return { f, calls };
}

describe("Tavily-compatible search port", () => {
  it("posts the query with the key as a bearer token and formats the results", async () => {
    const { f, calls } = fakeFetch(() =>
      Response.json({ results: [{ title: "Boiling point", url: "https://x/bp", content: "100 °C at 1 atm" }] }),
    );
    const port = createTavilySearch({ apiKey: "tvly-secret", baseUrl: "https://search.example/", fetch: f });
    expect(await port.search("water boils at 100 C")).toEqual({ ok: true, text: "[1] Boiling point (https://x/bp)\n100 °C at 1 atm" });
    expect(calls[0]!.url).toBe("https://search.example/search");
    expect(JSON.parse(calls[0]!.init.body as string)).toEqual({ query: "water boils at 100 C", max_results: 3 });
    expect(new Headers(calls[0]!.init.headers).get("authorization")).toBe("Bearer tvly-secret");
  });

  it("returns failures as values, with the key scrubbed", async () => {
    const { f } = fakeFetch(() => new Response("bad key tvly-secret", { status: 401 }));
    const res = await createTavilySearch({ apiKey: "tvly-secret", fetch: f }).search("q");
    expect(res).toEqual({ ok: false, error: "search HTTP 401: bad key [redacted]" });
    const thrower = (async () => {
      throw new Error("dns failure");
    }) as unknown as typeof fetch;
    expect(await createTavilySearch({ apiKey: "k", fetch: thrower }).search("q")).toEqual({
      ok: false,
      error: "search failed: dns failure",
    });
  });

  it("says so when there are no results", async () => {
    const { f } = fakeFetch(() => Response.json({ results: [] }));
    expect(await createTavilySearch({ apiKey: "k", fetch: f }).search("q")).toEqual({ ok: true, text: "(no search results)" });
  });
});
