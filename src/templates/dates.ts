/**
 * Python `datetime` values and `dateutil.parser.parse` (default options: month before day,
 * `fuzzy=False`) for the date primitives. `format` strings go through `strptime.ts` instead.
 *
 * Understood: ISO 8601 ("2021-03-05", "2021-03-05T10:20:30.5+02:00"), month names and
 * abbreviations ("March 5, 2021", "5 Mar. 2021", "Friday, March 5th 2021", "05-Mar-2021"),
 * numeric dates with / - . separators resolved as dateutil does ("2021/03/05" year first when the
 * first number is a 4-digit year or > 31, "03/05/2021" month first, "13/03/2021" day first since
 * 13 cannot be a month), compact "20210305", times ("10:30", "10:30:15.25", "10 pm") and zones
 * ("Z", "UTC", "GMT", "+0200", "-05:00"). A word dateutil does not know is an error, as with
 * `fuzzy=False`.
 *
 * Two deliberate differences, both because verification has no clock: a missing year, month or
 * day comes from 2000-01-01 (dateutil takes it from today), and two-digit years pivot as
 * dateutil's did in 2026 (00–75 → 20xx, 76–99 → 19xx).
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
const fail = (message: string): never => {
  throw new DateParseError(message);
};

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH_WORDS = new Map<string, number>();
["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"].forEach((m, i) => {
  MONTH_WORDS.set(m, i + 1);
  MONTH_WORDS.set(MONTHS[i]!, i + 1);
});
MONTH_WORDS.set("sept", 9);
const WEEKDAYS = new Set(["mon", "monday", "tue", "tues", "tuesday", "wed", "wednesday", "thu", "thur", "thurs", "thursday", "fri", "friday", "sat", "saturday", "sun", "sunday"]);
/** dateutil's JUMP list (words and separators skipped between parts). */
const JUMP_WORDS = new Set(["at", "on", "and", "ad", "m", "t", "of", "st", "nd", "rd", "th"]);
const JUMP_SYMBOLS = new Set([".", ",", ";", "-", "/", "'"]);
const UTC_WORDS = new Set(["utc", "gmt", "z"]);

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

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** Basic-format ISO date-time, "20210305T103000" (dateutil reads it; the token walk would not). */
const COMPACT = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})?$/;

/** `dateutil.parser.parse(text)`; throws DateParseError where dateutil raises. */
export function parseDateutil(text: string): PyDateTime {
  const iso = ISO.exec(text.trim());
  if (iso) {
    const [, y, mo, d, h, mi, s, frac, tz] = iso;
    const time = { hour: Number(h ?? 0), minute: Number(mi ?? 0), second: Number(s ?? 0), microsecond: fraction(frac) };
    return makeDateTime({ year: Number(y), month: Number(mo), day: Number(d), ...time }, tz === undefined ? null : isoOffset(tz));
  }
  const compact = COMPACT.exec(text.trim());
  if (compact) {
    const [, y, mo, d, h, mi, sec] = compact.map(Number);
    return makeDateTime({ year: y!, month: mo!, day: d!, hour: h!, minute: mi!, second: Number.isNaN(sec) ? 0 : sec!, microsecond: 0 }, null);
  }
  return new Tokens(text).parse();
}

function fraction(digits: string | undefined): number {
  return digits ? Number(digits.slice(0, 6).padEnd(6, "0")) : 0;
}

function isoOffset(tz: string): number {
  if (tz === "Z") return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(tz)!;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

interface YmdPart {
  value: number;
  /** Written with more than two digits: a year (dateutil's ystridx). */
  year: boolean;
  /** Written as a month name (dateutil's mstridx). */
  month: boolean;
}

class Tokens {
  private readonly t: string[];
  private i = 0;
  private readonly ymd: YmdPart[] = [];
  private hour: number | null = null;
  private minute = 0;
  private second = 0;
  private microsecond = 0;
  private offset: number | null = null;

  constructor(text: string) {
    this.t = text.match(/\d+|[A-Za-z]+|\S/g) ?? [];
  }

  parse(): PyDateTime {
    while (this.i < this.t.length) {
      const tok = this.t[this.i++]!;
      if (/^\d/.test(tok)) this.number(tok);
      else if (/^[A-Za-z]/.test(tok)) this.word(tok.toLowerCase());
      else this.symbol(tok);
    }
    if (this.ymd.length === 0 && this.hour === null) fail("String does not contain a date");
    const { year, month, day } = this.resolve();
    const fixedYear = year === null ? 2000 : year.value < 100 && !year.year ? pivot(year.value) : year.value;
    return makeDateTime(
      { year: fixedYear, month: month ?? 1, day: day ?? 1, hour: this.hour ?? 0, minute: this.minute, second: this.second, microsecond: this.microsecond },
      this.offset,
    );
  }

  private number(tok: string): void {
    const next = this.t[this.i];
    if (next === ":") return this.time(Number(tok));
    if (next && /^(am?|pm?)$/i.test(next)) {
      this.hour = Number(tok);
      return;
    }
    if (tok.length === 8 || tok.length === 12 || tok.length === 14 || (tok.length === 6 && this.ymd.length === 0)) {
      const yearLen = tok.length === 6 ? 2 : 4;
      this.pushYmd(Number(tok.slice(0, yearLen)), yearLen === 4);
      this.pushYmd(Number(tok.slice(yearLen, yearLen + 2)), false);
      this.pushYmd(Number(tok.slice(yearLen + 2, yearLen + 4)), false);
      if (tok.length >= 12) {
        this.hour = Number(tok.slice(8, 10));
        this.minute = Number(tok.slice(10, 12));
        this.second = Number(tok.slice(12, 14) || 0);
      }
      return;
    }
    this.pushYmd(Number(tok), tok.length > 2);
  }

  private time(hour: number): void {
    if (this.hour !== null) fail("two times in one date");
    this.hour = hour;
    this.minute = this.expectNumber(1);
    if (this.t[this.i] === ":") this.second = this.expectNumber(1);
    if (this.t[this.i] === "." && /^\d+$/.test(this.t[this.i + 1] ?? "")) {
      this.microsecond = fraction(this.t[this.i + 1]);
      this.i += 2;
    }
  }

  /** Skips `skip` tokens (a separator) and reads a number. */
  private expectNumber(skip: number): number {
    this.i += skip;
    const tok = this.t[this.i++];
    if (tok === undefined || !/^\d+$/.test(tok)) fail("incomplete time");
    return Number(tok);
  }

  private word(w: string): void {
    if (this.t[this.i] === "." && (MONTH_WORDS.has(w) || WEEKDAYS.has(w))) this.i++;
    const month = MONTH_WORDS.get(w);
    if (month !== undefined) {
      if (this.ymd.some((p) => p.month)) fail("two month names");
      this.ymd.push({ value: month, year: false, month: true });
    } else if (w === "am" || w === "a" || w === "pm" || w === "p") {
      const h = this.hour;
      if (h === null || h > 12) return fail(`"${w}" without an hour of 0..12`);
      if (w.startsWith("p") && h < 12) this.hour = h + 12;
      else if (w.startsWith("a") && h === 12) this.hour = 0;
    } else if (UTC_WORDS.has(w) && (this.hour !== null || w !== "z")) {
      this.offset = 0;
    } else if (!WEEKDAYS.has(w) && !JUMP_WORDS.has(w)) {
      fail(`Unknown string format: "${w}"`);
    }
  }

  private symbol(s: string): void {
    const next = this.t[this.i];
    if ((s === "+" || s === "-") && this.hour !== null && next && /^\d+$/.test(next)) {
      this.i++;
      let minutes = next.length === 4 ? Number(next.slice(0, 2)) * 60 + Number(next.slice(2)) : Number(next) * 60;
      if (next.length <= 2 && this.t[this.i] === ":") minutes += this.expectNumber(1);
      this.offset = (s === "-" ? -1 : 1) * minutes;
      return;
    }
    if (!JUMP_SYMBOLS.has(s)) fail(`Unknown string format: "${s}"`);
  }

  private pushYmd(value: number, year: boolean): void {
    if (this.ymd.length >= 3) fail("too many numbers for a date");
    this.ymd.push({ value, year, month: false });
  }

  /** dateutil's `_ymd.resolve_ymd` with dayfirst=False, yearfirst=False. */
  private resolve(): { year: YmdPart | null; month: number | null; day: number | null } {
    const p = this.ymd;
    const v = p.map((x) => x.value);
    const m = p.findIndex((x) => x.month);
    const y = p.findIndex((x) => x.year);
    const pick = (yi: number | null, mi: number | null, di: number | null) => ({
      year: yi === null ? null : p[yi]!,
      month: mi === null ? null : v[mi]!,
      day: di === null ? null : v[di]!,
    });
    const labelled = (m >= 0 ? 1 : 0) + (y >= 0 ? 1 : 0);
    if (p.length === 3 && labelled === 2) return pick(y, m, 3 - y - m);
    if (p.length === 2 && labelled === 2) return pick(y, m, null);
    if (p.length === 1) {
      if (m === 0) return pick(null, 0, null);
      return v[0]! > 31 || y === 0 ? pick(0, null, null) : pick(null, null, 0);
    }
    if (p.length === 2) {
      if (m === 0) return v[1]! > 31 ? pick(1, 0, null) : pick(null, 0, 1);
      if (m === 1) return v[0]! > 31 ? pick(0, 1, null) : pick(null, 1, 0);
      if (v[0]! > 31) return pick(0, 1, null);
      if (v[1]! > 31) return pick(1, 0, null);
      return pick(null, 0, 1);
    }
    if (p.length === 3) {
      if (m === 0) return v[1]! > 31 ? pick(1, 0, 2) : pick(2, 0, 1);
      if (m === 1) return v[0]! > 31 ? pick(0, 1, 2) : pick(2, 1, 0);
      if (m === 2) return v[1]! > 31 ? pick(1, 2, 0) : pick(0, 2, 1);
      if (v[0]! > 31 || y === 0) return pick(0, 1, 2);
      if (v[0]! > 12) return pick(2, 1, 0);
      return pick(2, 0, 1);
    }
    return pick(null, null, null);
  }
}

/** dateutil's two-digit year rule, with 2026 as "this year" (see the file comment). */
function pivot(yy: number): number {
  return 2000 + yy >= 2076 ? 1900 + yy : 2000 + yy;
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
