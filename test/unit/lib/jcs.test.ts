import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/lib/jcs";

describe("canonicalJson (RFC 8785)", () => {
  it("matches RFC 8785 §3.2.4's example: numbers, escapes, key order", () => {
    const text = String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`;
    expect(canonicalJson(JSON.parse(text))).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });

  it("sorts keys by UTF-16 code units (RFC 8785 §3.2.3's example)", () => {
    const text = String.raw`{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}`;
    // Read the values off the text: JSON.parse would put the integer-like key "1" first again.
    const values = [...canonicalJson(JSON.parse(text)).matchAll(/:"([^"]*)"/g)].map((m) => m[1]);
    expect(values).toEqual([
      "Carriage Return",
      "One",
      "Control",
      "Latin Small Letter O With Diaeresis",
      "Euro Sign",
      "Emoji: Grinning Face",
      "Hebrew Letter Dalet With Dagesh",
    ]);
  });

  it("gives pretty-printed and reordered texts of one value the same form, and other values another", () => {
    const a = { b: [1, { y: 2, x: "é" }], a: null };
    const compact = canonicalJson(JSON.parse(JSON.stringify(a)));
    expect(canonicalJson(JSON.parse(JSON.stringify(a, null, 2)))).toBe(compact);
    expect(canonicalJson(JSON.parse('{"a":null,"b":[1.0,{"x":"\\u00e9","y":2e0}]}'))).toBe(compact);
    expect(canonicalJson({ ...a, a: 0 })).not.toBe(compact);
    expect(canonicalJson({ b: [{ y: 2, x: "é" }, 1], a: null })).not.toBe(compact);
  });

  it("writes -0 as 0 and refuses values JSON cannot hold", () => {
    expect(canonicalJson([-0])).toBe("[0]");
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });
});
