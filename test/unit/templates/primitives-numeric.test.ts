import { describe, expect, it } from "vitest";
import { VerifyWithSchema } from "../../../src/templates/primitives/verify-with";
import { expectIssue, parseOk } from "../schemas/issues";
import { check, run, score } from "./run-primitive";

describe("NumericExact", () => {
  it("compares Python float() of both sides", () => {
    expect(run("NumericExact", {}, "3.0", 3)).toEqual({ check: true, score: 1 });
    expect(run("NumericExact", {}, 3.0001, 3)).toEqual({ check: false, score: 0 });
    expect(check("NumericExact", {}, true, 1)).toBe(true);
  });
  it("treats a zero ground truth like any other (and -0 equals 0)", () => {
    expect(check("NumericExact", {}, -0, 0)).toBe(true);
    expect(check("NumericExact", {}, 0.0001, 0)).toBe(false);
  });
  it("never matches NaN, and throws on text that is not a number", () => {
    expect(check("NumericExact", {}, "nan", "nan")).toBe(false);
    expect(() => check("NumericExact", {}, "three", 3)).toThrow(/could not convert string to float: 'three'/);
  });
  it("takes no params", () => {
    expectIssue(
      VerifyWithSchema,
      { type: "NumericExact", tolerance: 0 },
      "",
      /NumericExact has no parameter "tolerance"; it takes no parameters/,
    );
  });
});

describe("NumericGraded", () => {
  const single = { cutoff: 0.1 };
  it("defaults to relative mode, linear decay, no full_credit band", () => {
    expect(parseOk(VerifyWithSchema, { type: "NumericGraded", cutoff: 0.1 }).params).toEqual({
      cutoff: 0.1,
      full_credit: null,
      mode: "relative",
      decay: "linear",
    });
  });
  it("single band: passes within the cutoff, scoring 1 − d/cutoff", () => {
    expect(run("NumericGraded", single, 100, 100)).toEqual({ check: true, score: 1 });
    expect(run("NumericGraded", single, 105, 100)).toEqual({ check: true, score: 0.5 });
    expect(run("NumericGraded", single, 95, 100)).toEqual({ check: true, score: 0.5 });
    expect(run("NumericGraded", single, 110, 100)).toEqual({ check: true, score: 0 }); // at the cutoff: gate inclusive, credit 0
    expect(run("NumericGraded", single, 111, 100)).toEqual({ check: false, score: 0 });
  });
  it("quadratic decay gives 1 − r²", () => {
    expect(score("NumericGraded", { ...single, decay: "quadratic" }, 105, 100)).toBeCloseTo(0.75, 12);
  });
  it("double band: the gate is full_credit, near misses out to the cutoff get partial credit", () => {
    const p = { cutoff: 0.2, full_credit: 0.05 };
    expect(run("NumericGraded", p, 104, 100)).toEqual({ check: true, score: 1 });
    const nearMiss = run("NumericGraded", p, 110, 100);
    expect(nearMiss.check).toBe(false);
    expect(nearMiss.score).toBeCloseTo(1 - 0.05 / 0.15, 12);
    expect(run("NumericGraded", { cutoff: 0.2, full_credit: 0 }, 100, 100)).toEqual({ check: true, score: 1 });
    expect(check("NumericGraded", { cutoff: 0.2, full_credit: 0 }, 100.1, 100)).toBe(false);
  });
  it("absolute mode measures raw units", () => {
    expect(run("NumericGraded", { cutoff: 2, mode: "absolute" }, 38, 37)).toEqual({ check: true, score: 0.5 });
  });
  it("relative mode with a zero ground truth accepts only 0", () => {
    expect(run("NumericGraded", single, 0, 0)).toEqual({ check: true, score: 1 });
    expect(run("NumericGraded", single, 0.001, 0)).toEqual({ check: false, score: 0 });
    expect(run("NumericGraded", { cutoff: 1, mode: "absolute" }, 0.5, 0)).toEqual({ check: true, score: 0.5 });
  });
  it("refuses cutoff ≤ 0 and full_credit outside [0, cutoff)", () => {
    expectIssue(VerifyWithSchema, { type: "NumericGraded" }, "cutoff", /cutoff is required/);
    expectIssue(VerifyWithSchema, { type: "NumericGraded", cutoff: 0 }, "cutoff", /cutoff must be > 0/);
    expectIssue(VerifyWithSchema, { type: "NumericGraded", cutoff: 0.1, full_credit: 0.1 }, "full_credit", /0 ≤ full_credit < cutoff/);
    expectIssue(VerifyWithSchema, { type: "NumericGraded", cutoff: 0.1, full_credit: -0.1 }, "full_credit", /0 ≤ full_credit < cutoff/);
    expectIssue(VerifyWithSchema, { type: "NumericGraded", cutoff: 0.1, decay: "cubic" }, "decay", /linear.*quadratic/);
  });
});

describe("NumericRange", () => {
  it("has inclusive bounds by default and ignores the ground truth", () => {
    const p = { min: 1, max: 5 };
    expect(run("NumericRange", p, 1, 999)).toEqual({ check: true, score: 1 });
    expect(check("NumericRange", p, 5)).toBe(true);
    expect(check("NumericRange", p, 0.99)).toBe(false);
    expect(check("NumericRange", p, "5.01")).toBe(false);
  });
  it("exclusive bounds make that side strict", () => {
    expect(check("NumericRange", { min: 1, max: 5, exclusive_min: true }, 1)).toBe(false);
    expect(check("NumericRange", { min: 1, max: 5, exclusive_min: true }, 1.0001)).toBe(true);
    expect(check("NumericRange", { min: 1, max: 5, exclusive_max: true }, 5)).toBe(false);
  });
  it("a null bound is open", () => {
    expect(check("NumericRange", { min: 0 }, 1e12)).toBe(true);
    expect(check("NumericRange", { max: 0 }, -1e12)).toBe(true);
    expect(check("NumericRange", { max: 0 }, 0.1)).toBe(false);
    expect(check("NumericRange", {}, -3)).toBe(true);
  });
  it("refuses min > max, which could never pass", () => {
    expectIssue(VerifyWithSchema, { type: "NumericRange", min: 5, max: 1 }, "max", /min must be ≤ max/);
  });
});

describe("NumericRangeGraded", () => {
  const band = { min: 10, max: 20, margin: 5 };
  it("is check = inside the band, score = 1 inside and a linear shoulder of margin outside", () => {
    expect(run("NumericRangeGraded", band, 15, null)).toEqual({ check: true, score: 1 });
    const above = run("NumericRangeGraded", band, 22, null);
    expect(above.check).toBe(false);
    expect(above.score).toBeCloseTo(0.6, 12);
    expect(score("NumericRangeGraded", band, 7)).toBeCloseTo(0.4, 12);
    expect(score("NumericRangeGraded", band, 25)).toBe(0);
    expect(score("NumericRangeGraded", band, 0)).toBe(0);
  });
  it("quadratic decay and a relative margin (a fraction of max − min)", () => {
    expect(score("NumericRangeGraded", { ...band, decay: "quadratic" }, 22)).toBeCloseTo(0.84, 12);
    expect(score("NumericRangeGraded", { min: 10, max: 20, margin: 0.5, mode: "relative" }, 22)).toBeCloseTo(0.6, 12);
  });
  it("an exclusive edge fails the gate but keeps full credit (Karenina's score ignores the flags)", () => {
    expect(run("NumericRangeGraded", { ...band, exclusive_max: true }, 20, null)).toEqual({ check: false, score: 1 });
    expect(run("NumericRangeGraded", { ...band, exclusive_min: true }, 10, null)).toEqual({ check: false, score: 1 });
  });
  it("defaults to absolute mode and refuses min ≥ max, margin ≤ 0 and missing bounds", () => {
    expect(parseOk(VerifyWithSchema, { type: "NumericRangeGraded", ...band }).params).toMatchObject({
      mode: "absolute",
      decay: "linear",
      exclusive_min: false,
      exclusive_max: false,
    });
    expectIssue(VerifyWithSchema, { type: "NumericRangeGraded", min: 5, max: 5, margin: 1 }, "max", /min < max/);
    expectIssue(VerifyWithSchema, { type: "NumericRangeGraded", min: 1, max: 5, margin: 0 }, "margin", /margin must be > 0/);
    expectIssue(VerifyWithSchema, { type: "NumericRangeGraded", max: 5, margin: 1 }, "min", /min is required/);
  });
});

describe("NumericMinimum and NumericMaximum", () => {
  it("NumericMinimum: at least the ground truth, strict with exclusive", () => {
    expect(run("NumericMinimum", {}, 18, 18)).toEqual({ check: true, score: 1 });
    expect(check("NumericMinimum", {}, 17.9, 18)).toBe(false);
    expect(check("NumericMinimum", { exclusive: true }, 18, 18)).toBe(false);
    expect(check("NumericMinimum", { exclusive: true }, "18.1", 18)).toBe(true);
    expect(check("NumericMinimum", {}, 0, 0)).toBe(true);
    expect(check("NumericMinimum", {}, -0.1, 0)).toBe(false);
  });
  it("NumericMaximum: at most the ground truth, strict with exclusive", () => {
    expect(check("NumericMaximum", {}, 5, 5)).toBe(true);
    expect(check("NumericMaximum", {}, 5.1, 5)).toBe(false);
    expect(check("NumericMaximum", { exclusive: true }, 5, 5)).toBe(false);
    expect(check("NumericMaximum", { exclusive: true }, 4.99, 5)).toBe(true);
  });
  it("throws when the threshold (ground truth) is None, as float(None) does", () => {
    expect(() => check("NumericMinimum", {}, 3, null)).toThrow(/float\(\) argument must be a string or a real number, not 'NoneType'/);
  });
});

describe("NumericThresholdGraded", () => {
  const max = { direction: "max", margin: 0.1 };
  it("direction max: full credit at or below the threshold, a relative shoulder above it", () => {
    expect(run("NumericThresholdGraded", max, 90, 100)).toEqual({ check: true, score: 1 });
    expect(run("NumericThresholdGraded", max, 100, 100)).toEqual({ check: true, score: 1 });
    const over = run("NumericThresholdGraded", max, 105, 100);
    expect(over.check).toBe(false);
    expect(over.score).toBeCloseTo(0.5, 12);
    expect(score("NumericThresholdGraded", max, 110, 100)).toBe(0);
  });
  it("direction min with an absolute margin", () => {
    const min = { direction: "min", margin: 4, mode: "absolute" };
    expect(run("NumericThresholdGraded", min, 48, 50)).toEqual({ check: false, score: 0.5 });
    expect(run("NumericThresholdGraded", min, 1e9, 50)).toEqual({ check: true, score: 1 });
    expect(score("NumericThresholdGraded", { ...min, decay: "quadratic" }, 48, 50)).toBeCloseTo(0.75, 12);
  });
  it("exclusive fails the gate at the threshold but keeps full credit", () => {
    expect(run("NumericThresholdGraded", { ...max, exclusive: true }, 100, 100)).toEqual({ check: false, score: 1 });
  });
  it("a zero threshold in relative mode has no shoulder", () => {
    expect(run("NumericThresholdGraded", max, 0.1, 0)).toEqual({ check: false, score: 0 });
    expect(run("NumericThresholdGraded", max, -5, 0)).toEqual({ check: true, score: 1 });
  });
  it("requires direction and a margin > 0", () => {
    expectIssue(VerifyWithSchema, { type: "NumericThresholdGraded", margin: 1 }, "direction", /direction is required/);
    expectIssue(VerifyWithSchema, { type: "NumericThresholdGraded", direction: "max", margin: 0 }, "margin", /margin must be > 0/);
  });
});
