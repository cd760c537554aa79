import { describe, expect, it } from "vitest";
import { cronMatches, minuteOf, parseCron } from "../../../src/lib/cron";

const at = (iso: string) => Date.parse(iso);
const cron = (e: string) => {
  const p = parseCron(e);
  if (!p.ok) throw new Error(p.message);
  return p.cron;
};

describe("cron", () => {
  it("matches minutes, hours, steps, ranges and lists in UTC", () => {
    expect(cronMatches(cron("* * * * *"), at("2026-11-24T20:31:59Z"))).toBe(true);
    const c = cron("*/15 9-17 * * 1-5");
    expect(cronMatches(c, at("2026-11-24T09:45:00Z"))).toBe(true); // Tuesday
    expect(cronMatches(c, at("2026-11-24T09:46:00Z"))).toBe(false);
    expect(cronMatches(c, at("2026-11-24T18:00:00Z"))).toBe(false);
    expect(cronMatches(c, at("2026-11-29T10:00:00Z"))).toBe(false); // Sunday
    expect(cronMatches(cron("0 0 1,15 * *"), at("2026-11-15T00:00:00Z"))).toBe(true);
    expect(cronMatches(cron("30 2 * * 7"), at("2026-11-29T02:30:00Z"))).toBe(true); // 7 is Sunday too
  });

  it("with both day fields restricted, either day matches (Vixie cron)", () => {
    const c = cron("0 12 1 * 1");
    expect(cronMatches(c, at("2026-12-01T12:00:00Z"))).toBe(true); // the 1st, a Tuesday
    expect(cronMatches(c, at("2026-11-30T12:00:00Z"))).toBe(true); // a Monday
    expect(cronMatches(c, at("2026-12-02T12:00:00Z"))).toBe(false);
  });

  it("refuses bad expressions naming the field", () => {
    expect(parseCron("* * * *")).toMatchObject({ ok: false, field: "expression" });
    expect(parseCron("60 * * * *")).toMatchObject({ ok: false, field: "minute" });
    expect(parseCron("* 5-2 * * *")).toMatchObject({ ok: false, field: "hour" });
    expect(parseCron("* * 0 * *")).toMatchObject({ ok: false, field: "day_of_month" });
    expect(parseCron("* * * JAN *")).toMatchObject({ ok: false, field: "month" });
    expect(parseCron("*/0 * * * *")).toMatchObject({ ok: false, field: "minute" });
  });

  it("refuses a day of the month that none of its months has: the schedule would never run", () => {
    for (const e of ["0 3 31 2 *", "0 3 30 2 *", "0 3 31 4,6,9,11 *", "0 3 30-31 2 *"]) {
      const p = parseCron(e);
      expect(p, e).toMatchObject({ ok: false, field: "day_of_month" });
      expect(p.ok ? "" : p.message, e).toContain("never");
    }
    // February 29th comes in leap years; a day some month has, or a weekday too (either matches), runs.
    for (const e of ["0 3 29 2 *", "0 3 31 1-2 *", "0 3 31 2 1", "0 3 31 * *"]) expect(parseCron(e).ok, e).toBe(true);
  });

  it("keys the minute", () => expect(minuteOf(at("2026-11-24T20:31:59.999Z"))).toBe("2026-11-24T20:31"));
});
