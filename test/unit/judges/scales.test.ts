import { describe, expect, it } from "vitest";
import { buildScale, range, type Scale } from "../../../src/judges/scales";

const scale = (spec: Parameters<typeof buildScale>[0]): Scale => {
  const s = buildScale(spec);
  if ("error" in s) throw new Error(s.error);
  return s;
};

describe("scales", () => {
  it("a numeric range [1, 5] allows 1..5, renders worst and best, and rejects off-scale values", () => {
    const s = scale([1, 5]);
    expect(s.values).toEqual([1, 2, 3, 4, 5]);
    expect(s.prompt()).toBe("Respond with a single value from 1, 2, 3, 4, 5, where 1 is the worst and 5 is the best.");
    expect(s.parse(3)).toBe(3);
    expect(s.parse(" 4 ")).toBe(4);
    expect(s.parse(6)).toBeUndefined();
    expect(s.parse(2.5)).toBeUndefined();
    expect(s.parse("")).toBeUndefined();
    expect([s.min, s.max, s.isLabel]).toEqual([1, 5, false]);
  });

  it("a range with a step keeps decimal steps exact", () => {
    expect(range(0, 1, 0.25)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(scale([0, 1, 0.1]).values).toHaveLength(11);
    expect(buildScale([1, 5, 0])).toEqual({ error: "a range step must be > 0" });
    expect(buildScale([1, 5, 10])).toEqual({ error: expect.stringContaining("fewer than two values") });
  });

  it("end_is_worst flips the wording but not the values", () => {
    const s = scale({ type: "discrete", range: [1, 5], end_is_worst: true });
    expect(s.prompt()).toContain("where 5 is the worst and 1 is the best");
    expect(s.values).toEqual([1, 2, 3, 4, 5]);
  });

  it("a list of labels is a label scale matched case-insensitively to its own spelling", () => {
    const s = scale(["yes", "no"]);
    expect(s.isLabel).toBe(true);
    expect(s.prompt()).toBe("Respond with exactly one of: yes, no.");
    expect(s.parse("Yes")).toBe("yes");
    expect(s.parse("maybe")).toBeUndefined();
    expect(s.numeric("no", "no")).toBe(1);
    expect(s.numeric("yes", "no")).toBe(0);
    expect(buildScale(["a", "a"])).toEqual({ error: "scale values must be distinct" });
  });

  it("likert is 1..5 by default and takes other bounds", () => {
    expect(scale({ type: "likert" }).values).toEqual([1, 2, 3, 4, 5]);
    expect(scale({ type: "likert", min: 1, max: 7 }).values).toHaveLength(7);
  });

  it("boolean accepts yes / Yes / YES / true and their negatives, not odd casings or other words", () => {
    const s = scale({ type: "boolean" });
    for (const t of ["yes", "Yes", "YES", "true", "True", "TRUE", true]) expect(s.parse(t)).toBe(true);
    for (const f of ["no", "No", "NO", "false", "FALSE", false]) expect(s.parse(f)).toBe(false);
    for (const x of ["yEs", "maybe", 1, ""]) expect(s.parse(x)).toBeUndefined();
    expect(s.numeric(true, true)).toBe(1);
    expect(s.jsonSchema()).toEqual({ type: "boolean" });
  });

  it("continuous accepts any number within [min, max] and nothing else", () => {
    const s = scale({ type: "continuous", min: 0, max: 10 });
    expect(s.parse(7.25)).toBe(7.25);
    expect(s.parse("3.5")).toBe(3.5);
    expect(s.parse(10.01)).toBeUndefined();
    expect(s.parse("x")).toBeUndefined();
    expect(s.prompt()).toContain("between 0 and 10");
    expect(s.jsonSchema()).toEqual({ type: "number", minimum: 0, maximum: 10 });
    expect(buildScale({ type: "continuous", min: 3, max: 3 })).toEqual({ error: "continuous min must be < max" });
  });
});
