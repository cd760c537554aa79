import { describe, expect, it } from "vitest";
import { GroupSummarizer, type SummaryRow } from "../../../src/summaries/group-summary";

const row = (over: Partial<SummaryRow>): SummaryRow => ({
  question_id: "q1",
  answering_model: "a",
  parsing_model: "p",
  replicate: 1,
  verdict: "pass",
  failure_category: null,
  usage: [],
  ...over,
});

describe("GroupSummarizer", () => {
  it("counts verdicts, leaves errors out of n and pass rate, and sorts groups by key", () => {
    const s = new GroupSummarizer("question", 2);
    s.add(row({ question_id: "q2", replicate: 1, verdict: "fail", failure_category: "content" }));
    s.add(row({ question_id: "q2", replicate: 2, verdict: "error", failure_category: "timeout" }));
    s.add(row({ question_id: "q1", replicate: 1, verdict: "pass" }));
    s.add(row({ question_id: "q1", replicate: 2, verdict: "fail", failure_category: "content" }));
    const [q1, q2] = s.summaries();
    expect(q1).toMatchObject({
      group: { question_id: "q1" },
      results: 2,
      passed: 1,
      failed: 1,
      errored: 0,
      pass_rate: 0.5,
      pass_at_k: { "1": 0.5, "2": 1 },
      pass_hat_k: { "1": 0.5, "2": 0 },
    });
    // n = 1 (the error is not a try): k = 2 is undefined
    expect(q2).toMatchObject({
      group: { question_id: "q2" },
      results: 2,
      failed: 1,
      errored: 1,
      pass_rate: 0,
      pass_at_k: { "1": 0, "2": null },
    });
  });

  it("counts a usage row once per group (an answer shared by two judges), and null cost taints the total", () => {
    const answer = { key: "job1|answer_generation", input_tokens: 10, output_tokens: 20, cost_usd: 0.5 };
    const s = new GroupSummarizer("answering_model", 1);
    s.add(row({ parsing_model: "p1", usage: [answer, { key: "r1|parse", input_tokens: 1, output_tokens: 2, cost_usd: 0.25 }] }));
    s.add(row({ parsing_model: "p2", usage: [answer, { key: "r2|parse", input_tokens: 3, output_tokens: 4, cost_usd: 0.125 }] }));
    expect(s.summaries()[0]).toMatchObject({ tokens: { input_tokens: 14, output_tokens: 26, total_tokens: 40 }, cost_usd: 0.875 });
    const byParsing = new GroupSummarizer("parsing_model", 1);
    byParsing.add(row({ parsing_model: "p1", usage: [answer] }));
    byParsing.add(row({ parsing_model: "p2", usage: [{ ...answer, key: "j2|answer_generation", cost_usd: null }] }));
    expect(byParsing.summaries().map((g) => g.cost_usd)).toEqual([0.5, null]);
  });

  it("groups by trait on the trait's own outcome, with its aggregate", () => {
    const s = new GroupSummarizer("trait", 2);
    const t = (pass: boolean | null) => [{ trait: "clarity", score: null, pass, errored: pass === null }];
    s.add(row({ replicate: 1, traits: t(true) }));
    s.add(row({ replicate: 2, traits: t(false), verdict: "fail" }));
    s.add(row({ question_id: "q2", replicate: 1, traits: t(null) }));
    const [clarity] = s.summaries();
    expect(clarity).toMatchObject({
      group: { trait: "clarity" },
      results: 3,
      passed: 2,
      failed: 1,
      pass_at_k: { "1": 0.5, "2": 1 },
      trait: { n: 2, errored: 1, pass_rate: 0.5 },
    });
  });

  it("orders replicate groups numerically and a null failure category first", () => {
    const s = new GroupSummarizer("replicate", 12);
    for (const r of [10, 2, 1]) s.add(row({ replicate: r }));
    expect(s.summaries().map((g) => g.group.replicate)).toEqual([1, 2, 10]);
    const f = new GroupSummarizer("failure_category", 1);
    f.add(row({ verdict: "fail", failure_category: "content" }));
    f.add(row({}));
    expect(f.summaries().map((g) => g.group.failure_category)).toEqual([null, "content"]);
  });
});
