import { describe, expect, it } from "vitest";
import { applyNormalizers } from "../../../src/templates";
import { Normalizer } from "../../../src/templates/normalizers";
import { issuesOf } from "../schemas/issues";
import { pyFloat, pyRepr, pyStr, pyTitle } from "../../../src/templates/python";

describe("normalizers", () => {
  it("lowercase lowers the text", () => expect(applyNormalizers(["lowercase"], "BCL-2 Gene")).toBe("bcl-2 gene"));
  it("strip removes surrounding whitespace only", () => expect(applyNormalizers(["strip"], "  a  b \n")).toBe("a  b"));
  it("remove_punctuation removes Python's string.punctuation (ASCII)", () => {
    expect(applyNormalizers(["remove_punctuation"], "B-cell (CLL), «ok»!")).toBe("Bcell CLL «ok»");
  });
  it("collapse_whitespace turns runs of whitespace into one space and strips", () => {
    expect(applyNormalizers(["collapse_whitespace"], " a \t\n b  c ")).toBe("a b c");
  });
  it("a synonym map replaces only an exact whole-string key", () => {
    const syn = { mapping: { "bcl-2": "bcl2" } };
    expect(applyNormalizers([syn], "bcl-2")).toBe("bcl2");
    expect(applyNormalizers([syn], "the bcl-2 gene")).toBe("the bcl-2 gene");
    expect(applyNormalizers([syn], "BCL-2")).toBe("BCL-2");
    expect(applyNormalizers(["lowercase", syn], "BCL-2")).toBe("bcl2");
  });
  it("accepts a name or a string-to-string mapping, and says what a normalizer is otherwise", () => {
    expect(Normalizer.parse("strip")).toBe("strip");
    expect(Normalizer.parse({ mapping: { a: "b" } })).toEqual({ mapping: { a: "b" } });
    const message = 'a normalizer is one of "lowercase", "strip", "remove_punctuation", "collapse_whitespace" or {"mapping": {...}}';
    for (const bad of ["upper", { mapping: 5 }, { mapping: { a: 1 } }, 5]) {
      expect(issuesOf(Normalizer, bad)).toEqual([{ path: "", message }]);
    }
    expect(issuesOf(Normalizer, { mapping: {}, extra: 1 })).toEqual([{ path: "", message: 'Unrecognized key: "extra"' }]);
  });
  it("applies normalizers in order", () => {
    expect(applyNormalizers(["remove_punctuation", "collapse_whitespace", "lowercase"], " Hello ,  World! ")).toBe("hello world");
  });
});

describe("Python value semantics", () => {
  it("str() spells None, True and lists the Python way", () => {
    expect(pyStr(null)).toBe("None");
    expect(pyStr(false)).toBe("False");
    expect(pyStr(["a", "b's"])).toBe(`['a', "b's"]`);
  });
  it("repr() quotes strings", () => expect(pyRepr("x")).toBe("'x'"));
  it("float() accepts Python float literals and rejects the rest", () => {
    expect(pyFloat("1_000.5")).toBe(1000.5);
    expect(pyFloat("-inf")).toBe(-Infinity);
    expect(pyFloat(true)).toBe(1);
    expect(() => pyFloat("12 mg")).toThrow(/could not convert string to float: '12 mg'/);
    expect(() => pyFloat(null)).toThrow(/NoneType/);
  });
  it("title() matches Pydantic's property titles", () => {
    expect(pyTitle("gene_symbol")).toBe("Gene Symbol");
    expect(pyTitle("mrna2vaccine")).toBe("Mrna2Vaccine");
  });
});
