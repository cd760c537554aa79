import { describe, expect, it } from "vitest";
import { PRIMITIVES } from "../../../src/templates";
import { VerifyWithSchema } from "../../../src/templates/primitives/verify-with";
import { expectIssue, parseOk } from "../schemas/issues";

/** Parse params through the registry (defaults applied), then check/score. */
function run(type: keyof typeof PRIMITIVES, params: Record<string, unknown>, extracted: unknown, gt: unknown) {
  const vw = parseOk(VerifyWithSchema, { type, params });
  const p = PRIMITIVES[type] as unknown as {
    check(x: unknown, g: unknown, p: unknown): boolean;
    score(x: unknown, g: unknown, p: unknown): number;
  };
  return { check: p.check(extracted, gt, vw.params), score: p.score(extracted, gt, vw.params) };
}

describe("BooleanMatch", () => {
  it("passes when both sides have the same truth value and scores 1", () => {
    expect(run("BooleanMatch", {}, true, true)).toEqual({ check: true, score: 1 });
    expect(run("BooleanMatch", {}, false, false)).toEqual({ check: true, score: 1 });
  });
  it("fails a mismatch and scores 0", () => {
    expect(run("BooleanMatch", {}, false, true)).toEqual({ check: false, score: 0 });
  });
  it("matches null only with null", () => {
    expect(run("BooleanMatch", {}, null, null).check).toBe(true);
    expect(run("BooleanMatch", {}, false, null).check).toBe(false);
    expect(run("BooleanMatch", {}, null, false).check).toBe(false);
  });
  it("uses Python truthiness, so a non-empty string is true", () => {
    expect(run("BooleanMatch", {}, "no", true).check).toBe(true);
    expect(run("BooleanMatch", {}, 0, false).check).toBe(true);
  });
  it("takes no params", () => {
    expectIssue(
      VerifyWithSchema,
      { type: "BooleanMatch", params: { strict: true } },
      "params",
      /BooleanMatch has no parameter "strict"; it takes no parameters/,
    );
  });
});

describe("ExactMatch", () => {
  it("defaults to lowercase + strip", () => {
    expect(parseOk(VerifyWithSchema, { type: "ExactMatch" }).params).toEqual({ normalize: ["lowercase", "strip"] });
    expect(run("ExactMatch", {}, "  BCL2 ", "bcl2")).toEqual({ check: true, score: 1 });
  });
  it("compares exactly with normalize []", () => {
    expect(run("ExactMatch", { normalize: [] }, "BCL2", "bcl2").check).toBe(false);
  });
  it("applies a synonym map after lowercasing", () => {
    const params = { normalize: ["lowercase", { mapping: { "bcl-2": "bcl2" } }] };
    expect(run("ExactMatch", params, "BCL-2", "bcl2").check).toBe(true);
  });
  it("compares Python str() of non-strings, so null is 'None'", () => {
    expect(run("ExactMatch", {}, 18, 18).check).toBe(true);
    expect(run("ExactMatch", {}, "none", null).check).toBe(true);
    expect(run("ExactMatch", {}, true, "True").check).toBe(true);
  });
  it("rejects an unknown normalizer with the list of known ones", () => {
    expectIssue(
      VerifyWithSchema,
      { type: "ExactMatch", params: { normalize: ["upper"] } },
      "params.normalize[0]",
      /lowercase.*strip.*remove_punctuation.*collapse_whitespace/,
    );
  });
});

describe("ContainsAny", () => {
  it("passes when one substring occurs and ignores the ground truth", () => {
    expect(run("ContainsAny", { substrings: ["mrna", "messenger rna"], normalize: ["lowercase"] }, "An mRNA vaccine", "x")).toEqual({
      check: true,
      score: 1,
    });
  });
  it("is case sensitive by default (normalize [])", () => {
    expect(run("ContainsAny", { substrings: ["mrna"] }, "An mRNA vaccine", null).check).toBe(false);
  });
  it("fails when no substring occurs", () => {
    expect(run("ContainsAny", { substrings: ["spike"] }, "nucleocapsid", null)).toEqual({ check: false, score: 0 });
  });
  it("requires substrings", () => {
    expectIssue(VerifyWithSchema, { type: "ContainsAny", params: {} }, "params.substrings", /substrings must be a list of strings/);
    expectIssue(VerifyWithSchema, { type: "ContainsAny", params: { substrings: [] } }, "params.substrings", /at least one/);
  });
});

describe("NumericTolerance", () => {
  it("is relative by default: |x-gt|/|gt| <= tolerance", () => {
    expect(run("NumericTolerance", { tolerance: 0.1 }, 105, 100).check).toBe(true);
    expect(run("NumericTolerance", { tolerance: 0.1 }, 111, 100)).toEqual({ check: false, score: 0 });
  });
  it("accepts only an exact value when the ground truth is 0 in relative mode", () => {
    expect(run("NumericTolerance", { tolerance: 0.5 }, 0, 0).check).toBe(true);
    expect(run("NumericTolerance", { tolerance: 0.5 }, 0.001, 0).check).toBe(false);
  });
  it("absolute mode compares the difference with the tolerance", () => {
    expect(run("NumericTolerance", { tolerance: 0.5, mode: "absolute" }, 37.4, 37).check).toBe(true);
    expect(run("NumericTolerance", { tolerance: 0.5, mode: "absolute" }, 37.6, 37).check).toBe(false);
  });
  it("converts numeric strings like Python float()", () => {
    expect(run("NumericTolerance", { tolerance: 0.5, mode: "absolute" }, " 37.2 ", 37).check).toBe(true);
  });
  it("throws on text that is not a number (Python would raise)", () => {
    expect(() => run("NumericTolerance", { tolerance: 0.5 }, "about 37", 37)).toThrow(/could not convert string to float/);
  });
  it("requires tolerance and rejects an unknown mode", () => {
    expectIssue(VerifyWithSchema, { type: "NumericTolerance", params: { mode: "absolute" } }, "params.tolerance", /tolerance is required/);
    expectIssue(
      VerifyWithSchema,
      { type: "NumericTolerance", params: { tolerance: 1, mode: "percent" } },
      "params.mode",
      /relative.*absolute/,
    );
  });
});

describe("SetContainment", () => {
  const gt = ["CLL", "SLL", "AML"];
  it("defaults to exact set equality, ignoring order and duplicates", () => {
    expect(run("SetContainment", {}, ["AML", "CLL", "SLL", "CLL"], gt)).toEqual({ check: true, score: 1 });
    expect(run("SetContainment", {}, ["AML", "CLL"], gt).check).toBe(false);
  });
  it("is case sensitive (no normalisation)", () => {
    expect(run("SetContainment", {}, ["cll", "SLL", "AML"], gt).check).toBe(false);
  });
  it("subset, superset and overlap modes", () => {
    expect(run("SetContainment", { mode: "subset" }, ["CLL"], gt).check).toBe(true);
    expect(run("SetContainment", { mode: "subset" }, ["CLL", "X"], gt).check).toBe(false);
    expect(run("SetContainment", { mode: "superset" }, [...gt, "X"], gt).check).toBe(true);
    expect(run("SetContainment", { mode: "overlap" }, ["CLL", "X"], gt).check).toBe(true);
    expect(run("SetContainment", { mode: "overlap", min_overlap: 2 }, ["CLL", "X"], gt).check).toBe(false);
  });
  it("throws on a value Python's set() cannot take", () => {
    expect(() => run("SetContainment", {}, 5, gt)).toThrow(/not iterable/);
  });
  it("rejects min_overlap 0 and unknown modes", () => {
    expectIssue(VerifyWithSchema, { type: "SetContainment", params: { min_overlap: 0 } }, "params.min_overlap", /≥ 1/);
    expectIssue(VerifyWithSchema, { type: "SetContainment", params: { mode: "equal" } }, "params.mode", /exact.*subset.*superset.*overlap/);
  });
});

describe("verify_with", () => {
  it("names all 23 known primitives when the type is unknown", () => {
    expectIssue(
      VerifyWithSchema,
      { type: "FuzzyMatch" },
      "type",
      /unknown primitive "FuzzyMatch"; known primitives: BooleanMatch, ExactMatch, .*, TraceLength$/,
    );
    expect(Object.keys(PRIMITIVES)).toHaveLength(23);
  });
  it("accepts Karenina's flat params and reports their paths as written", () => {
    expect(parseOk(VerifyWithSchema, { type: "NumericTolerance", tolerance: 0.5 })).toEqual({
      type: "NumericTolerance",
      params: { tolerance: 0.5, mode: "relative" },
    });
    expectIssue(
      VerifyWithSchema,
      { type: "NumericTolerance", tolerance: 0.5, tol: 1 },
      "",
      /NumericTolerance has no parameter "tol"; its parameters are tolerance, mode/,
    );
  });
  it("refuses params given both nested and flat", () => {
    expectIssue(
      VerifyWithSchema,
      { type: "NumericTolerance", params: { tolerance: 1 }, mode: "absolute" },
      "mode",
      /either inside "params" or beside "type"/,
    );
  });
});
