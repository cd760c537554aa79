import { describe, expect, it } from "vitest";
import type { RegexCheck } from "../../../src/templates/template-schema";
import { findAll, runRegexChecks, validateRegexPattern } from "../../../src/templates";

const check = (c: Partial<RegexCheck> & Pick<RegexCheck, "pattern" | "expected">): RegexCheck => ({ name: "c", match_type: "exact", ...c });
const TRACE = "Venetoclax targets BCL2 (trial NCT01328626, NCT02203773). BCL2 is anti-apoptotic.";

describe("match types", () => {
  it("exact passes on exactly one match equal to expected", () => {
    const r = runRegexChecks([check({ pattern: "anti-\\w+", expected: "anti-apoptotic" })], TRACE);
    expect(r.success).toBe(true);
    expect(r.details.c).toMatchObject({ matches_found: ["anti-apoptotic"], match_count: 1, success_reason: "Single exact match found" });
  });
  it("exact fails on two matches, with Karenina's wording and Python reprs", () => {
    const r = runRegexChecks([check({ pattern: "BCL2", expected: "BCL2" })], TRACE);
    expect(r.results.c).toBe(false);
    expect(r.details.c!.failure_reason).toBe("Expected exactly one match of 'BCL2', got 2 matches: ['BCL2', 'BCL2']");
  });
  it("contains passes when expected is among the matches", () => {
    const r = runRegexChecks([check({ pattern: "NCT\\d{8}", expected: "NCT02203773", match_type: "contains" })], TRACE);
    expect(r.results.c).toBe(true);
  });
  it("count compares the number of matches", () => {
    expect(runRegexChecks([check({ pattern: "NCT\\d{8}", expected: 2, match_type: "count" })], TRACE).success).toBe(true);
    const r = runRegexChecks([check({ pattern: "NCT\\d{8}", expected: 3, match_type: "count" })], TRACE);
    expect(r.details.c!.failure_reason).toBe("Expected 3 matches, got 2");
  });
  it("all needs every expected item among the matches", () => {
    const ok = runRegexChecks([check({ pattern: "NCT\\d{8}", expected: ["NCT01328626", "NCT02203773"], match_type: "all" })], TRACE);
    expect(ok.success).toBe(true);
    const bad = runRegexChecks([check({ pattern: "NCT\\d{8}", expected: ["NCT01328626", "NCT99999999"], match_type: "all" })], TRACE);
    expect(bad.details.c!.failure_reason).toBe("Missing expected items: ['NCT99999999']");
  });
  it("exact fails on one match that is not the expected one", () => {
    const r = runRegexChecks([check({ pattern: "anti-\\w+", expected: "anti-cancer" })], TRACE);
    expect(r.details.c!.failure_reason).toBe("Expected exactly one match of 'anti-cancer', got 1 matches: ['anti-apoptotic']");
  });
  it("words each verdict as Karenina does", () => {
    const reasons = (c: RegexCheck) => {
      const d = runRegexChecks([c], TRACE).details.c!;
      return [d.success_reason, d.failure_reason];
    };
    expect(reasons(check({ pattern: "NCT\\d{8}", expected: "NCT02203773", match_type: "contains" }))).toEqual([
      "Expected pattern 'NCT02203773' found in matches",
      undefined,
    ]);
    expect(reasons(check({ pattern: "NCT\\d{8}", expected: "NCT0", match_type: "contains" }))).toEqual([
      undefined,
      "Expected pattern 'NCT0' not found in matches: ['NCT01328626', 'NCT02203773']",
    ]);
    expect(reasons(check({ pattern: "NCT\\d{8}", expected: 2, match_type: "count" }))).toEqual([
      "Found exactly 2 matches as expected",
      undefined,
    ]);
    expect(reasons(check({ pattern: "NCT\\d{8}", expected: ["NCT02203773"], match_type: "all" }))).toEqual([
      "All expected items found in matches",
      undefined,
    ]);
  });
  it("reports per-check results, the overall AND, and the matches as extraction results", () => {
    const r = runRegexChecks(
      [
        check({ name: "trials", pattern: "NCT\\d{8}", expected: 2, match_type: "count" }),
        check({ name: "drug", pattern: "ibrutinib", expected: "ibrutinib" }),
      ],
      TRACE,
    );
    expect(r.results).toEqual({ trials: true, drug: false });
    expect(r.success).toBe(false);
    expect(r.extraction_results).toEqual({ trials: ["NCT01328626", "NCT02203773"], drug: [] });
  });
  it("an empty list of checks succeeds", () => expect(runRegexChecks([], TRACE).success).toBe(true));
});

describe("Python re.findall semantics", () => {
  it("returns the group when the pattern has one group", () => {
    expect(findAll("NCT(\\d{8})", TRACE)).toEqual(["01328626", "02203773"]);
  });
  it("returns lists of groups when there are several, '' for a group that did not take part", () => {
    expect(findAll("(\\w+)@(\\w+)\\.com", "a@b.com c@d.com")).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
    expect(findAll("(a)|(b)", "ab")).toEqual([
      ["a", ""],
      ["", "b"],
    ]);
  });
  it("so an exact check on a grouped pattern compares the group", () => {
    expect(runRegexChecks([check({ pattern: "targets (\\w+)", expected: "BCL2" })], TRACE).success).toBe(true);
  });
  it("keeps Python's Unicode \\w, \\d and \\b", () => {
    expect(findAll("\\w+", "café 日本")).toEqual(["café", "日本"]);
    expect(findAll("\\d", "١2")).toEqual(["١", "2"]);
    expect(findAll("\\bcafé\\b", "un café noir")).toEqual(["café"]);
    expect(findAll("(?a)\\w+", "café")).toEqual(["caf"]);
  });
  it("translates Python-only syntax", () => {
    expect(findAll("(?i)nct(?P<num>\\d+)", "NCT12 nct3")).toEqual(["12", "3"]);
    expect(findAll("(?P<w>[A-Z]+)-(?P=w)", "AB-AB CD-EF")).toEqual(["AB"]);
    expect(findAll("(?x) NCT \\d{2}  # trial prefix\n", "NCT12")).toEqual(["NCT12"]);
    expect(findAll("(?#comment)x{,2}", "xxx")).toEqual(["xx", "x", ""]);
    expect(findAll("(?s)a.c", "a\nc")).toEqual(["a\nc"]);
    expect(findAll("a.c", "a\nc a\rc")).toEqual(["a\rc"]);
    expect(findAll("ab$", "ab\n")).toEqual(["ab"]);
    expect(findAll("(?m)^\\w+$", "ab\ncd")).toEqual(["ab", "cd"]);
    expect(findAll("\\Aab\\Z", "ab")).toEqual(["ab"]);
    expect(findAll("\\:\\#", ":#")).toEqual([":#"]);
    expect(findAll("a{ b}", "a{ b}")).toEqual(["a{ b}"]);
    expect(findAll("[\\W_]+", "a_b-c")).toEqual(["_", "-"]);
  });
});

describe("patterns edgeval cannot honour", () => {
  it.each([
    ["(?>a)", /atomic group/],
    ["a++", /possessive quantifier/],
    ["(a)(?(1)b|c)", /conditional group/],
    ["(?i:a)b", /scoped inline flags/],
    ["a(?i)", /global flags not at the start/],
    ["\\N{DIGIT ONE}", /named characters/],
    ["(?<n>a)", /write \(\?P<name>/],
    ["\\p{L}", /bad escape \\p/],
    ["(unclosed", /missing \), unterminated subpattern at position 0/],
    ["(?<=a+)b", /look-behind requires fixed-width pattern/],
    ["\\2(a)(b)", /invalid group reference 2 at position 1/],
  ])("refuses %s with a message naming the construct", (pattern, message) => {
    expect(validateRegexPattern(pattern)).toMatch(message);
  });
  it("accepts what it can translate", () => {
    expect(validateRegexPattern("(?i)(?P<id>NCT\\d{8})")).toBeNull();
  });
  it("fails the check with failure_reason instead of throwing", () => {
    const r = runRegexChecks([check({ pattern: "(?>a)", expected: "a" })], "a");
    expect(r.success).toBe(false);
    expect(r.details.c).toMatchObject({
      matches_found: [],
      match_count: 0,
      failure_reason: expect.stringMatching(/^invalid pattern: atomic group/),
    });
  });
});
