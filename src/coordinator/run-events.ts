/**
 * GET /v1/runs/:id/events: the run's live events as Server-Sent Events, served by its coordinator
 * to any number of watchers. The frames' shapes are src/schemas/run-events.ts.
 *
 * - `result` {result_id, question_id, answering_model, parsing_model, verdict}, one per recorded
 *   result, its `id` the result's sequence number in the coordinator (the rowid of its row: ids
 *   only grow). A watcher reconnecting with `Last-Event-ID: n` gets every result after n, then the
 *   live ones: each result exactly once across its connections.
 * - `progress` {done, total, cost_usd (null once an unpriced call is recorded), eta_s}: on connect, then at most every PROGRESS_EVERY_MS
 *   while results arrive, and at the end. `eta_s` from the rate of the last RATE_WINDOW_MS (null
 *   until there is one).
 * - `status` {status}: on connect and when it changes (running, cancelled, the end).
 * - `done` {status, finished_at}: last; the stream then closes. A finished run answers its
 *   missing results, progress, status and done at once.
 * - `: heartbeat` comments every `heartbeatMs`, so proxies keep an idle stream open.
 *
 * Only `result` events carry an id, so Last-Event-ID is always the last result seen.
 *
 * Memory per watcher is bounded. Missed results are replayed from SQL a page at a time as the
 * watcher reads (the stream's `pull`), not queued all at once; the last page, progress, status and
 * the watcher's registration for live events are one synchronous step, so no result falls between
 * them. Live events are pushed; a watcher whose unread queue passes `maxQueuedBytes` (it stopped
 * reading) is cut off with an error and its queue dropped: it reconnects with Last-Event-ID and
 * the replay gives it what it missed.
 */
import type { RunStatus } from "../storage/runs-repo";
import type { RunProgressEventData, RunResultEventData } from "../schemas/run-events";

export const PROGRESS_EVERY_MS = 1_000;
export const RATE_WINDOW_MS = 60_000;
export const DEFAULT_HEARTBEAT_MS = 15_000;
/** Replay reads the results after Last-Event-ID in pages of this many rows. */
export const REPLAY_PAGE = 200;
/** The stream's high-water mark: replay pulls the next page when less than this is unread. */
const REPLAY_HIGH_WATER_BYTES = 64 * 1024;
/** A live watcher with more than this unread is cut off (default; a test passes a smaller one). */
export const MAX_QUEUED_BYTES = 1024 * 1024;

export type ResultEventRow = {
  seq: number;
  result_id: string;
  question_id: string | null;
  answering_id: string;
  parsing_id: string;
  verdict: RunResultEventData["verdict"];
};

export interface Progress {
  done: number;
  total: number;
  /** Null once a call of a model without a price was recorded. */
  cost_usd: number | null;
}

/** What the hub reads from its coordinator, synchronously (SQL and in-memory state only). */
export interface RunEventsHost {
  resultsAfter(seq: number, limit: number): ResultEventRow[];
  progress(): Progress;
  status(): RunStatus;
  finishedAt(): string | null;
  now(): number;
}

export interface RunEventsOptions {
  /** Read when the first watcher arrives (a field of the coordinator, so tests can shorten it). */
  heartbeatMs: () => number;
  maxQueuedBytes?: number;
}

const encoder = new TextEncoder();

export function sseFrame(event: string, data: unknown, id?: number): string {
  return `${id === undefined ? "" : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function resultFrame(r: ResultEventRow): string {
  const data: RunResultEventData = {
    result_id: r.result_id,
    question_id: r.question_id,
    answering_model: r.answering_id,
    parsing_model: r.parsing_id,
    verdict: r.verdict,
  };
  return sseFrame("result", data, r.seq);
}

/** `Last-Event-ID` → the sequence to resume after (0: from the start); null when it is not one of ours. */
export function parseLastEventId(header: string | null | undefined): number | null {
  if (header === null || header === undefined || header === "") return 0;
  return /^\d{1,15}$/.test(header) ? Number(header) : null;
}

type Watcher = ReadableStreamDefaultController<Uint8Array>;

export class RunEvents {
  private readonly watchers = new Set<Watcher>();
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private progressTimer: ReturnType<typeof setTimeout> | undefined;
  private lastProgressAt = 0;
  private lastStatus: RunStatus | undefined;
  /** (time, done) samples for the ETA, oldest first. */
  private samples: { at: number; done: number }[] = [];
  private readonly maxQueuedBytes: number;

  constructor(
    private readonly host: RunEventsHost,
    private readonly opts: RunEventsOptions,
  ) {
    this.maxQueuedBytes = opts.maxQueuedBytes ?? MAX_QUEUED_BYTES;
  }

  /** Watchers registered for live events (not those still replaying). */
  get watching(): number {
    return this.watchers.size;
  }

  /** A new watcher's stream: what it missed after `afterSeq` (paced by its reading), progress and status, then live events. */
  open(afterSeq: number): ReadableStream<Uint8Array> {
    let after = afterSeq;
    let live = false;
    let self: Watcher | undefined;
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          self = controller;
          controller.enqueue(encoder.encode("retry: 2000\n\n"));
        },
        pull: (controller) => {
          if (live) return;
          const send = (text: string) => controller.enqueue(encoder.encode(text));
          const rows = this.host.resultsAfter(after, REPLAY_PAGE);
          for (const r of rows) send(resultFrame(r));
          if (rows.length === REPLAY_PAGE) {
            after = rows[rows.length - 1]!.seq;
            return;
          }
          // Caught up. From here to the registration nothing awaits, so no result is recorded in between.
          live = true;
          send(sseFrame("progress", this.progressData()));
          const status = this.host.status();
          send(sseFrame("status", { status }));
          const finishedAt = this.host.finishedAt();
          if (finishedAt) {
            send(sseFrame("done", { status, finished_at: finishedAt }));
            controller.close();
            return;
          }
          this.lastStatus = status;
          this.watchers.add(controller);
          this.heartbeat ??= setInterval(() => this.broadcast(": heartbeat\n\n"), this.opts.heartbeatMs());
        },
        cancel: () => {
          if (self) this.leave(self);
        },
      },
      new ByteLengthQueuingStrategy({ highWaterMark: REPLAY_HIGH_WATER_BYTES }),
    );
  }

  /** A result was recorded (new, its transaction committed). */
  result(row: ResultEventRow): void {
    if (this.watchers.size === 0) return;
    this.broadcast(resultFrame(row));
    this.progressSoon();
  }

  /** The status may have changed (started, cancelled). */
  statusChanged(): void {
    if (this.watchers.size === 0) return;
    const status = this.host.status();
    if (status === this.lastStatus) return;
    this.lastStatus = status;
    this.broadcast(sseFrame("status", { status }));
  }

  /** The run ended: the last progress, its status and done, and every live stream closes. */
  finished(): void {
    if (this.watchers.size === 0) return;
    const status = this.host.status();
    this.broadcast(sseFrame("progress", this.progressData()));
    this.broadcast(sseFrame("status", { status }));
    this.broadcast(sseFrame("done", { status, finished_at: this.host.finishedAt() }));
    for (const w of [...this.watchers]) {
      try {
        w.close();
      } catch {
        // already closed by its reader
      }
      this.leave(w);
    }
  }

  private progressSoon(): void {
    if (this.progressTimer) return;
    const wait = Math.max(0, this.lastProgressAt + PROGRESS_EVERY_MS - this.host.now());
    this.progressTimer = setTimeout(() => {
      this.progressTimer = undefined;
      this.lastProgressAt = this.host.now();
      if (this.watchers.size > 0) this.broadcast(sseFrame("progress", this.progressData()));
    }, wait);
  }

  private progressData(): RunProgressEventData {
    const p = this.host.progress();
    const now = this.host.now();
    this.samples.push({ at: now, done: p.done });
    while (this.samples.length > 2 && this.samples[0]!.at < now - RATE_WINDOW_MS) this.samples.shift();
    const first = this.samples[0]!;
    const rate = now > first.at && p.done > first.done ? (p.done - first.done) / ((now - first.at) / 1000) : 0;
    const eta_s = p.done >= p.total ? 0 : rate > 0 ? Math.round((p.total - p.done) / rate) : null;
    return { done: p.done, total: p.total, cost_usd: p.cost_usd, eta_s };
  }

  private broadcast(text: string): void {
    const bytes = encoder.encode(text);
    for (const w of [...this.watchers]) {
      try {
        w.enqueue(bytes);
        // desiredSize is the high-water mark minus what is unread.
        if (REPLAY_HIGH_WATER_BYTES - (w.desiredSize ?? 0) > this.maxQueuedBytes) {
          w.error(new Error("this watcher stopped reading; reconnect with Last-Event-ID"));
          this.leave(w);
        }
      } catch {
        this.leave(w);
      }
    }
  }

  private leave(w: Watcher): void {
    this.watchers.delete(w);
    if (this.watchers.size > 0) return;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    clearTimeout(this.progressTimer);
    this.progressTimer = undefined;
  }
}
