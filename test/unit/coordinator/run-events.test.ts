import { describe, expect, it } from "vitest";
import {
  parseLastEventId,
  type Progress,
  REPLAY_PAGE,
  type ResultEventRow,
  RunEvents,
  type RunEventsHost,
  sseFrame,
} from "../../../src/coordinator/run-events";
import { RunEvent } from "../../../src/schemas/run-events";

const row = (seq: number): ResultEventRow => ({
  seq,
  result_id: `r${seq}`,
  question_id: "q",
  answering_id: "a",
  parsing_id: "p",
  verdict: "pass",
});

function host(over: Partial<RunEventsHost> = {}): RunEventsHost {
  return {
    resultsAfter: () => [],
    progress: () => ({ done: 0, total: 10, cost_usd: 0 }),
    status: () => "running",
    finishedAt: () => null,
    now: () => 0,
    ...over,
  };
}

/** Frames (comments and the retry line left out) as {event, id?, data}. */
function frames(text: string): unknown[] {
  return text
    .split("\n\n")
    .filter((b) => b.includes("event: "))
    .map((b) => {
      const f: Record<string, unknown> = {};
      for (const line of b.split("\n")) {
        if (line.startsWith("event: ")) f.event = line.slice(7);
        else if (line.startsWith("id: ")) f.id = line.slice(4);
        else if (line.startsWith("data: ")) f.data = JSON.parse(line.slice(6));
      }
      return f;
    });
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream()) as unknown as AsyncIterable<string>) text += chunk;
  return text;
}

describe("run events", () => {
  it("Last-Event-ID: absent or empty is the start, digits resume, anything else is not ours", () => {
    expect(parseLastEventId(undefined)).toBe(0);
    expect(parseLastEventId("")).toBe(0);
    expect(parseLastEventId("42")).toBe(42);
    expect(parseLastEventId("4x")).toBeNull();
    expect(parseLastEventId("-1")).toBeNull();
  });

  it("frames an event with its id and JSON data", () => {
    expect(sseFrame("result", { a: 1 }, 7)).toBe('id: 7\nevent: result\ndata: {"a":1}\n\n');
    expect(sseFrame("done", { status: "completed" })).toBe('event: done\ndata: {"status":"completed"}\n\n');
  });

  it("progress carries the cost so far and an ETA from the recent rate, null before there is one", async () => {
    let now = 0;
    const progress: Progress = { done: 0, total: 100, cost_usd: 0 };
    const events = new RunEvents(host({ progress: () => ({ ...progress }), now: () => now }), { heartbeatMs: () => 60_000 });
    const reader = events.open(0).pipeThrough(new TextDecoderStream()).getReader();
    let first = "";
    while (!first.includes("event: status")) first += (await reader.read()).value!;
    expect(first).toContain('"eta_s":null');
    now = 10_000;
    progress.done = 20;
    progress.cost_usd = 0.42;
    events.finished();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += r.value;
    // 20 results in 10 s: 80 left at 2 a second.
    expect(rest).toContain('event: progress\ndata: {"done":20,"total":100,"cost_usd":0.42,"eta_s":40}');
    expect(rest.trimEnd().endsWith('event: done\ndata: {"status":"running","finished_at":null}')).toBe(true);
    expect(events.watching).toBe(0);
  });

  it("every frame fits the documented RunEvent schema", async () => {
    const events = new RunEvents(
      host({
        resultsAfter: (after) => (after === 0 ? [row(1), row(2)] : []),
        finishedAt: () => "2026-01-01T00:00:00.000Z",
        status: () => "completed",
      }),
      {
        heartbeatMs: () => 60_000,
      },
    );
    const all = frames(await readAll(events.open(0)));
    expect(all.map((f) => (f as { event: string }).event)).toEqual(["result", "result", "progress", "status", "done"]);
    for (const f of all) expect(RunEvent.safeParse(f).success, JSON.stringify(f)).toBe(true);
  });

  it("replays missed results page by page as the watcher reads, not all at once", async () => {
    const stored = Array.from({ length: REPLAY_PAGE * 5 }, (_, i) => row(i + 1));
    const asked: number[] = [];
    const events = new RunEvents(
      host({
        resultsAfter: (after, limit) => {
          asked.push(after);
          return stored.filter((r) => r.seq > after).slice(0, limit);
        },
        finishedAt: () => "2026-01-01T00:00:00.000Z",
      }),
      { heartbeatMs: () => 60_000 },
    );
    const stream = events.open(0);
    await new Promise((r) => setTimeout(r, 20));
    // Unread: the stream stopped pulling once its high-water mark was reached.
    expect(asked.length).toBeLessThan(5);
    const results = frames(await readAll(stream)).filter((f) => (f as { event: string }).event === "result");
    expect(results.map((f) => (f as { id: string }).id)).toEqual(stored.map((r) => String(r.seq)));
    expect(asked).toEqual([0, 200, 400, 600, 800, 1000]);
  });

  it("a watcher that stops reading is cut off past its bound; one that reads keeps every event", async () => {
    const events = new RunEvents(host(), { heartbeatMs: () => 60_000, maxQueuedBytes: 4096 });
    const slow = events.open(0);
    const slowReader = slow.getReader();
    await slowReader.read(); // the retry line; the next pull registers it
    const fast = events.open(0);
    const fastText = readAll(fast);
    await new Promise((r) => setTimeout(r, 10));
    expect(events.watching).toBe(2);
    for (let seq = 1; seq <= 200; seq++) {
      events.result(row(seq));
      // Results arrive as separate calls: the reading watcher drains between them.
      if (seq % 5 === 0) await new Promise((r) => setTimeout(r, 0));
    }
    // ~150 bytes a frame: the slow one passed 4 KiB unread and was dropped; the fast one reads on.
    expect(events.watching).toBe(1);
    let failure: unknown;
    try {
      for (;;) if ((await slowReader.read()).done) break;
    } catch (err) {
      failure = err;
    }
    expect(String(failure)).toContain("reconnect with Last-Event-ID");
    events.finished();
    const got = frames(await fastText).filter((f) => (f as { event: string }).event === "result");
    expect(got).toHaveLength(200);
  });
});
