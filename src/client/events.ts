/**
 * A run's live events: Server-Sent Events from GET /v1/runs/:id/events (issue 20: `progress`,
 * `result`, `status`, a final `done`, heartbeats, resumable with Last-Event-ID), read with fetch.
 * A server without that route (it answers 404 "no route …") is watched by polling GET /v1/runs/:id
 * instead, and the same kinds of events are made from the snapshots (`result` events only come
 * from SSE). A stream that breaks or ends before `done` is reopened with Last-Event-ID after the
 * server's `retry:` delay, so each `result` is yielded once. The iterator ends after `done`.
 * Reconnects and polls retry as retry.ts says, one policy for both: a blip (a reset, a gateway's
 * 502/503/504, a 429) is waited out with backoff, a refusal that will not change fails at once.
 */
import { EdgevalApiError, EdgevalConnectionError, enc, type Transport } from "./http.ts";
import {
  DEFAULT_MAX_DELAY_MS,
  DEFAULT_MAX_RETRIES,
  gaveUp,
  isTransient,
  type RetryNotice,
  retryDelayMs,
  sleep,
  withRetries,
} from "./retry.ts";
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
  /**
   * The server has answered this caller already (it just took the run): a first connection that
   * gets no answer is then a blip to retry, not a sign that no server is there.
   */
  serverAnswered?: boolean;
  /** The caller's overall bound (a timeout, Ctrl-C): it ends the watch, retries and waits included. */
  signal?: AbortSignal;
  /**
   * Retries in a row before giving up, default 5: of a stream dropped before `done` or a
   * reconnect that failed, and of a failed status GET when polling, alike (retry.ts).
   */
  maxReconnects?: number;
  /** Told before each retry of a failed request (what failed, how many in a row, the wait). */
  onRetry?: (notice: RetryNotice) => void;
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
  const maxRetries = opts.maxReconnects ?? DEFAULT_MAX_RETRIES;
  let lastId: string | undefined;
  let failures = 0;
  let retryMs = 1000;
  let connected = opts.serverAnswered ?? false;
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
      // No answer at the first contact with the server means no server there: say so now. After
      // one (or after the caller's submit), it is a blip, as what may have dropped the stream. A refusal that will not change, or the
      // caller's abort, ends the watch here.
      const noServer = !connected && err instanceof EdgevalConnectionError;
      if (noServer || !isTransient(err) || opts.signal?.aborted) throw err;
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
          failures = 0;
        }
      } catch (err) {
        // The connection broke (network, or the server cut off a watcher that fell behind); fetch
        // says only "terminated": name what broke.
        if (opts.signal?.aborted) throw err;
        dropped = new Error(`GET /v1/runs/${runId}/events: the stream broke (${(err as Error).message})`, { cause: err });
      }
    }
    // The stream ended without `done`: resume after the last result seen, once the server's retry delay has passed.
    if (++failures > maxRetries) {
      const why = `the event stream of run ${runId} kept ending before its done event`;
      throw dropped ? gaveUp(failures, new Error(`${why} (${(dropped as Error).message})`)) : new Error(why);
    }
    const delayMs = retryDelayMs(dropped, failures, Math.min(retryMs, 10_000));
    // A Retry-After of days is not waited here either (retry.ts).
    if (delayMs > DEFAULT_MAX_DELAY_MS) throw dropped;
    if (dropped instanceof Error) opts.onRetry?.({ error: dropped, failures, delayMs });
    await sleep(delayMs, opts.signal);
  }
}

/**
 * Events made from snapshots: progress when done/total change, status when it changes, done at a
 * terminal status. A failed GET is retried (retry.ts) within the caller's signal.
 */
export async function* pollRun(t: Transport, runId: string, opts: WatchOptions = {}): AsyncGenerator<RunEvent> {
  let last = "";
  let lastStatus = "";
  const retry = { maxRetries: opts.maxReconnects, signal: opts.signal, onRetry: opts.onRetry };
  for (;;) {
    const run = await withRetries(() => t.json<RunStatus>("GET", `/v1/runs/${enc(runId)}`, { signal: opts.signal }), retry);
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
