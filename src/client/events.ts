/**
 * A run's live events: Server-Sent Events from GET /v1/runs/:id/events (issue 20: `progress`,
 * `result`, `status`, a final `done`, heartbeats, resumable with Last-Event-ID), read with fetch.
 * A server without that route (it answers 404 "no route …") is watched by polling GET /v1/runs/:id
 * instead, and the same kinds of events are made from the snapshots (`result` events only come
 * from SSE). A stream that breaks or ends before `done` is reopened with Last-Event-ID after the
 * server's `retry:` delay, so each `result` is yielded once. The iterator ends after `done`.
 */
import { EdgevalApiError, enc, type Transport } from "./http.ts";
import { TERMINAL_STATUSES, type RunStatus } from "./types.ts";

export type RunEvent =
  | { type: "progress"; id?: string; data: { done: number; total: number; cost_usd?: number | null; eta_s?: number | null } }
  | { type: "result"; id?: string; data: Record<string, unknown> }
  | { type: "status"; id?: string; data: { status: string } }
  | { type: "done"; id?: string; data: Record<string, unknown> }
  | { type: string; id?: string; data: unknown };

export interface WatchOptions {
  /** Polling interval when the server has no event stream; default 1 s. */
  pollMs?: number;
  /** Told once, when the client falls back to polling. */
  onFallback?: (reason: string) => void;
  signal?: AbortSignal;
  /** Reconnects of a dropped stream before giving up; default 5. */
  maxReconnects?: number;
}

/**
 * Parses an SSE byte stream into {event, id, data} records (WHATWG HTML §9.2.6, the parts servers
 * use). `onRetry` hears each `retry:` field at once (it sets the reconnection delay even in a block
 * without data, as the server's first line is).
 */
export async function* parseSse(
  body: ReadableStream<Uint8Array>,
  onRetry?: (ms: number) => void,
): AsyncGenerator<{ event: string; id?: string; data: string; retry?: number }> {
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  let id: string | undefined;
  let retry: number | undefined;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(buffer[nl] === "\r" && buffer[nl + 1] === "\n" ? nl + 2 : nl + 1);
      if (line === "") {
        if (data.length) yield { event: event || "message", id, data: data.join("\n"), retry };
        event = "";
        data = [];
        retry = undefined;
        continue;
      }
      if (line.startsWith(":")) continue; // a comment: heartbeats
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
      else if (field === "id") id = value;
      else if (field === "retry" && /^\d+$/.test(value)) {
        retry = Number(value);
        onRetry?.(retry);
      }
    }
  }
}

function parseData(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function* watchRun(t: Transport, runId: string, opts: WatchOptions = {}): AsyncGenerator<RunEvent> {
  let lastId: string | undefined;
  let reconnects = 0;
  let retryMs = 1000;
  let connected = false;
  for (;;) {
    let res: Response | undefined;
    let dropped: unknown;
    try {
      res = await t.raw(
        "GET",
        `/v1/runs/${enc(runId)}/events`,
        { accept: "text/event-stream", ...(lastId ? { "last-event-id": lastId } : {}) },
        opts.signal,
      );
    } catch (err) {
      if (err instanceof EdgevalApiError && err.routeMissing) {
        opts.onFallback?.("this server has no event stream (GET /v1/runs/:id/events answers 404); polling GET /v1/runs/:id instead");
        yield* pollRun(t, runId, opts);
        return;
      }
      // A reconnect that fails on the network or with a 5xx (a gateway's 502/503) counts as one more
      // drop: the blip that broke the stream may not be over. A first connection failing (no server
      // there), a refusal (4xx), or an abort ends the watch here.
      const refused = err instanceof EdgevalApiError && err.status < 500;
      if (!connected || refused || opts.signal?.aborted) throw err;
      dropped = err;
    }
    if (res) {
      connected = true;
      if (!res.body) throw new Error(`GET /v1/runs/${runId}/events answered no body`);
      try {
        for await (const e of parseSse(res.body, (ms) => (retryMs = ms))) {
          if (e.id !== undefined) lastId = e.id;
          const event = { type: e.event, id: e.id, data: parseData(e.data) } as RunEvent;
          yield event;
          if (event.type === "done") return;
          reconnects = 0;
        }
      } catch (err) {
        // The connection broke (network, or the server cut off a watcher that fell behind).
        if (opts.signal?.aborted) throw err;
        dropped = err;
      }
    }
    // The stream ended without `done`: resume after the last result seen, once the server's retry delay has passed.
    if (++reconnects > (opts.maxReconnects ?? 5)) {
      throw new Error(
        `the event stream of run ${runId} kept ending before its done event${dropped ? ` (${(dropped as Error).message})` : ""}`,
      );
    }
    await sleep(Math.min(retryMs, 10_000), opts.signal);
  }
}

/** Events made from snapshots: progress when done/total change, status when it changes, done at a terminal status. */
export async function* pollRun(t: Transport, runId: string, opts: WatchOptions = {}): AsyncGenerator<RunEvent> {
  let last = "";
  let lastStatus = "";
  for (;;) {
    const run = await t.json<RunStatus>("GET", `/v1/runs/${enc(runId)}`);
    const progress = `${run.progress.done}/${run.progress.total}`;
    if (progress !== last) {
      last = progress;
      yield { type: "progress", data: { done: run.progress.done, total: run.progress.total, cost_usd: run.usage.total.cost_usd } };
    }
    if (run.status !== lastStatus) {
      lastStatus = run.status;
      yield { type: "status", data: { status: run.status } };
    }
    if (TERMINAL_STATUSES.includes(run.status)) {
      yield { type: "done", data: { status: run.status } };
      return;
    }
    await sleep(opts.pollMs ?? 1000, opts.signal);
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    // A signal that aborted during the request before this sleep fires no "abort" event any more.
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
