/** Issue 25: the result page's pure parts — excerpt marking, rubric rows, judge-graph layout. */
import { describe, expect, it } from "vitest";
import { highlightExcerpts, layoutGraph, rubricRows } from "../../../src/dashboard/result-view";

describe("highlightExcerpts", () => {
  it("marks every occurrence of each excerpt, merges overlaps by name, and lists excerpts not in the answer", () => {
    const answer = "Paris is the capital. Paris, France.";
    const { segments, missing } = highlightExcerpts(answer, {
      city: [{ text: "Paris" }],
      claim: [{ text: "Paris is the capital" }, { text: "Lyon is bigger" }],
    });
    expect(segments).toEqual([
      { text: "Paris", marks: ["city", "claim"] },
      { text: " is the capital", marks: ["claim"] },
      { text: ". " },
      { text: "Paris", marks: ["city"] },
      { text: ", France." },
    ]);
    expect(segments.map((s) => s.text).join("")).toBe(answer);
    expect(missing).toEqual([{ name: "claim", text: "Lyon is bigger" }]);
  });

  it("leaves an answer without excerpts as one unmarked run", () => {
    expect(highlightExcerpts("42", {})).toEqual({ segments: [{ text: "42" }], missing: [] });
  });
});

describe("rubricRows", () => {
  it("shows a failed judge as 'judge failed', never as no, and one row per metric", () => {
    const rows = rubricRows({
      rubric_evaluation_performed: true,
      rubric_evaluation_strategy: "batch",
      llm_trait_scores: { clear: 4, safe: null },
      llm_trait_labels: { clear: "good" },
      regex_trait_scores: { cites: false },
      callable_trait_scores: null,
      metric_trait_scores: { coverage: { precision: 0.5, recall: 1 } },
      metric_trait_confusion_lists: null,
      agentic_trait_scores: null,
      agentic_trait_investigation_traces: null,
      agentic_trait_extraction_metadata: null,
      compound_trait_scores: { panel: 3.5 },
      compound_trait_traces: null,
      dynamic_rubric_promoted_traits: null,
      dynamic_rubric_skipped_traits: null,
      trait_provenance: null,
    });
    expect(rows).toEqual([
      { trait: "clear", kind: "llm", score: "4", label: "good" },
      { trait: "safe", kind: "llm", score: "judge failed" },
      { trait: "cites", kind: "regex", score: "no" },
      { trait: "panel", kind: "compound", score: "3.5" },
      { trait: "coverage (precision)", kind: "metric", score: "0.500" },
      { trait: "coverage (recall)", kind: "metric", score: "1.000" },
    ]);
  });
});

describe("layoutGraph", () => {
  it("puts a unit one column right of the deepest unit it reads", () => {
    const u = (id: string, inputs: string[] = []) => ({ id, name: id, type: "likert", status: "ok", value: 1, inputs });
    // Inputs name the units read (the judge executor's trace), or give their ids.
    const placed = layoutGraph([u("a"), u("b"), u("c", ["a"]), { ...u("p#0", ["b", "c"]), name: "pool" }]);
    expect(placed.map((p) => [p.unit.id, p.col, p.row])).toEqual([
      ["a", 0, 0],
      ["b", 0, 1],
      ["c", 1, 0],
      ["p#0", 2, 0],
    ]);
  });
});
