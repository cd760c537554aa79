/**
 * Issue 24 item 2: the typed client (`edgeval/client`) against a scripted fetch: paging, errors,
 * the SSE stream (with Last-Event-ID on reconnect) and the polling fallback where the server has no
 * event stream (GET /v1/runs/:id/events answering 404 "no route", as today's server does).
 */
import { describe, expect, it } from "vitest";
import { createClient, EdgevalApiError, EdgevalConnectionError, parseSse, type RunEvent } from "edgeval/client";

type Handler = (req: Request) => Response | Promise<Response>;
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const noRoute = (req: Request) =>
  json({ error: { code: "not_found", message: `no route ${req.method} ${new URL(req.url).pathname}`, request_id: "r1" } }, 404);

function scripted(routes: Record<string, Handler>) {
  const seen: Request[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    seen.push(req);
    const url = new URL(req.url);
    const handler = routes[`${req.method} ${url.pathname}${url.search}`] ?? routes[`${req.method} ${url.pathname}`];
    return handler ? handler(req) : noRoute(req);
  }) as typeof globalThis.fetch;
  return { client: createClient({ url: "http://edgeval.test/v1/", token: "t0k", fetch }), seen };
}

const run = (status: string, done: number) => ({
  run_id: "r",
  status,
  progress: { total: 4, done },
  summary: [],
  summary_total: 0,
  usage: { total: { cost_usd: null } },
});

function sse(text: string): Response {
  const bytes = new TextEncoder().encode(text);
  // Split mid-line to exercise the parser's buffering.
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(bytes.slice(0, 7));
      c.enqueue(bytes.slice(7));
      c.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

describe("edgeval/client", () => {
  it("sends the bearer token to the origin (a trailing /v1 in the url is dropped) and follows next_cursor through every page", async () => {
    const { client, seen } = scripted({
      "GET /v1/runs/r/results?limit=2": () => json({ results: [{ n: 1 }, { n: 2 }], next_cursor: "c2" }),
      "GET /v1/runs/r/results?limit=2&cursor=c2": () => json({ results: [{ n: 3 }], next_cursor: null }),
    });
    const got: unknown[] = [];
    for await (const r of client.results.iterate("r", { limit: 2 })) got.push(r);
    expect(got).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(seen.map((r) => r.url)).toEqual([
      "http://edgeval.test/v1/runs/r/results?limit=2",
      "http://edgeval.test/v1/runs/r/results?limit=2&cursor=c2",
    ]);
    expect(seen[0]!.headers.get("authorization")).toBe("Bearer t0k");
  });

  it("pages stored judges and schedules as it pages runs: list takes limit and cursor, iterate follows next_cursor to the end", async () => {
    const { client, seen } = scripted({
      "GET /v1/judges?limit=1": () => json({ judges: [{ judge_id: "j2" }], next_cursor: "cj" }),
      "GET /v1/judges?limit=1&cursor=cj": () => json({ judges: [{ judge_id: "j1" }], next_cursor: null }),
      "GET /v1/schedules": () => json({ schedules: [{ schedule_id: "s2" }], next_cursor: "cs" }),
      "GET /v1/schedules?cursor=cs": () => json({ schedules: [{ schedule_id: "s1" }], next_cursor: null }),
      "GET /v1/schedules?limit=1&cursor=cs": () => json({ schedules: [{ schedule_id: "s1" }], next_cursor: null }),
    });
    const judges: unknown[] = [];
    for await (const j of client.storedJudges.iterate({ limit: 1 })) judges.push(j.judge_id);
    const schedules: unknown[] = [];
    for await (const s of client.schedules.iterate()) schedules.push(s.schedule_id);
    expect(judges).toEqual(["j2", "j1"]);
    expect(schedules).toEqual(["s2", "s1"]);
    expect((await client.schedules.list({ limit: 1, cursor: "cs" })).schedules).toEqual([{ schedule_id: "s1" }]);
    expect(seen.at(-1)!.url).toBe("http://edgeval.test/v1/schedules?limit=1&cursor=cs");
  });

  it("pages keys, secrets and a judge's tokens: list takes limit and cursor, iterate follows next_cursor to the end", async () => {
    const { client, seen } = scripted({
      "GET /v1/keys?limit=1": () => json({ keys: [{ key_id: "k2" }], next_cursor: "ck" }),
      "GET /v1/keys?limit=1&cursor=ck": () => json({ keys: [{ key_id: "k1" }], next_cursor: null }),
      "GET /v1/secrets": () => json({ secrets: [{ name: "B_KEY" }], next_cursor: "cs" }),
      "GET /v1/secrets?cursor=cs": () => json({ secrets: [{ name: "A_KEY" }], next_cursor: null }),
      "GET /v1/judges/j%201/tokens?limit=2": () => json({ tokens: [{ token_id: "t3" }, { token_id: "t2" }], next_cursor: "ct" }),
      "GET /v1/judges/j%201/tokens?limit=2&cursor=ct": () => json({ tokens: [{ token_id: "t1" }], next_cursor: null }),
    });
    const keys: unknown[] = [];
    for await (const k of client.keys.iterate({ limit: 1 })) keys.push(k.key_id);
    const secrets: unknown[] = [];
    for await (const s of client.secrets.iterate()) secrets.push(s.name);
    const tokens: unknown[] = [];
    for await (const t of client.storedJudges.iterateTokens("j 1", { limit: 2 })) tokens.push(t.token_id);
    expect([keys, secrets, tokens]).toEqual([
      ["k2", "k1"],
      ["B_KEY", "A_KEY"],
      ["t3", "t2", "t1"],
    ]);
    expect((await client.secrets.list({ cursor: "cs" })).secrets).toEqual([{ name: "A_KEY" }]);
    expect(seen.at(-1)!.url).toBe("http://edgeval.test/v1/secrets?cursor=cs");
  });

  it("turns an error answer into EdgevalApiError with its code, field issues and request id", async () => {
    const { client } = scripted({
      "POST /v1/runs": () =>
        json(
          {
            error: {
              code: "invalid_body",
              message: "config: required",
              issues: [
                { path: "config", message: "required" },
                { path: "x", message: "y" },
              ],
              request_id: "q",
            },
          },
          400,
        ),
    });
    const err = await client.runs.create({} as never).catch((e) => e);
    expect(err).toBeInstanceOf(EdgevalApiError);
    expect(err).toMatchObject({ status: 400, code: "invalid_body", requestId: "q", issues: [{ path: "config" }, { path: "x" }] });
    expect(err.message).toContain("POST /v1/runs → 400 invalid_body: config: required");
    expect(err.routeMissing).toBe(false);
  });

  it("says an answer that is not edgeval's error (a proxy's page, another server) is not, and where it came from", async () => {
    const page =
      "<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body><h1>502 Bad Gateway</h1>\n<hr>nginx</body>\n</html>\n";
    const { client } = scripted({
      "POST /v1/runs": () => new Response(page, { status: 502, headers: { "content-type": "text/html" } }),
      "GET /v1/runs/r": () => new Response("no route for GET /v1/runs/r", { status: 404 }),
      // An OpenAI-style server (the fake LLM's port, say) answers JSON errors without edgeval's code.
      "POST /v1/runs/r/cancel": () => json({ error: { message: "no route for POST /v1/runs/r/cancel", type: "not_found" } }, 404),
    });
    const html = await client.runs.create({} as never).catch((e) => e);
    expect(html).toBeInstanceOf(EdgevalApiError);
    expect(html.message).toBe(
      'POST /v1/runs → 502 error: not an edgeval answer (text/html: "502 Bad Gateway"); is http://edgeval.test the edgeval server (--url, EDGEVAL_URL), with no proxy failing in between?',
    );
    const text = await client.runs.get("r").catch((e) => e);
    expect(text.message).toBe(
      'GET /v1/runs/r → 404 error: not an edgeval answer (text/plain: "no route for GET /v1/runs/r"); is http://edgeval.test the edgeval server (--url, EDGEVAL_URL), with no proxy failing in between?',
    );
    const openai = await client.runs.cancel("r").catch((e) => e);
    expect(openai.message).toContain("POST /v1/runs/r/cancel → 404 error: not an edgeval answer (application/json: ");
    expect(openai.routeMissing).toBe(false);
  });

  it("says a success answer that is not JSON (a sign-in page, a web server at the url) is not edgeval's", async () => {
    const { client } = scripted({
      "GET /v1/keys": () =>
        new Response("<!doctype html><html><head><title>Sign in</title></head><body>…</body></html>", {
          headers: { "content-type": "text/html" },
        }),
    });
    const err = await client.keys.list().catch((e) => e);
    expect(err.message).toBe(
      'GET /v1/keys → 200: not an edgeval answer (text/html: "Sign in"); is http://edgeval.test the edgeval server (--url, EDGEVAL_URL), with no proxy failing in between?',
    );
  });

  it("says a url without http:// or https:// is not a server's address, before any request", async () => {
    for (const url of ["localhost:8787", "127.0.0.1:8787", "edgeval.example.com"]) {
      let asked = 0;
      const fetch = (async () => (asked++, json({}))) as typeof globalThis.fetch;
      const err = await createClient({ url, token: "t", fetch })
        .runs.get("r")
        .catch((e) => e);
      expect(err.message).toBe(`${url} is not an http:// or https:// URL: give the server as e.g. http://${url} (--url, EDGEVAL_URL)`);
      expect(asked).toBe(0);
    }
  });

  it("refuses a url with a user name and password without printing the password", async () => {
    let asked = 0;
    const fetch = (async () => (asked++, json({}))) as typeof globalThis.fetch;
    const err = await createClient({ url: "http://admin:s3cret@edgeval.test", token: "t", fetch })
      .runs.get("r")
      .catch((e) => e);
    expect(err.message).toBe(
      "http://***:***@edgeval.test holds a user name and password, which fetch refuses to send: give the server as http://edgeval.test and the API key as the token (--token, EDGEVAL_TOKEN)",
    );
    expect(err.message).not.toContain("s3cret");
    expect(asked).toBe(0);
  });

  it("names the reason fetch gives for refusing an address, e.g. a port fetch blocks", async () => {
    // Node's fetch refuses the ports the Fetch standard blocks (6000, 10080, …) as "fetch failed", cause "bad port".
    const err = await createClient({ url: "http://127.0.0.1:6000", token: "t" })
      .runs.get("r")
      .catch((e) => e);
    expect(err.message).toBe(
      "GET http://127.0.0.1:6000/v1/runs/r: fetch failed (bad port) — is the server running at http://127.0.0.1:6000? (set --url or EDGEVAL_URL)",
    );
  });

  it("says a request that got no answer within timeoutMs timed out, not that no server may be there", async () => {
    const hung = (async (_input: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)),
      )) as typeof globalThis.fetch;
    const err = await createClient({ url: "http://edgeval.test", token: "t", fetch: hung, timeoutMs: 50 })
      .runs.get("r")
      .catch((e) => e);
    expect(err.message).toBe(
      "GET http://edgeval.test/v1/runs/r: no answer within 0.05 s (the client's timeoutMs) — is the server at http://edgeval.test overloaded or stuck?",
    );
    expect(err).toBeInstanceOf(EdgevalConnectionError);
  });

  it("streams an export for longer than timeoutMs: the timeout bounds the wait for the answer, not the file's download", async () => {
    // As undici does, the body errors once the request's signal aborts.
    const slowFile = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      let line = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(c) {
          await new Promise((r) => setTimeout(r, 40));
          if (init?.signal?.aborted) return c.error(init.signal.reason);
          if (++line <= 5) c.enqueue(new TextEncoder().encode(`{"n":${line}}\n`));
          else c.close();
        },
      });
      return new Response(body, { headers: { "content-type": "application/x-ndjson" } });
    }) as typeof globalThis.fetch;
    const res = await createClient({ url: "http://edgeval.test", token: "t", fetch: slowFile, timeoutMs: 100 }).exports.stream("r", {
      format: "ndjson",
    });
    expect((await res.text()).split("\n").filter(Boolean)).toHaveLength(5);
  });

  it("knows a missing route (a feature the server lacks) from a missing resource", async () => {
    const { client } = scripted({
      "GET /v1/runs/gone": () => json({ error: { code: "not_found", message: "no run gone; list runs with GET /v1/runs" } }, 404),
    });
    expect((await client.runs.cancel("r").catch((e) => e)).routeMissing).toBe(true);
    expect((await client.runs.get("gone").catch((e) => e)).routeMissing).toBe(false);
  });

  it("reads the SSE stream, and resumes a dropped stream with Last-Event-ID until done", async () => {
    let calls = 0;
    const { client, seen } = scripted({
      "GET /v1/runs/r/events": () =>
        ++calls === 1
          ? sse(
              ': heartbeat\n\nid: 1\nevent: progress\ndata: {"done":1,"total":4}\n\nid: 2\nevent: result\ndata: {"result_id":"a",\ndata: "verdict":"pass"}\n\n',
            )
          : sse(
              'id: 3\nevent: progress\ndata: {"done":4,"total":4}\n\nid: 4\nevent: done\ndata: {"status":"completed"}\n\nevent: progress\ndata: {}\n\n',
            ),
    });
    const events: RunEvent[] = [];
    for await (const e of client.runs.events("r")) events.push(e);
    expect(events.map((e) => [e.type, e.id])).toEqual([
      ["progress", "1"],
      ["result", "2"],
      ["progress", "3"],
      ["done", "4"],
    ]);
    expect(events[1]!.data).toEqual({ result_id: "a", verdict: "pass" });
    expect(seen[0]!.headers.get("accept")).toBe("text/event-stream");
    expect(seen[1]!.headers.get("last-event-id")).toBe("2");
  });

  it("resumes with Last-Event-ID after the server's retry delay when the connection breaks mid-stream", async () => {
    let calls = 0;
    const broken = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(new TextEncoder().encode('retry: 5\n\nid: 7\nevent: result\ndata: {"result_id":"a"}\n\n'));
          },
          // The first chunk is read; the connection breaks on the next read.
          pull(c) {
            c.error(new TypeError("terminated"));
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    const { client, seen } = scripted({
      "GET /v1/runs/r/events": () =>
        ++calls === 1 ? broken() : sse('id: 8\nevent: result\ndata: {"result_id":"b"}\n\nevent: done\ndata: {"status":"completed"}\n\n'),
    });
    const events: RunEvent[] = [];
    const retries: string[] = [];
    for await (const e of client.runs.events("r", { onRetry: (n) => retries.push(`${n.delayMs} ${n.error.message}`) })) events.push(e);
    expect(events.map((e) => [e.type, e.id])).toEqual([
      ["result", "7"],
      ["result", "8"],
      ["done", "8"],
    ]);
    expect(seen[1]!.headers.get("last-event-id")).toBe("7");
    // fetch says only "terminated": the notice names the stream that broke.
    expect(retries).toEqual(["5 GET /v1/runs/r/events: the stream broke (terminated)"]);
  });

  it("keeps reconnecting when a reconnect itself fails on the network or with a 5xx (the blip that dropped the stream)", async () => {
    let calls = 0;
    const { client } = scripted({
      "GET /v1/runs/r/events": () => {
        calls++;
        if (calls === 1) return sse('retry: 1\n\nid: 7\nevent: result\ndata: {"result_id":"a"}\n\n'); // ends before done
        if (calls === 2) throw new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
        if (calls === 3) return new Response("<html><title>503 Service Unavailable</title></html>", { status: 503 });
        return sse('id: 8\nevent: result\ndata: {"result_id":"b"}\n\nevent: done\ndata: {"status":"completed"}\n\n');
      },
    });
    const events: RunEvent[] = [];
    for await (const e of client.runs.events("r")) events.push(e);
    expect(events.map((e) => [e.type, e.id])).toEqual([
      ["result", "7"],
      ["result", "8"],
      ["done", "8"],
    ]);
  });

  it("still fails at once when the first connection fails: the server is not there", async () => {
    let calls = 0;
    const { client } = scripted({
      "GET /v1/runs/r/events": () => {
        calls++;
        throw new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
      },
    });
    const err = await (async () => {
      for await (const _ of client.runs.events("r"));
    })().catch((e) => e);
    expect(String(err)).toContain("ECONNREFUSED");
    expect(calls).toBe(1);
  });

  it("gives up after maxReconnects streams that end before done, naming why", async () => {
    const { client } = scripted({ "GET /v1/runs/r/events": () => sse("retry: 1\n\n") });
    const err = await (async () => {
      for await (const _ of client.runs.events("r", { maxReconnects: 2 }));
    })().catch((e) => e);
    expect(String(err)).toContain("kept ending before its done event");
  });

  it("falls back to polling GET /v1/runs/:id when the server has no event stream, and says so once", async () => {
    const snapshots = [run("queued", 0), run("running", 2), run("running", 2), run("completed", 4)];
    const { client } = scripted({ "GET /v1/runs/r": () => json(snapshots.shift() ?? run("completed", 4)) });
    const fallbacks: string[] = [];
    const events: RunEvent[] = [];
    for await (const e of client.runs.events("r", { pollMs: 1, onFallback: (m) => fallbacks.push(m) })) events.push(e);
    expect(fallbacks).toHaveLength(1);
    expect(fallbacks[0]).toContain("polling");
    expect(events.map((e) => `${e.type}:${JSON.stringify(e.data)}`)).toEqual([
      'progress:{"done":0,"total":4,"cost_usd":null}',
      'status:{"status":"queued"}',
      'progress:{"done":2,"total":4,"cost_usd":null}',
      'status:{"status":"running"}',
      'progress:{"done":4,"total":4,"cost_usd":null}',
      'status:{"status":"completed"}',
      'done:{"status":"completed"}',
    ]);
  });

  it("stops polling when the signal aborts while a GET is in flight (a --timeout or Ctrl-C then)", async () => {
    const stop = new AbortController();
    let gets = 0;
    const { client } = scripted({
      "GET /v1/runs/r": () => {
        if (++gets === 2) stop.abort(new Error("stopped"));
        return json(run("running", 1));
      },
    });
    const err = await client.runs.wait("r", { pollMs: 1, signal: stop.signal }).catch((e) => e);
    expect(String(err)).toContain("stopped");
    expect(gets).toBe(2);
  });

  it("parses CRLF line ends, multi-line data and comments as the SSE spec says", async () => {
    const out = [];
    for await (const e of parseSse(sse("event: a\r\ndata: x\r\ndata: y\r\n\r\n: c\r\n\r\ndata: z\n\n").body!)) out.push(e);
    expect(out).toEqual([
      { event: "a", id: undefined, data: "x\ny", retry: undefined },
      { event: "message", id: undefined, data: "z", retry: undefined },
    ]);
  });
});
