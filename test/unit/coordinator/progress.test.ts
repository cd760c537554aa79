import { describe, expect, it } from "vitest";
import { emptyTraitTotal, gradedCount, pairTraits, statusOf, summarize, type TraitTotal } from "../../../src/coordinator/progress";

describe("summarize", () => {
  it("reports every (answering, parsing) pair, with pass_rate over passed + failed only", () => {
    const s = summarize(["a1", "a2"], ["j"], 4, [
      { answering_id: "a1", parsing_id: "j", verdict: "pass", n: 2 },
      { answering_id: "a1", parsing_id: "j", verdict: "fail", n: 1 },
      { answering_id: "a1", parsing_id: "j", verdict: "error", n: 1 },
    ]);
    expect(s).toEqual([
      { answering_model: "a1", parsing_model: "j", total: 4, passed: 2, failed: 1, errored: 1, pass_rate: 2 / 3 },
      { answering_model: "a2", parsing_model: "j", total: 4, passed: 0, failed: 0, errored: 0, pass_rate: null },
    ]);
  });

  it("does not hold judge failures against the answer: all errors → pass_rate null", () => {
    const [pair] = summarize(["a"], ["j"], 1, [{ answering_id: "a", parsing_id: "j", verdict: "error", n: 1 }]);
    expect(pair!.pass_rate).toBeNull();
  });
});

describe("summarize: pairs answering-major, pages, an answer that only fails", () => {
  const counts = [
    { answering_id: "a2", parsing_id: "j1", verdict: "fail" as const, n: 2 },
    { answering_id: "a2", parsing_id: "j2", verdict: "pass" as const, n: 1 },
  ];
  const pairs = (s: { answering_model: string; parsing_model: string }[]) => s.map((p) => `${p.answering_model}/${p.parsing_model}`);

  it("lists every answering × parsing pair, answering-major, and gives an answer that only fails pass_rate 0", () => {
    const s = summarize(["a1", "a2", "a3"], ["j1", "j2"], 2, counts);
    expect(pairs(s)).toEqual(["a1/j1", "a1/j2", "a2/j1", "a2/j2", "a3/j1", "a3/j2"]);
    expect(s[2]).toEqual({ answering_model: "a2", parsing_model: "j1", total: 2, passed: 0, failed: 2, errored: 0, pass_rate: 0 });
  });

  it("returns one page of pairs from the window, and nothing past the last pair", () => {
    expect(pairs(summarize(["a1", "a2", "a3"], ["j1", "j2"], 2, counts, { offset: 3, limit: 2 }))).toEqual(["a2/j2", "a3/j1"]);
    expect(pairs(summarize(["a1", "a2", "a3"], ["j1", "j2"], 2, counts, { offset: 5, limit: 10 }))).toEqual(["a3/j2"]);
  });
});

describe("pairTraits", () => {
  it("gives one pair's traits, sorted, from the run's trait totals: mean over scored, pass rate over judged", () => {
    const total = (answering_id: string, parsing_id: string, trait: string, t: Partial<TraitTotal>): TraitTotal => ({
      ...emptyTraitTotal(answering_id, parsing_id, trait),
      ...t,
    });
    const totals = [
      total("a", "j", "depth", { n: 2, score_sum: 7, scored: 2 }),
      total("a", "j", "clear", { n: 3, errored: 1, passed: 2, judged: 3 }),
      total("a", "k", "depth", { n: 1, score_sum: 1, scored: 1 }),
      total("b", "j", "depth", { n: 1, score_sum: 1, scored: 1 }),
      total("a", "j", "broken", { errored: 2 }),
    ];
    const traits = pairTraits(totals, "a", "j");
    expect(traits).toEqual({
      broken: { n: 0, errored: 2, mean_score: null, pass_rate: null },
      clear: { n: 3, errored: 1, mean_score: null, pass_rate: 2 / 3 },
      depth: { n: 2, errored: 0, mean_score: 3.5, pass_rate: null },
    });
    expect(Object.keys(traits)).toEqual(["broken", "clear", "depth"]);
  });
});

describe("statusOf: one precedence rule (issue 15 item 1)", () => {
  const end = { total: 4, started: true };
  it("is queued before any job starts and running after", () => {
    expect(statusOf({ total: 3, done: 0, dead: 0, started: false, graded: 0 })).toBe("queued");
    expect(statusOf({ total: 3, done: 1, dead: 0, started: true, graded: 1 })).toBe("running");
  });

  it.each([
    ["every job graded", { done: 4, dead: 0, graded: 4 }, "completed"],
    ["some jobs dead-lettered, the rest graded", { done: 3, dead: 1, graded: 3 }, "partial"],
    ["a sharded run's root refused a result for good: it is missing it", { done: 4, dead: 0, graded: 3, refused: 1 }, "partial"],
    ["every job dead-lettered", { done: 0, dead: 4, graded: 0 }, "failed"],
    ["every job finished but every result errored (a base_url nobody listens on)", { done: 4, dead: 0, graded: 0 }, "failed"],
    ["some errored, some dead, nothing graded", { done: 2, dead: 2, graded: 0 }, "failed"],
    ["one graded result among errors is enough not to fail", { done: 4, dead: 0, graded: 1 }, "completed"],
    ["budget spent: budget_exceeded beats failed", { done: 1, dead: 0, skipped: 3, graded: 0 }, "budget_exceeded"],
    ["budget spent: budget_exceeded beats partial", { done: 2, dead: 1, skipped: 1, graded: 2 }, "budget_exceeded"],
    ["cancelled beats budget_exceeded", { done: 1, dead: 0, skipped: 3, graded: 1, cancelled: true }, "cancelled"],
    ["cancelled beats failed", { done: 0, dead: 4, graded: 0, cancelled: true }, "cancelled"],
    ["cancelled before the end is cancelled, not running", { done: 1, dead: 0, graded: 1, cancelled: true }, "cancelled"],
  ] as const)("%s → %s", (_what, facts, status) => {
    expect(statusOf({ ...end, ...facts })).toBe(status);
  });

  it("counts pass, fail and no_verdict results as graded, error results not", () => {
    expect(
      gradedCount([
        { verdict: "pass", n: 2 },
        { verdict: "fail", n: 1 },
        { verdict: "no_verdict", n: 3 },
        { verdict: "error", n: 5 },
      ]),
    ).toBe(6);
    expect(gradedCount([{ verdict: "error", n: 5 }])).toBe(0);
  });
});
