// Issue 25: the run page's pictures, rendered by the worker inside workerd: the pass rate per model
// pair as an SVG bar chart (a bar as long as the rate) and the question × answering-model heatmap
// (a shaded table cell per question and model, its rate also written as text).
import { describe, expect, it } from "vitest";
import { addFakeRules, exactTemplate, fakeModel, uniqueModel } from "./helpers";
import { createTenant, submitAs, waitAs } from "./tenant-helpers";
import { dashboardFetch, dashboardSession } from "./dashboard-helpers";

describe("dashboard run page", () => {
  it("draws the pass rate per model pair and the question × model heatmap from the run's results", async () => {
    const t = await createTenant();
    const judge = uniqueModel("dash-chart");
    // The judge reads back what the answer said: "right" passes (ground truth "right"), "nope-zq" fails.
    await addFakeRules([
      { match: { model: judge, contains: "nope-zq" }, reply: { json: { answer: "nope-zq" } } },
      { match: { model: judge }, reply: { json: { answer: "right" } } },
    ]);
    const questions = ["q1", "q2", "q3", "q4"].map((id) => ({ id, question: `${id}?`, template: exactTemplate("right") }));
    const runId = await submitAs(t.key, {
      benchmark: { name: "dash-chart", questions },
      config: {
        answering_models: [
          // "good" is right on every question; "half" on q1 and q2 only.
          { id: "good", interface: "manual", manual_answers: { q1: "right", q2: "right", q3: "right", q4: "right" } },
          { id: "half", interface: "manual", manual_answers: { q1: "right", q2: "right", q3: "nope-zq", q4: "nope-zq" } },
        ],
        parsing_models: [fakeModel("j", judge)],
      },
    });
    await waitAs(t.key, runId);
    const res = await dashboardFetch(`/dashboard/runs/${runId}`, { cookie: await dashboardSession(t.key) });
    expect(res.status).toBe(200);
    const html = await res.text();

    const svg = html.match(/<svg id="pass-rate-chart"[\s\S]*?<\/svg>/)![0];
    expect(svg).toContain('role="img"');
    const bars = [...svg.matchAll(/data-pair="([^"]+)"[\s\S]*?<rect class="bar"[^>]*width="(\d+)"/g)].map((m) => [m[1], Number(m[2])]);
    expect(bars).toEqual([
      ["good|j", 400],
      ["half|j", 200],
    ]);
    expect(svg).toContain("half judged by j: 50.0 %");

    const heat = html.match(/<table id="heatmap"[\s\S]*?<\/table>/)![0];
    const row = (q: string) =>
      [
        ...heat.match(new RegExp(`<th scope="row">${q}</th>([\\s\\S]*?)</tr>`))![1]!.matchAll(/<td class="([^"]+)"[^>]*>([^<]*)<\/td>/g),
      ].map((m) => [m[1], m[2]]);
    expect(row("q1")).toEqual([
      ["heat-4", "100 %"],
      ["heat-4", "100 %"],
    ]);
    expect(row("q3")).toEqual([
      ["heat-4", "100 %"],
      ["heat-0", "0 %"],
    ]);
    expect(heat).not.toContain("style=");
  });
});
