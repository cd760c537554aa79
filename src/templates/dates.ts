/**
 * Python `datetime` values for the date primitives: naive or with a fixed UTC offset, Python's
 * constructor checks, subtraction (aware vs naive is Python's TypeError) and `.date()`.
 * Parsing lives in `dateutil.ts` (no format) and `strptime.ts` (with a format).
 */

export interface PyDateTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  microsecond: number;
  /** Minutes east of UTC, or null for a naive datetime (Python refuses to mix the two). */
  offsetMinutes: number | null;
}

export class DateParseError extends Error {}
export const fail = (message: string): never => {
  throw new DateParseError(message);
};

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
export function daysInMonth(year: number, month: number): number {
  return month === 2 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Python's `datetime(...)` constructor checks. */
export function makeDateTime(p: Omit<PyDateTime, "offsetMinutes">, offsetMinutes: number | null): PyDateTime {
  if (p.year < 1 || p.year > 9999) fail(`year ${p.year} is out of range`);
  if (p.month < 1 || p.month > 12) fail("month must be in 1..12");
  if (p.day < 1 || p.day > daysInMonth(p.year, p.month)) fail("day is out of range for month");
  if (p.hour > 23) fail("hour must be in 0..23");
  if (p.minute > 59) fail("minute must be in 0..59");
  if (p.second > 59) fail("second must be in 0..59");
  return { ...p, offsetMinutes };
}

/** Milliseconds on the wall clock (offset not applied); years below 100 kept as written. */
function wallMillis(d: PyDateTime): number {
  const dt = new Date(0);
  dt.setUTCFullYear(d.year, d.month - 1, d.day);
  dt.setUTCHours(d.hour, d.minute, d.second, 0);
  return dt.getTime();
}

/**
 * `a - b` in microseconds, as Python computes it: aware datetimes compare as instants, naive ones
 * on the wall clock; mixing the two raises TypeError, which the date primitives treat as a
 * failed comparison.
 */
export function diffMicros(a: PyDateTime, b: PyDateTime): number {
  if ((a.offsetMinutes === null) !== (b.offsetMinutes === null)) {
    throw new TypeError("can't compare offset-naive and offset-aware datetimes");
  }
  const instant = (d: PyDateTime) => wallMillis(d) - (d.offsetMinutes ?? 0) * 60_000;
  return (instant(a) - instant(b)) * 1000 + (a.microsecond - b.microsecond);
}

/** `d.date()` as a comparable number (the wall-clock date, whatever the offset). */
export function dateKey(d: PyDateTime): number {
  return d.year * 10_000 + d.month * 100 + d.day;
}
