import { describe, expect, it } from "vitest";
import { VerifyWithSchema } from "../../../src/templates/primitives/verify-with";
import { expectIssue, parseOk } from "../schemas/issues";
import { check, run } from "./run-primitive";

describe("ContainsAll", () => {
  const p = { substrings: ["BCL2", "venetoclax"], normalize: ["lowercase"] };
  it("passes only when every substring occurs, normalised, ignoring the ground truth", () => {
    expect(run("ContainsAll", p, "Venetoclax inhibits bcl2", "ignored")).toEqual({ check: true, score: 1 });
    expect(run("ContainsAll", p, "Venetoclax inhibits MCL1", null)).toEqual({ check: false, score: 0 });
  });
  it("is case sensitive without normalize", () => {
    expect(check("ContainsAll", { substrings: ["BCL2"] }, "bcl2")).toBe(false);
  });
  it("refuses an empty list (it would pass any answer)", () => {
    expectIssue(VerifyWithSchema, { type: "ContainsAll", substrings: [] }, "substrings", /at least one entry/);
  });
});

describe("RegexMatch", () => {
  it("is re.search on str(x): a match anywhere passes, the ground truth is ignored", () => {
    expect(run("RegexMatch", { pattern: "\\d+ mg" }, "take 50 mg daily", "nothing")).toEqual({ check: true, score: 1 });
    expect(check("RegexMatch", { pattern: "^42$" }, 42)).toBe(true);
    expect(check("RegexMatch", { pattern: "^True$" }, true)).toBe(true);
  });
  it("takes re flag names, long or short", () => {
    expect(check("RegexMatch", { pattern: "^bcl-?2$" }, "BCL2")).toBe(false);
    expect(check("RegexMatch", { pattern: "^bcl-?2$", flags: ["IGNORECASE"] }, "BCL2")).toBe(true);
    expect(check("RegexMatch", { pattern: "^bcl-?2$", flags: ["I"] }, "BCL2")).toBe(true);
    expect(check("RegexMatch", { pattern: "^b", flags: [] }, "a\nb")).toBe(false);
    expect(check("RegexMatch", { pattern: "^b", flags: ["MULTILINE"] }, "a\nb")).toBe(true);
    expect(check("RegexMatch", { pattern: "a.b", flags: ["DOTALL"] }, "a\nb")).toBe(true);
    expect(check("RegexMatch", { pattern: "a b  # spaces are ignored", flags: ["VERBOSE"] }, "ab")).toBe(true);
  });
  it("keeps Python semantics: $ matches before a final newline, \\w is Unicode unless ASCII", () => {
    expect(check("RegexMatch", { pattern: "done$" }, "done\n")).toBe(true);
    expect(check("RegexMatch", { pattern: "^\\w+$" }, "café")).toBe(true);
    expect(check("RegexMatch", { pattern: "^\\w+$", flags: ["ASCII"] }, "café")).toBe(false);
  });
  it("refuses unknown flag names and patterns edgeval cannot honour, at submit time", () => {
    expectIssue(VerifyWithSchema, { type: "RegexMatch", pattern: "x", flags: ["CASELESS"] }, "flags[0]", /IGNORECASE/);
    expectIssue(VerifyWithSchema, { type: "RegexMatch", pattern: "(?>x)" }, "pattern", /atomic group/);
    expectIssue(
      VerifyWithSchema,
      { type: "RegexMatch", pattern: "x", flags: ["ASCII", "UNICODE"] },
      "pattern",
      /'a' \(ASCII\) and 'u' \(UNICODE\) are incompatible/,
    );
    expectIssue(VerifyWithSchema, { type: "RegexMatch" }, "pattern", /pattern is required/);
  });
});

describe("SemanticMatch", () => {
  it("defaults threshold to 0.85 and refuses one outside [0, 1]", () => {
    expect(parseOk(VerifyWithSchema, { type: "SemanticMatch" }).params).toEqual({ threshold: 0.85 });
    expectIssue(VerifyWithSchema, { type: "SemanticMatch", threshold: 1.5 }, "threshold", /\[0, 1\]/);
  });
  it("never passes on its own: it throws so the field becomes a field_verification_error", () => {
    expect(() => check("SemanticMatch", {}, "same", "same")).toThrow("SemanticMatch is decided by the embedding check");
  });
});

describe("OrderedMatch", () => {
  it("compares element by element after lowercase + strip by default", () => {
    expect(run("OrderedMatch", {}, [" CLL", "sll"], ["cll", "SLL "])).toEqual({ check: true, score: 1 });
    expect(check("OrderedMatch", {}, ["sll", "cll"], ["cll", "sll"])).toBe(false);
    expect(check("OrderedMatch", {}, ["cll"], ["cll", "sll"])).toBe(false);
    expect(check("OrderedMatch", { normalize: [] }, ["CLL"], ["cll"])).toBe(false);
  });
  it("compares str() of items, and a string character by character (Python iterates it)", () => {
    expect(check("OrderedMatch", {}, [1, 2], ["1", "2"])).toBe(true);
    expect(check("OrderedMatch", {}, "ab", ["A", "b"])).toBe(true);
    expect(check("OrderedMatch", {}, [], [])).toBe(true);
  });
  it("throws on a value without len(), like None or a number", () => {
    expect(() => check("OrderedMatch", {}, ["a"], null)).toThrow(/object of type 'NoneType' has no len\(\)/);
    expect(() => check("OrderedMatch", {}, 3, ["3"])).toThrow(/object of type 'int' has no len\(\)/);
  });
});

describe("LiteralMatch", () => {
  it("is exact Python equality, no normalisation", () => {
    expect(run("LiteralMatch", {}, "III", "III")).toEqual({ check: true, score: 1 });
    expect(check("LiteralMatch", {}, "iii", "III")).toBe(false);
    expect(check("LiteralMatch", {}, "III ", "III")).toBe(false);
  });
  it("follows Python's == across types: 1 == 1.0 == True, '1' != 1, None == None", () => {
    expect(check("LiteralMatch", {}, 1, true)).toBe(true);
    expect(check("LiteralMatch", {}, "1", 1)).toBe(false);
    expect(check("LiteralMatch", {}, null, null)).toBe(true);
    expect(check("LiteralMatch", {}, ["a", 1], ["a", 1.0])).toBe(true);
  });
});
