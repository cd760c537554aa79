/**
 * GET /v1/runs/:id/events (issue 20 item 1): a watcher that disconnects mid-run and reconnects with
 * Last-Event-ID gets every result exactly once overall, then done; a second watcher gets the same.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RunCoordinator } from "../../src/coordinator/coordinator";
import { RunEvent } from "../../src/schemas/run-events";
import { addFakeRules, api, exactTemplate, fakeModel, submitRun, uniqueModel, waitForRun } from "./helpers";

interface Frame {
  event: string;
  id?: string;
  data: any;
}

/** Reads SSE frames (comments as event "comment") until `stop` says so or the stream ends; then lets go. */
async function readEvents(res: Response, stop: (frames: Frame[]) => boolean): Promise<Frame[]> {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const frames: Frame[] = [];
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return frames;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const f: Frame = { event: "message", data: undefined };
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) f.event = "comment";
        else if (line.startsWith("event: ")) f.event = line.slice(7);
        else if (line.startsWith("id: ")) f.id = line.slice(4);
        else if (line.startsWith("data: ")) f.data = JSON.parse(line.slice(6));
      }
      if (f.event === "message" && f.data === undefined) continue; // the retry: line
      frames.push(f);
      if (stop(frames)) {
        await reader.cancel();
        return frames;
      }
    }
  }
}

const events = (runId: string, lastEventId?: string) =>
  api(`/v1/runs/${runId}/events`, { headers: lastEventId ? { "last-event-id": lastEventId } : {} });
const resultsOf = (frames: Frame[]) => frames.filter((f) => f.event === "result");

describe("run events (SSE)", () => {
  it("resumes with Last-Event-ID: every result exactly once overall, then done; a second watcher gets the same; heartbeats", async () => {
    const judge = uniqueModel("sse-judge");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "x" }, latency_ms: 300 } }]);
    const questions = Array.from({ length: 8 }, (_, i) => ({ id: `q${i}`, question: `Q${i}?`, template: exactTemplate("x") }));
    const runId = await submitRun({
      benchmark: { name: "sse", questions },
      config: {
        answering_models: [{ id: "m", interface: "manual", manual_answers: Object.fromEntries(questions.map((q) => [q.id, "x"])) }],
        parsing_models: [fakeModel("j1", judge), fakeModel("j2", judge)],
      },
    });
    const row = await env.DB.prepare("SELECT coordinator_name FROM runs WHERE run_id = ?")
      .bind(runId)
      .first<{ coordinator_name: string }>();
    await runInDurableObject(env.RUNS.getByName(row!.coordinator_name), async (instance: RunCoordinator) => {
      instance.heartbeatMs = 100;
    });

    const second = readEvents(await events(runId), (f) => f.at(-1)?.event === "done");
    const first = await readEvents(await events(runId), (f) => resultsOf(f).length >= 3);
    expect(first.at(-1)!.event).toBe("result");
    const lastId = first.at(-1)!.id!;
    // Results keep arriving while nobody is connected on this side.
    await new Promise((r) => setTimeout(r, 400));
    const resumed = await readEvents(await events(runId, lastId), (f) => f.at(-1)?.event === "done");

    const seen = [...resultsOf(first), ...resultsOf(resumed)].map((f) => f.data.result_id);
    expect(seen).toHaveLength(16);
    expect(new Set(seen).size).toBe(16);
    expect(resumed.at(-1)).toMatchObject({ event: "done", data: { status: "completed" } });
    const ids = [...resultsOf(first), ...resultsOf(resumed)].map((f) => Number(f.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));

    const other = await second;
    expect(other.at(-1)).toMatchObject({ event: "done", data: { status: "completed" } });
    expect(resultsOf(other).map((f) => [f.id, f.data])).toEqual([...resultsOf(first), ...resultsOf(resumed)].map((f) => [f.id, f.data]));
    expect(other.some((f) => f.event === "comment")).toBe(true);
    expect(resultsOf(other)[0]!.data).toMatchObject({
      question_id: expect.stringMatching(/^q\d$/),
      answering_model: "m",
      parsing_model: expect.stringMatching(/^j[12]$/),
      verdict: "pass",
    });
    const progress = other.filter((f) => f.event === "progress").map((f) => f.data);
    expect(progress.at(-1)).toMatchObject({ done: 16, total: 16 });
    expect(progress.some((p) => p.done > 0 && p.done < 16 && typeof p.eta_s === "number")).toBe(true);
    expect(other.filter((f) => f.event === "status").map((f) => f.data.status)).toContain("completed");
    // Every frame has the documented shape (src/schemas/run-events.ts, /openapi.json's x-item-schema).
    for (const f of [...first, ...resumed, ...other].filter((f) => f.event !== "comment"))
      expect(RunEvent.safeParse(f).error).toBeUndefined();
  }, 30_000);

  it("a finished run answers what was missed and done at once; a Last-Event-ID that is not ours is a 400", async () => {
    const judge = uniqueModel("sse-done");
    await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "x" } } }]);
    const runId = await submitRun({
      benchmark: {
        name: "sse-done",
        questions: [
          { id: "a", question: "A?", template: exactTemplate("x") },
          { id: "b", question: "B?", template: exactTemplate("x") },
        ],
      },
      config: {
        answering_models: [{ id: "m", interface: "manual", manual_answers: { a: "x", b: "x" } }],
        parsing_models: [fakeModel("j", judge)],
      },
    });
    await waitForRun(runId);
    const all = await readEvents(await events(runId), () => false);
    expect(resultsOf(all)).toHaveLength(2);
    expect(all.map((f) => f.event)).toEqual(["result", "result", "progress", "status", "done"]);
    const rest = await readEvents(await events(runId, resultsOf(all)[0]!.id), () => false);
    expect(resultsOf(rest).map((f) => f.id)).toEqual([resultsOf(all)[1]!.id]);
    const bad = await events(runId, "not-an-id");
    expect(bad.status).toBe(400);
  });

  it("progress cost_usd is what GET /v1/runs/:id says: null once a model without a price was called, never $0 for it", async () => {
    const price = (usd: number) => ({ input_per_mtok: usd * 1_000_000, output_per_mtok: usd * 1_000_000 });
    const costs = async (prices?: Record<string, unknown>) => {
      const judge = uniqueModel("sse-cost");
      await addFakeRules([{ match: { model: judge }, reply: { json: { answer: "x" } } }]);
      const runId = await submitRun({
        benchmark: { name: "sse-cost", questions: [{ id: "a", question: "A?", template: exactTemplate("x") }] },
        config: {
          answering_models: [{ id: "m", interface: "manual", manual_answers: { a: "x" } }],
          parsing_models: [fakeModel("j", judge)],
        },
        ...(prices ? { prices: { [judge]: prices } } : {}),
      });
      await waitForRun(runId);
      const frames = await readEvents(await events(runId), () => false);
      const progress = frames.find((f) => f.event === "progress")!;
      expect(RunEvent.safeParse(progress).success).toBe(true);
      const view = (await (await api(`/v1/runs/${runId}`)).json()) as any;
      return { stream: progress.data.cost_usd, view: view.usage.total.cost_usd };
    };
    const unpriced = await costs();
    expect(unpriced).toEqual({ stream: null, view: null });
    const priced = await costs(price(0.001));
    expect(priced.view).toBeGreaterThan(0);
    expect(priced.stream).toBeCloseTo(priced.view, 9);
  });
});
