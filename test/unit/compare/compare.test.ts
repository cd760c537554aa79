import { describe, expect, it } from "vitest";
import { isRegression, RunComparer, type VerdictRow } from "../../../src/compare/compare-runs";
import { mcnemarExact } from "../../../src/compare/mcnemar";

describe("McNemar's exact test", () => {
  it("matches hand-computed binomial tails", () => {
    // n = 7, k = 1: 2 · (C(7,0) + C(7,1)) / 2^7 = 2 · 8/128
    expect(mcnemarExact(6, 1)).toBeCloseTo(0.125, 12);
    expect(mcnemarExact(1, 6)).toBeCloseTo(0.125, 12);
    // n = 5, k = 0: 2 / 32
    expect(mcnemarExact(5, 0)).toBeCloseTo(0.0625, 12);
    // n = 10, k = 2: 2 · (1 + 10 + 45) / 1024
    expect(mcnemarExact(8, 2)).toBeCloseTo(112 / 1024, 12);
    expect(mcnemarExact(3, 3)).toBe(1); // the doubled tail passes 1
    expect(mcnemarExact(0, 0)).toBe(1);
  });

  it("stays finite for tens of thousands of discordant pairs", () => {
    const p = mcnemarExact(30_000, 29_000);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(0.01);
    expect(mcnemarExact(20_000, 20_000)).toBe(1);
  });

  it("refuses what is not a count", () => expect(() => mcnemarExact(-1, 2)).toThrow(RangeError));
});

const row = (question_id: string, verdict: VerdictRow["verdict"], over: Partial<VerdictRow> = {}): VerdictRow => ({
  question_id,
  answering_model: "m",
  parsing_model: "j",
  replicate: 1,
  verdict,
  ...over,
});

describe("RunComparer", () => {
  it("6 pass→fail and 1 fail→pass: those 7 questions, p = 0.125, not significant", () => {
    const c = new RunComparer();
    for (let i = 0; i < 10; i++) c.addA(row(`q${i}`, i < 6 ? "pass" : i === 6 ? "fail" : "pass"));
    for (let i = 0; i < 10; i++) c.addB(row(`q${i}`, i < 6 ? "fail" : i === 6 ? "pass" : "pass"));
    const [pair] = c.modelPairs();
    expect(pair).toMatchObject({ paired: 10, pass_to_fail: 6, fail_to_pass: 1, a_passed: 9, b_passed: 4, significant: false });
    expect(pair!.p_value).toBeCloseTo(0.125, 12);
    expect(pair!.delta).toBeCloseTo(-0.5, 12);
    expect(c.questionFlips().map((q) => q.question_id)).toEqual(["q0", "q1", "q2", "q3", "q4", "q5", "q6"]);
    expect(isRegression(c.modelPairs())).toBe(false);
  });

  it("errors and no_verdict are excluded, never flips; unmatched results are counted", () => {
    const c = new RunComparer();
    c.addA(row("q1", "pass"));
    c.addA(row("q2", "pass"));
    c.addA(row("q3", "fail"));
    c.addB(row("q1", "error"));
    c.addB(row("q2", "pass"));
    c.addB(row("q4", "fail"));
    expect(c.modelPairs()[0]).toMatchObject({ paired: 1, excluded: 1, pass_to_fail: 0 });
    expect(c.questionFlips()).toEqual([]);
    expect(c.unmatched()).toEqual({ only_in_a: 1, only_in_b: 1 });
  });

  it("compares different answering model ids when named, ignoring the others", () => {
    const c = new RunComparer({ a: "old", b: "new" });
    for (let i = 0; i < 6; i++) {
      c.addA(row(`q${i}`, "pass", { answering_model: "old" }));
      c.addA(row(`q${i}`, "fail", { answering_model: "other" }));
    }
    for (let i = 0; i < 6; i++) c.addB(row(`q${i}`, "fail", { answering_model: "new" }));
    const pairs = c.modelPairs();
    expect(pairs).toHaveLength(1);
    expect(pairs[0]).toMatchObject({ a_answering_model: "old", b_answering_model: "new", pass_to_fail: 6, significant: true });
    expect(pairs[0]!.p_value).toBeCloseTo(2 / 64, 12);
    expect(isRegression(pairs)).toBe(true);
  });

  it("compares two judges when named (a re-score's new judge against the parent's), the pair and flips naming both", () => {
    const c = new RunComparer(undefined, { a: "j1", b: "j2" });
    for (let i = 0; i < 4; i++) c.addA(row(`q${i}`, i < 3 ? "pass" : "fail", { parsing_model: "j1" }));
    for (let i = 0; i < 4; i++) {
      c.addB(row(`q${i}`, i < 3 ? "pass" : "fail", { parsing_model: "j1" })); // the copies: not taking part
      c.addB(row(`q${i}`, "pass", { parsing_model: "j2" }));
    }
    expect(c.modelPairs()).toMatchObject([{ a_parsing_model: "j1", parsing_model: "j2", paired: 4, fail_to_pass: 1, pass_to_fail: 0 }]);
    expect(c.questionFlips()).toMatchObject([
      { question_id: "q3", flips: [{ a_parsing_model: "j1", parsing_model: "j2", a: "fail", b: "pass" }] },
    ]);
    // Unnamed, the same judge on both sides: no a_parsing_model.
    const plain = new RunComparer();
    plain.addA(row("q1", "pass"));
    plain.addB(row("q1", "fail"));
    expect(plain.modelPairs()[0]).not.toHaveProperty("a_parsing_model");
  });
});
