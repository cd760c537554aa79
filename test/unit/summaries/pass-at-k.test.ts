import { describe, expect, it } from "vitest";
import { meanOverItems, passAtK, passHatK } from "../../../src/summaries/pass-at-k";

describe("pass@k and pass^k", () => {
  it("match the binomial formulas on hand-computed cases", () => {
    // n=5, c=2: pass@2 = 1 − C(3,2)/C(5,2) = 1 − 3/10; pass^2 = C(2,2)/C(5,2) = 1/10
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    expect(passHatK(5, 2, 2)).toBeCloseTo(0.1, 12);
    // n=5, c=2, k=3: pass@3 = 1 − C(3,3)/C(5,3) = 1 − 1/10; pass^3 = C(2,3)/… = 0
    expect(passAtK(5, 2, 3)).toBeCloseTo(0.9, 12);
    expect(passHatK(5, 2, 3)).toBe(0);
    // k = 1 is the plain pass rate either way
    expect(passAtK(4, 3, 1)).toBeCloseTo(0.75, 12);
    expect(passHatK(4, 3, 1)).toBeCloseTo(0.75, 12);
    // n − c < k: some draw of k always holds a pass
    expect(passAtK(3, 2, 2)).toBe(1);
    expect(passAtK(3, 0, 3)).toBe(0);
    expect(passHatK(3, 3, 3)).toBe(1);
  });

  it("is null when there are fewer graded tries than k, and never overflows", () => {
    expect(passAtK(2, 1, 3)).toBeNull();
    expect(passHatK(0, 0, 1)).toBeNull();
    // C(1000, 500) is ~2.7e299: formed directly it would be Infinity / Infinity
    expect(passAtK(1000, 500, 500)).toBeCloseTo(1, 12);
    expect(passHatK(1000, 999, 500)).toBeCloseTo(0.5, 12);
  });

  it("refuses counts that are not counts", () => {
    expect(() => passAtK(3, 4, 1)).toThrow(RangeError);
    expect(() => passAtK(3, 1, 0)).toThrow(RangeError);
    expect(() => passHatK(2.5, 1, 1)).toThrow(RangeError);
  });

  it("averages over the items that reach k, null where none does", () => {
    const items = [
      { n: 3, c: 2 },
      { n: 2, c: 1 },
    ];
    const at = meanOverItems(items, 3, passAtK);
    expect(at["1"]).toBeCloseTo(7 / 12, 12);
    expect([at["2"], at["3"]]).toEqual([1, 1]); // k = 3: only the item with n = 3 counts
    const hat = meanOverItems(items, 3, passHatK);
    expect(hat["1"]).toBeCloseTo(7 / 12, 12);
    expect(hat["2"]).toBeCloseTo((1 / 3 + 0) / 2, 12);
    expect(hat["3"]).toBe(0);
    expect(meanOverItems([{ n: 1, c: 1 }], 2, passAtK)).toEqual({ "1": 1, "2": null });
  });
});
