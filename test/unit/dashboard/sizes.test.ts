import { describe, expect, it } from "vitest";
import { exactBytes, humanBytes } from "../../../src/dashboard/sizes";

describe("an export's size for people", () => {
  it("reads in bytes, kB, MB and GB with three significant digits", () => {
    expect([0, 1, 999, 1000, 12_345, 123_456, 999_499, 999_500, 4_567_890, 2_500_000_000].map(humanBytes)).toEqual([
      "0 bytes",
      "1 byte",
      "999 bytes",
      "1.00 kB",
      "12.3 kB",
      "123 kB",
      "999 kB",
      "1.00 MB",
      "4.57 MB",
      "2.50 GB",
    ]);
  });

  it("gives the exact count with thousands separators for the title", () => {
    expect([1, 999, 1000, 1_234_567].map(exactBytes)).toEqual(["1 byte", "999 bytes", "1,000 bytes", "1,234,567 bytes"]);
  });
});
