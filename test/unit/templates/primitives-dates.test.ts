import { describe, expect, it } from "vitest";
import dateutilCases from "./dateutil-cases.json";
import strptimeCases from "./strptime-cases.json";
import { parseDateutil } from "../../../src/templates/dateutil";
import { strptime } from "../../../src/templates/strptime";
import { VerifyWithSchema } from "../../../src/templates/primitives/verify-with";
import { expectIssue } from "../schemas/issues";
import { check, run } from "./run-primitive";

const ymd = (s: string) => {
  const d = parseDateutil(s);
  return [d.year, d.month, d.day];
};

describe("dateutil-like parsing", () => {
  it.each([
    ["2021-03-05", [2021, 3, 5]],
    ["2021-03-05T23:30:00.250-05:00", [2021, 3, 5]],
    ["March 5, 2021", [2021, 3, 5]],
    ["Mar. 5 2021", [2021, 3, 5]],
    ["Friday, March 5th, 2021", [2021, 3, 5]],
    ["5 March 2021", [2021, 3, 5]],
    ["05-Mar-2021", [2021, 3, 5]],
    ["2021 March 5", [2021, 3, 5]],
    ["2021/03/05", [2021, 3, 5]],
    ["2021.03.05", [2021, 3, 5]],
    ["03/05/2021", [2021, 3, 5]], // month first, as dateutil's default
    ["05/03/2021", [2021, 5, 3]],
    ["13/03/2021", [2021, 3, 13]], // 13 cannot be a month, so day first
    ["3/5/21", [2021, 3, 5]],
    ["3/5/99", [1999, 3, 5]],
    ["20210305", [2021, 3, 5]],
    ["March 2021", [2021, 3, 1]],
    ["2021", [2021, 1, 1]],
  ])("%s → %j", (text, expected) => {
    expect(ymd(text)).toEqual(expected);
  });
  it("reads times, am/pm and zones", () => {
    expect(parseDateutil("March 5, 2021 10:30 pm")).toMatchObject({ hour: 22, minute: 30, offsetMinutes: null });
    expect(parseDateutil("2021-03-05 12:00 AM")).toMatchObject({ hour: 0 });
    expect(parseDateutil("5 Mar 2021 10:30:15.5 UTC")).toMatchObject({ second: 15, microsecond: 500000, offsetMinutes: 0 });
    expect(parseDateutil("2021-03-05 10:30 +0530")).toMatchObject({ offsetMinutes: 330 });
    expect(parseDateutil("2021-03-05T10:30:00Z")).toMatchObject({ offsetMinutes: 0 });
  });
  it.each(["sometime in spring", "None", "", "2021-02-30", "March 5, 2021 at noonish", "1/2/3/4"])("refuses %j", (text) => {
    expect(() => parseDateutil(text)).toThrow();
  });
});

/**
 * `dateutil-cases.json` is real dateutil 2.9.0 output: `parser.parse(s, default=datetime(2000, 1, 1))`
 * → [year, month, day, hour, minute, second, microsecond, utc offset minutes | null], or "ERR <type>"
 * where dateutil raises. (The fixed default stands in for "today", which verification cannot read.)
 */
describe("parseDateutil agrees with python-dateutil", () => {
  it.each(dateutilCases as [string, unknown][])("%j", (text, expected) => {
    if (typeof expected === "string") {
      expect(() => parseDateutil(text)).toThrow();
      return;
    }
    const d = parseDateutil(text);
    expect([d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond, d.offsetMinutes]).toEqual(expected);
  });
});

/** `strptime-cases.json`: CPython 3.11 `datetime.strptime(value, format)` on generated values, or "ERR". */
describe("strptime agrees with CPython", () => {
  it.each(strptimeCases as [string, string, unknown][])("%j with %j", (value, format, expected) => {
    if (expected === "ERR") {
      expect(() => strptime(value, format)).toThrow();
      return;
    }
    const d = strptime(value, format);
    expect([d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond, d.offsetMinutes]).toEqual(expected);
  });
});

describe("strptime", () => {
  it("uses Python's per-directive patterns, case-insensitive names and full matches", () => {
    expect(strptime("5/3/2021", "%d/%m/%Y")).toMatchObject({ year: 2021, month: 3, day: 5 });
    expect(strptime("march 5,   2021", "%B %d, %Y")).toMatchObject({ month: 3, day: 5 });
    expect(strptime("05 Mar 21 10:30 PM", "%d %b %y %I:%M %p")).toMatchObject({ year: 2021, hour: 22 });
    expect(() => strptime("2021-03-05x", "%Y-%m-%d")).toThrow(/does not match/);
    expect(strptime("2021-064", "%Y-%j")).toMatchObject({ month: 3, day: 5 });
    expect(strptime("10:30", "%H:%M")).toMatchObject({ year: 1900, month: 1, day: 1 });
  });
});

describe("DateMatch", () => {
  it("compares calendar dates across formats", () => {
    expect(run("DateMatch", {}, "March 5, 2021", "2021-03-05")).toEqual({ check: true, score: 1 });
    expect(check("DateMatch", {}, "5 March 2021", "2021-03-05")).toBe(true);
    expect(check("DateMatch", {}, "2021/03/05", "03/05/2021")).toBe(true);
    expect(check("DateMatch", {}, "05/03/2021", "2021-03-05")).toBe(false);
    expect(check("DateMatch", {}, "2021-03-05T23:30:00-05:00", "2021-03-05")).toBe(true); // .date() of each, no zone conversion
    expect(check("DateMatch", {}, "March 6, 2021", "2021-03-05")).toBe(false);
  });
  it("gives false (not an error) when either side does not parse, including a None ground truth", () => {
    expect(run("DateMatch", {}, "early spring", "2021-03-05")).toEqual({ check: false, score: 0 });
    expect(check("DateMatch", {}, "2021-03-05", null)).toBe(false);
    expect(check("DateMatch", {}, "February 30, 2021", "2021-03-02")).toBe(false);
  });
  it("with format, parses both sides with strptime", () => {
    expect(check("DateMatch", { format: "%d/%m/%Y" }, "05/03/2021", "5/3/2021")).toBe(true);
    expect(check("DateMatch", { format: "%d/%m/%Y" }, "05/03/2021", "2021-03-05")).toBe(false);
  });
  it("refuses a format directive edgeval does not support", () => {
    expectIssue(VerifyWithSchema, { type: "DateMatch", format: "%d/%m/%Q" }, "format", /"%Q" is not a supported strptime directive/);
  });
});

describe("DateTolerance", () => {
  it("accepts a difference up to the tolerance, inclusive, in days by default", () => {
    expect(run("DateTolerance", { tolerance: 30 }, "2021-04-04", "2021-03-05")).toEqual({ check: true, score: 1 });
    expect(check("DateTolerance", { tolerance: 30 }, "2021-04-05", "2021-03-05")).toBe(false);
    expect(check("DateTolerance", { tolerance: 30 }, "February 3, 2021", "2021-03-05")).toBe(true);
    expect(check("DateTolerance", { tolerance: 0 }, "March 5, 2021", "2021-03-05")).toBe(true);
  });
  it("hours and minutes", () => {
    expect(check("DateTolerance", { tolerance: 2, unit: "hours" }, "2021-03-05 10:00", "2021-03-05T12:30")).toBe(false);
    expect(check("DateTolerance", { tolerance: 3, unit: "hours" }, "2021-03-05 10:00", "2021-03-05T12:30")).toBe(true);
    expect(check("DateTolerance", { tolerance: 0, unit: "minutes" }, "2021-03-05T10:00+02:00", "2021-03-05T08:00Z")).toBe(true);
  });
  it("fails a zoned date against a naive one (Python cannot subtract them) and unparseable dates", () => {
    expect(check("DateTolerance", { tolerance: 1 }, "2021-03-05T10:00Z", "2021-03-05 10:00")).toBe(false);
    expect(check("DateTolerance", { tolerance: 1 }, "soon", "2021-03-05")).toBe(false);
  });
  it("requires an integer tolerance and a known unit", () => {
    expectIssue(VerifyWithSchema, { type: "DateTolerance" }, "tolerance", /tolerance is required/);
    expectIssue(VerifyWithSchema, { type: "DateTolerance", tolerance: 1.5 }, "tolerance", /integer/);
    expectIssue(VerifyWithSchema, { type: "DateTolerance", tolerance: 1, unit: "weeks" }, "unit", /days.*hours.*minutes/);
  });
});

describe("DateRange", () => {
  const year2020 = { min: "2020-01-01", max: "2020-12-31" };
  it("has inclusive bounds and ignores the ground truth", () => {
    expect(run("DateRange", year2020, "June 1, 2020", "1999-01-01")).toEqual({ check: true, score: 1 });
    expect(check("DateRange", year2020, "2020-12-31")).toBe(true);
    expect(check("DateRange", year2020, "2020-01-01")).toBe(true);
    expect(check("DateRange", year2020, "2021-01-01")).toBe(false);
    expect(check("DateRange", year2020, "2019-12-31")).toBe(false);
  });
  it("compares datetimes, so a time on the max day is past a date-only max (as in Python)", () => {
    expect(check("DateRange", year2020, "2020-12-31T10:00")).toBe(false);
  });
  it("a missing bound is open; unparseable or zoned-vs-naive answers fail", () => {
    expect(check("DateRange", { min: "2020-01-01" }, "3020-01-01")).toBe(true);
    expect(check("DateRange", year2020, "mid 2020")).toBe(false);
    expect(check("DateRange", year2020, "2020-06-01T00:00Z")).toBe(false);
  });
  it("refuses a bound that does not parse", () => {
    expectIssue(VerifyWithSchema, { type: "DateRange", min: "the epoch" }, "min", /min is not a date edgeval can read/);
  });
});
