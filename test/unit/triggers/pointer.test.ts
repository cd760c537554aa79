import { describe, expect, it } from "vitest";
import { POINTER_PATTERN } from "../../../src/schemas/triggers";
import { resolvePointer } from "../../../src/triggers/pointer";

describe("RFC 6901 JSON Pointer", () => {
  // RFC 6901 §5's example document.
  const doc = { foo: ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, 'k"l': 6, " ": 7, "m~n": 8 };

  it("resolves every example of RFC 6901 §5", () => {
    const cases: [string, unknown][] = [
      ["", doc],
      ["/foo", ["bar", "baz"]],
      ["/foo/0", "bar"],
      ["/", 0],
      ["/a~1b", 1],
      ["/c%d", 2],
      ["/e^f", 3],
      ["/g|h", 4],
      ["/i\\j", 5],
      ['/k"l', 6],
      ["/ ", 7],
      ["/m~0n", 8],
    ];
    for (const [p, v] of cases) expect(resolvePointer(doc, p), p).toEqual({ found: true, value: v });
  });

  it("finds nothing past an array's end, at a leading-zero index, at '-', or through a primitive; no prototype keys", () => {
    for (const p of ["/foo/2", "/foo/01", "/foo/-", "/foo/0/x", "/nope", "/constructor", "/__proto__"])
      expect(resolvePointer(doc, p).found, p).toBe(false);
  });

  it("accepts only pointer syntax", () => {
    for (const ok of ["", "/", "/a/0", "/a~0b~1c"]) expect(POINTER_PATTERN.test(ok), ok).toBe(true);
    for (const bad of ["a", "#/a", "/a~2", "/~"]) expect(POINTER_PATTERN.test(bad), bad).toBe(false);
  });
});
