/** The run page's heatmap: a page of cells cut by the cell limit never shows a question's missing models as "no results". */
import { describe, expect, it } from "vitest";
import { type HeatCell, Heatmap } from "../../../src/dashboard/charts";

const cell = (question_id: string, answering_model: string): HeatCell => ({
  question_id,
  answering_model,
  passed: 1,
  failed: 0,
  errored: 0,
});

describe("Heatmap", () => {
  it("drops the last question's row when the cell limit cut it, instead of drawing its unread models as 'no results'", async () => {
    // q2's cell for model b lies beyond the limit: q2 was read in part.
    const html = (await Heatmap({ cells: [cell("q1", "a"), cell("q1", "b"), cell("q2", "a")], truncated: true }).toString()) as string;
    expect(html).toContain('<th scope="row">q1</th>');
    expect(html).not.toContain('<th scope="row">q2</th>');
    expect(html).not.toContain('title="no results"');
    expect(html).toContain("first 1 questions only");
  });

  it("keeps every row of a page that was not cut, and a model without results there still reads 'no results'", async () => {
    const html = (await Heatmap({ cells: [cell("q1", "a"), cell("q1", "b"), cell("q2", "a")], truncated: false }).toString()) as string;
    expect(html).toContain('<th scope="row">q2</th>');
    expect(html.match(/title="no results"/g)).toHaveLength(1);
  });
});
