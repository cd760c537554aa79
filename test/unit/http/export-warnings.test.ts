import { describe, expect, it } from "vitest";
import { warningsHeader } from "../../../src/http/export-warnings";

describe("export warnings header", () => {
  it("is ASCII JSON that reads back to the same texts", () => {
    const h = warningsHeader(['compound trait "jüry" 🎲 left out']);
    expect(h).toMatch(/^[\x20-\x7e]+$/);
    expect(JSON.parse(h)).toEqual(['compound trait "jüry" 🎲 left out']);
  });

  it("keeps what fits the budget and counts the rest", () => {
    const many = Array.from({ length: 10 }, (_, i) => `warning ${i} ${"x".repeat(20)}`);
    const h = warningsHeader(many, 100);
    expect(h.length).toBeLessThanOrEqual(100);
    const parsed = JSON.parse(h) as string[];
    expect(parsed.at(-1)).toBe(`… and ${many.length - (parsed.length - 1)} more`);
    expect(parsed.slice(0, -1)).toEqual(many.slice(0, parsed.length - 1));
    expect(parsed.length).toBeGreaterThan(1);
    expect(JSON.parse(warningsHeader(["y".repeat(500)], 100))).toEqual(["… and 1 more"]);
    expect(JSON.parse(warningsHeader(many))).toEqual(many);
  });
});
