/**
 * The client's retry policy (src/client/retry.ts) on every wait: a run watched by polling (a server
 * without an event stream), the event stream's reconnects, runs.wait's final GET and an export's
 * polls outlast a blip (a reset, a gateway's 502/503/504, a 429 with Retry-After) and still fail
 * at once on a refusal that will not change (401, 403, 404).
 */
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClient, type RetryNotice } from "edgeval/client";

/** Made afresh on each request: a Response's body reads once (and a clone's tee would not cancel alone). */
type Answer = () => Response | Error;
const response = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
const json =
  (body: unknown, status = 200, headers: Record<string, string> = {}): Answer =>
  () =>
    response(body, status, headers);
const edgevalError = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  json({ error: { code, message } }, status, headers);
const gateway =
  (status: number, headers: Record<string, string> = {}): Answer =>
  () =>
    new Response(`<html><title>${status} from the gateway</title></html>`, {
      status,
      headers: { "content-type": "text/html", ...headers },
    });
const stream =
  (text: string): Answer =>
  () =>
    new Response(text, { headers: { "content-type": "text/event-stream" } });
const reset: Answer = () => new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
const run = (status: string, done: number) => ({
  run_id: "r",
  status,
  progress: { total: 2, done },
  summary: [],
  summary_total: 0,
  usage: { total: { cost_usd: null } },
});

/** A server answering each path from its queue in turn (the last answer repeats); no event stream unless given. */
function server(queues: Record<string, Answer[]>) {
  const asked: string[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = new URL(new Request(input, init).url).pathname;
    asked.push(path);
    const queue = queues[path];
    if (!queue) return response({ error: { code: "not_found", message: `no route GET ${path}` } }, 404);
    const answer = (queue.length > 1 ? queue.shift()! : queue[0]!)();
    if (answer instanceof Error) throw answer;
    return answer;
  }) as typeof globalThis.fetch;
  const notices: RetryNotice[] = [];
  return {
    client: createClient({ url: "http://edgeval.test", token: "t", fetch }),
    asked,
    notices,
    onRetry: (n: RetryNotice) => notices.push(n),
  };
}

const now = { "retry-after": "0" };

afterEach(() => void vi.useRealTimers());

/**
 * Settles `p` under fake timers: fires the next timer, then lets the fetch's body be read (which
 * takes a real turn of the event loop) before the next one is due; the delays are read from the notices.
 */
async function settle<T>(p: Promise<T>): Promise<T> {
  let settled = false;
  void p.finally(() => (settled = true)).catch(() => {});
  while (!settled) {
    await vi.advanceTimersToNextTimerAsync();
    await new Promise((r) => setImmediate(r));
  }
  return p;
}

describe("polling a run (no event stream)", () => {
  it("waits out a reset, a gateway's 502/503/504 and a 429, and resolves with the finished run", async () => {
    const s = server({
      "/v1/runs/r": [
        json(run("running", 1)),
        reset,
        gateway(502, now),
        gateway(503, now),
        gateway(504, now),
        edgevalError(429, "rate_limited", "requests_per_minute quota spent", now),
        json(run("completed", 2)),
      ],
    });
    const final = await s.client.runs.wait("r", { pollMs: 1, onRetry: s.onRetry });
    expect(final.status).toBe("completed");
    expect(s.notices.map((n) => n.failures)).toEqual([1, 2, 3, 4, 5]);
    expect(s.notices[0]!.error.message).toContain("ECONNRESET");
  });

  it("backs off doubling from 1 s for each failure in a row, but waits a Retry-After the server sends", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const s = server({
      "/v1/runs/r": [
        gateway(502),
        gateway(502),
        edgevalError(429, "rate_limited", "quota spent", { "retry-after": "7" }),
        gateway(502),
        json(run("completed", 2)),
      ],
    });
    const final = await settle(s.client.runs.wait("r", { pollMs: 1, onRetry: s.onRetry }));
    expect(final.status).toBe("completed");
    expect(s.notices.map((n) => n.delayMs)).toEqual([1_000, 2_000, 7_000, 8_000]);
  });

  it.each([
    [401, "unauthorized", "the token is not valid"],
    [403, "forbidden", "this key lacks runs:read"],
    [404, "not_found", "no run r; list runs with GET /v1/runs"],
  ])("fails at once on a %i, which will not change", async (status, code, message) => {
    const s = server({ "/v1/runs/r": [edgevalError(status, code, message)] });
    const err = await s.client.runs.wait("r", { pollMs: 1, onRetry: s.onRetry }).catch((e) => e);
    expect(err).toMatchObject({ status, code });
    expect(s.asked.filter((p) => p === "/v1/runs/r")).toHaveLength(1);
    expect(s.notices).toEqual([]);
  });

  it("gives up at the failure after maxReconnects retries in a row, naming the count and the last error", async () => {
    const s = server({ "/v1/runs/r": [gateway(503, now)] });
    const err = await s.client.runs.wait("r", { pollMs: 1, maxReconnects: 3 }).catch((e) => e);
    expect(err.message).toContain("GET /v1/runs/r → 503");
    expect(err.message).toContain("(failed 4 times in a row; gave up)");
    expect(s.asked.filter((p) => p === "/v1/runs/r")).toHaveLength(4);
  });

  it("counts failures in a row only: each answered poll starts the count again", async () => {
    const blip = [gateway(503, now), gateway(503, now), json(run("running", 1))];
    const s = server({ "/v1/runs/r": [...blip, ...blip, ...blip, json(run("completed", 2))] });
    expect((await s.client.runs.wait("r", { pollMs: 1, maxReconnects: 3 })).status).toBe("completed");
  });

  it("leaves no abort listener on the caller's signal per poll: an hour of 1 s polls would leave 3600", async () => {
    const polls = [...Array.from({ length: 15 }, () => json(run("running", 1))), json(run("completed", 2))];
    const s = server({ "/v1/runs/r": polls });
    const signal = new AbortController().signal;
    await s.client.runs.wait("r", { pollMs: 1, signal });
    expect(getEventListeners(signal, "abort").length).toBeLessThan(3);
  });

  it("stops at once when the caller's signal aborts during a retry's wait", async () => {
    const stop = new AbortController();
    const s = server({ "/v1/runs/r": [gateway(503, { "retry-after": "120" })] });
    const waiting = s.client.runs.wait("r", { signal: stop.signal, onRetry: () => stop.abort(new Error("--timeout passed")) });
    expect(String(await waiting.catch((e) => e))).toContain("--timeout passed");
  });
});

describe("the other waits share the policy", () => {
  it("runs.wait retries its final GET after the stream's done event", async () => {
    const done = stream('event: done\ndata: {"status":"completed"}\n\n');
    const s = server({ "/v1/runs/r/events": [done], "/v1/runs/r": [gateway(502, now), json(run("completed", 2))] });
    expect((await s.client.runs.wait("r", { onRetry: s.onRetry })).status).toBe("completed");
    expect(s.notices).toHaveLength(1);
  });

  it("a stream reconnect refused with 429 waits the server's Retry-After, not the stream's retry: delay", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const first = stream('retry: 5\n\nid: 1\nevent: progress\ndata: {"done":1,"total":2}\n\n');
    const last = stream('id: 2\nevent: done\ndata: {"status":"completed"}\n\n');
    const s = server({
      "/v1/runs/r/events": [first, edgevalError(429, "rate_limited", "quota spent", { "retry-after": "9" }), last],
      "/v1/runs/r": [json(run("completed", 2))],
    });
    const final = await settle(s.client.runs.wait("r", { onRetry: s.onRetry }));
    expect(final.status).toBe("completed");
    expect(s.notices.map((n) => n.delayMs)).toEqual([9_000]);
  });

  it("a stream reconnect whose Retry-After is days (beyond 5 minutes) is not waited: the refusal ends the watch", async () => {
    const first = stream('retry: 1\n\nid: 1\nevent: progress\ndata: {"done":1,"total":2}\n\n');
    const s = server({
      "/v1/runs/r/events": [first, edgevalError(503, "unavailable", "down for maintenance", { "retry-after": "200000" })],
    });
    const err = await s.client.runs.wait("r", { onRetry: s.onRetry }).catch((e) => e);
    expect(err).toMatchObject({ status: 503, retryAfterMs: 200_000_000 });
    expect(s.notices).toEqual([]);
  });

  it("with serverAnswered (the caller just submitted), a first connection with no answer is a blip, retried", async () => {
    const done = stream('event: done\ndata: {"status":"completed"}\n\n');
    const s = server({ "/v1/runs/r/events": [reset, done], "/v1/runs/r": [json(run("completed", 2))] });
    expect((await s.client.runs.wait("r", { serverAnswered: true, onRetry: s.onRetry })).status).toBe("completed");
    expect(s.notices.map((n) => n.error.message)).toEqual([expect.stringContaining("ECONNRESET")]);
    // Without it, no answer at first contact means no server there: it fails at once.
    const t = server({ "/v1/runs/r/events": [reset, done] });
    expect(String(await t.client.runs.wait("r").catch((e) => e))).toContain("ECONNRESET");
    expect(t.asked).toHaveLength(1);
  });

  it("a stream reconnect refused with 401 (the key was revoked) fails at once", async () => {
    const first = stream('retry: 1\n\nid: 1\nevent: progress\ndata: {"done":1,"total":2}\n\n');
    const s = server({ "/v1/runs/r/events": [first, edgevalError(401, "unauthorized", "the token is not valid")] });
    const err = await s.client.runs.wait("r").catch((e) => e);
    expect(err).toMatchObject({ status: 401 });
    expect(s.asked.filter((p) => p === "/v1/runs/r/events")).toHaveLength(2);
  });

  it("every pair of a run beyond the 100 it embeds: each summary page's GET outlasts a 502", async () => {
    const pair = (m: string) => ({ answering_model: m, parsing_model: "j" });
    const s = server({
      "/v1/runs/r/summary": [
        gateway(502, now),
        json({ summary: [pair("a")], next_cursor: "c" }),
        gateway(502, now),
        json({ summary: [pair("b")], next_cursor: null }),
      ],
    });
    const pairs = await s.client.runs.allPairs("r", { onRetry: s.onRetry });
    expect(pairs.map((p) => p.answering_model)).toEqual(["a", "b"]);
    expect(s.notices).toHaveLength(2);
  });

  it("an export's file (csv, ndjson) outlasts a 502 before it begins", async () => {
    const file: Answer = () => new Response('{"n":1}\n', { headers: { "content-type": "application/x-ndjson" } });
    const s = server({ "/v1/runs/r/export": [gateway(502, now), file] });
    const res = await s.client.exports.file("r", { format: "ndjson" }, { onRetry: s.onRetry });
    expect(await res.text()).toBe('{"n":1}\n');
    expect(s.notices).toHaveLength(1);
  });

  it("an export's polls and its download outlast a 503 and a 504", async () => {
    const view = (status: string) => ({
      export_id: "e",
      run_id: "r",
      format: "karenina",
      status,
      results_done: 0,
      results_total: 0,
      error: null,
    });
    const file: Answer = () => new Response("{}", { headers: { "content-type": "application/json" } });
    const s = server({
      "/v1/runs/r/exports/e": [json(view("building")), gateway(503, now), json(view("ready"))],
      "/v1/runs/r/exports/e/download": [gateway(504, now), file],
    });
    expect((await s.client.exports.wait("r", "e", { pollMs: 1, onRetry: s.onRetry })).status).toBe("ready");
    expect(await (await s.client.exports.download("r", "e", { onRetry: s.onRetry })).text()).toBe("{}");
    expect(s.notices).toHaveLength(2);
  });
});

describe("submitting a run (a POST) is retried only where a re-send cannot make a second run", () => {
  /** A server recording each POST /v1/runs's Idempotency-Key and answering from its queue. */
  function posts(queue: Answer[]) {
    const keys: (string | null)[] = [];
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      keys.push(req.headers.get("idempotency-key"));
      const answer = (queue.length > 1 ? queue.shift()! : queue[0]!)();
      if (answer instanceof Error) throw answer;
      return answer;
    }) as typeof globalThis.fetch;
    return { client: createClient({ url: "http://edgeval.test", token: "t", fetch }), keys };
  }
  const taken = json({ run_id: "r1", status_url: "/v1/runs/r1" }, 202);
  const body = { benchmark_id: "b", config: {} } as never;

  it("a 429 (a quota: nothing was taken) is sent again after its Retry-After", async () => {
    const s = posts([edgevalError(429, "quota_exceeded", "this tenant has 5 runs queued or running, its limit", now), taken]);
    expect((await s.client.runs.create(body)).run_id).toBe("r1");
    expect(s.keys).toHaveLength(2);
  });

  it("without an Idempotency-Key a blip is not retried: the first POST may have taken the run", async () => {
    const s = posts([gateway(503, now), taken]);
    expect(await s.client.runs.create(body).catch((e) => e.status)).toBe(503);
    expect(s.keys).toHaveLength(1);
  });

  it("with an Idempotency-Key a blip and the server's 409 idempotency_in_progress are retried, with the same key", async () => {
    const s = posts([gateway(502, now), reset, edgevalError(409, "idempotency_in_progress", "the first is starting", now), taken]);
    expect((await s.client.runs.create(body, { idempotencyKey: "ci-7" })).run_id).toBe("r1");
    expect(s.keys).toEqual(["ci-7", "ci-7", "ci-7", "ci-7"]);
  }, 10_000);

  it("a Retry-After longer than maxDelayMs (a month's spent quota) is not waited: the refusal is thrown at once", async () => {
    const spent = edgevalError(429, "quota_exceeded", "this tenant has spent its 10 USD for 2026-12", { "retry-after": "2000000" });
    const s = posts([spent, taken]);
    const err = await s.client.runs.create(body, { maxDelayMs: 60_000 }).catch((e) => e);
    expect(err).toMatchObject({ status: 429, code: "quota_exceeded" });
    expect(s.keys).toHaveLength(1);
  });
});
