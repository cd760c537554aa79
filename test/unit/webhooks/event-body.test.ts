import { describe, expect, it } from "vitest";
import { EVENT_MAX_BYTES, eventBody, eventTypeOf } from "../../../src/webhooks/emit";
import { resultEventBody } from "../../../src/webhooks/result-events";

const end = (pairs: unknown[]) => ({
  tenant_id: "t",
  run_id: "r",
  run_name: "n",
  origin: null,
  status: "completed" as const,
  progress: { total: 1, done: 1 },
  pairs,
  pairs_total: pairs.length,
  named_endpoint_ids: [],
});

describe("run end event body", () => {
  it("maps each final status to its event and none before the end", () => {
    expect(
      ["queued", "running", "completed", "partial", "failed", "cancelled", "budget_exceeded"].map((s) => eventTypeOf(s as never)),
    ).toEqual([null, null, "run.completed", "run.partial", "run.failed", "run.cancelled", "run.budget_exceeded"]);
  });

  it("carries at most 50 pairs and says when it dropped some", () => {
    const body = JSON.parse(eventBody("run.completed", new Date(0), end(Array.from({ length: 80 }, (_, i) => ({ i })))));
    expect(body.data.pairs).toHaveLength(50);
    expect(body.data.pairs_truncated).toBe(true);
    expect(body.timestamp).toBe("1970-01-01T00:00:00.000Z");
  });

  it("links absolutely where the run's origin is known, by path where it is not (runs from before api_origin)", () => {
    const at = (origin: string | null) => JSON.parse(eventBody("run.completed", new Date(0), { ...end([]), origin })).data.links;
    expect(at("https://evals.example.com")).toEqual({
      run: "https://evals.example.com/v1/runs/r",
      summary: "https://evals.example.com/v1/runs/r/summary",
      results: "https://evals.example.com/v1/runs/r/results",
      dashboard: "https://evals.example.com/dashboard/runs/r",
    });
    expect(at(null)).toEqual({
      run: "/v1/runs/r",
      summary: "/v1/runs/r/summary",
      results: "/v1/runs/r/results",
      dashboard: "/dashboard/runs/r",
    });
    const result = resultEventBody(new Date(0), "r", { run_name: "n", origin: "http://127.0.0.1:8787" }, facts("q1"));
    expect(JSON.parse(result).data.links).toEqual({
      result: "http://127.0.0.1:8787/v1/runs/r/results/abc",
      run: "http://127.0.0.1:8787/v1/runs/r",
    });
  });

  it("stays within 64 KB by dropping pairs", () => {
    const big = Array.from({ length: 50 }, (_, i) => ({ i, pad: "x".repeat(3000) }));
    const text = eventBody("run.completed", new Date(0), end(big));
    expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(EVENT_MAX_BYTES);
    const body = JSON.parse(text);
    expect(body.data.pairs.length).toBeGreaterThan(0);
    expect(body.data.pairs.length).toBeLessThan(50);
    expect(body.data.pairs_truncated).toBe(true);
  });

  const facts = (question_id: string) => ({
    result_id: "abc",
    question_id,
    answering_model: "m",
    parsing_model: "j",
    replicate: 0,
    verdict: "fail",
    verify_result: 0,
    failure_category: "content",
  });

  it("a result.created body carries the result's facts and its link", () => {
    const body = JSON.parse(resultEventBody(new Date(0), "r", { run_name: "n", origin: null }, facts("q1")));
    expect(body).toEqual({
      type: "result.created",
      timestamp: "1970-01-01T00:00:00.000Z",
      data: {
        run_id: "r",
        run_name: "n",
        result_id: "abc",
        question_id: "q1",
        answering_model: "m",
        parsing_model: "j",
        replicate: 0,
        verdict: "fail",
        verify_result: false,
        failure_category: "content",
        links: { result: "/v1/runs/r/results/abc", run: "/v1/runs/r" },
      },
    });
  });

  it("a result.created body whose tenant-chosen ids would pass 64 KB keeps only server-made ids", () => {
    const text = resultEventBody(new Date(0), "r", { run_name: "n", origin: null }, facts("q".repeat(70_000)));
    expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(EVENT_MAX_BYTES);
    expect(JSON.parse(text).data).toEqual({
      run_id: "r",
      result_id: "abc",
      verdict: "fail",
      verify_result: false,
      failure_category: "content",
      links: { result: "/v1/runs/r/results/abc", run: "/v1/runs/r" },
      fields_omitted: true,
    });
  });
});
