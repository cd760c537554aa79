import { describe, expect, it } from "vitest";
import { aggregateTraits, traitObservations } from "../../../src/rubric/aggregate";
import { emptySection } from "../../../src/rubric/evaluate";

const result = (over: Record<string, unknown>) => ({ rubric: { ...emptySection("batch"), rubric_evaluation_performed: true, ...over } });

describe("per-trait aggregates", () => {
  it("gives booleans a pass rate, scores a mean, and counts judge failures apart", () => {
    const rows = [
      result({ llm_trait_scores: { clear: true, depth: 4 }, regex_trait_scores: { cites: true } }),
      result({ llm_trait_scores: { clear: false, depth: 2 }, regex_trait_scores: { cites: false } }),
      result({ llm_trait_scores: { clear: null, depth: null }, regex_trait_scores: { cites: true } }),
    ].flatMap(traitObservations);
    expect(aggregateTraits(rows)).toEqual({
      cites: { n: 3, errored: 0, mean_score: null, pass_rate: 2 / 3 },
      clear: { n: 2, errored: 1, mean_score: null, pass_rate: 0.5 },
      depth: { n: 2, errored: 1, mean_score: 3, pass_rate: null },
    });
  });

  it("leaves literal traits out, splits metric traits per metric, and gives compound traits both", () => {
    const rows = traitObservations(
      result({
        llm_trait_scores: { tone: 1 },
        llm_trait_labels: { tone: "Formal" },
        metric_trait_scores: { genes: { recall: 0.5 } },
        compound_trait_scores: { panel: 4 },
        compound_trait_traces: { panel: { pass: true, units: [] } },
      }),
    );
    expect(aggregateTraits(rows)).toEqual({
      "genes.recall": { n: 1, errored: 0, mean_score: 0.5, pass_rate: null },
      panel: { n: 1, errored: 0, mean_score: 4, pass_rate: 1 },
    });
  });

  it("counts a compound trait without a score as errored, and one without a trace as scored but not judged", () => {
    const rows = [
      result({ compound_trait_scores: { panel: null }, compound_trait_traces: { panel: { pass: false, units: [] } } }),
      result({ compound_trait_scores: { panel: 3 } }),
    ].flatMap(traitObservations);
    expect(rows).toEqual([
      { trait: "panel", score: null, pass: null, errored: true },
      { trait: "panel", score: 3, pass: null, errored: false },
    ]);
  });

  it("reads a missing value as errored and a value that is neither number nor boolean as unscored", () => {
    // Results are JSON, so neither happens through the pipeline; a hand-edited or older row must not count as a score.
    const rows = traitObservations(result({ agentic_trait_scores: { gone: undefined, label: "high" } }) as never);
    expect(rows).toEqual([
      { trait: "gone", score: null, pass: null, errored: true },
      { trait: "label", score: null, pass: null, errored: false },
    ]);
  });

  it("lists the traits in name order, whatever order the results gave them", () => {
    const rows = traitObservations(result({ llm_trait_scores: { zeta: 1, alpha: 2 }, regex_trait_scores: { mid: true } }));
    expect(Object.keys(aggregateTraits(rows))).toEqual(["alpha", "mid", "zeta"]);
  });

  it("has nothing to say about a result without a rubric", () => {
    expect(traitObservations({ rubric: null })).toEqual([]);
  });
});
