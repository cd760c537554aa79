import { describe, expect, it } from "vitest";
import { parseLastEventId, type Progress, RunEvents, sseFrame } from "../../../src/coordinator/run-events";

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

  it("progress carries an ETA from the recent rate, null before there is one", async () => {
    let now = 0;
    const progress: Progress = { done: 0, total: 100, cost_usd: 0 };
    const events = new RunEvents(
      { resultsAfter: () => [], progress: () => ({ ...progress }), status: () => "running", finishedAt: () => null, now: () => now },
      () => 60_000,
    );
    const reader = events.open(0).pipeThrough(new TextDecoderStream()).getReader();
    let first = "";
    while (!first.includes("event: status")) first += (await reader.read()).value!;
    expect(first).toContain('"eta_s":null');
    now = 10_000;
    progress.done = 20;
    events.finished();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += r.value;
    // 20 results in 10 s: 80 left at 2 a second.
    expect(rest).toContain('event: progress\ndata: {"done":20,"total":100,"cost_usd":0,"eta_s":40}');
    expect(rest.trimEnd().endsWith('event: done\ndata: {"status":"running","finished_at":null}')).toBe(true);
    expect(events.watching).toBe(0);
  });
});
