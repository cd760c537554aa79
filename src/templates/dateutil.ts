/**
 * `dateutil.parser.parse(text)` with its default options (month before day, `fuzzy=False`), as
 * Karenina's date primitives call it. Checked against real python-dateutil 2.9 output
 * (`test/unit/templates/dateutil-cases.json`).
 *
 * Understood: ISO 8601 ("2021-03-05", "2021-03-05T10:20:30.5+02:00", "20210305T103000"), month
 * names and abbreviations ("March 5, 2021", "5 Mar. 2021", "Friday, March 5th 2021",
 * "05-Mar-2021"), numeric dates with / - . separators resolved as dateutil does ("2021/03/05" year
 * first, "03/05/2021" month first, "13/03/2021" day first since 13 cannot be a month), compact
 * "20210305", times ("10:30", "10:30:15.25", "10 pm", "10h30", "1030" after a full date) and zones
 * ("Z", "UTC", "+0200", "-05:00", POSIX-style "GMT+2" = two hours *behind*; another upper-case
 * name such as "EST" leaves the value naive, as dateutil does with an unknown zone). Zone names are
 * read only after a time. A word dateutil does not know is an error.
 *
 * Two deliberate differences, both because verification has no clock: a missing year, month or
 * day comes from 2000-01-01 (dateutil takes it from today), and two-digit years pivot as
 * dateutil's did in 2026 (00–75 → 20xx, 76–99 → 19xx).
 */
import { type PyDateTime, fail, makeDateTime } from "./dates";

const MONTH_WORDS = new Map<string, number>();
["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"].forEach(
  (m, i) => {
    MONTH_WORDS.set(m, i + 1);
    MONTH_WORDS.set(m.slice(0, 3), i + 1);
  },
);
MONTH_WORDS.set("sept", 9);
/** dateutil's WEEKDAYS: three-letter abbreviations and full names only ("tues" is unknown). */
const WEEKDAYS = new Set([
  "mon",
  "monday",
  "tue",
  "tuesday",
  "wed",
  "wednesday",
  "thu",
  "thursday",
  "fri",
  "friday",
  "sat",
  "saturday",
  "sun",
  "sunday",
]);
/** dateutil's JUMP list (words and separators skipped between parts). */
const JUMP_WORDS = new Set(["at", "on", "and", "ad", "m", "t", "of", "st", "nd", "rd", "th"]);
const JUMP_SYMBOLS = new Set([".", ",", ";", "-", "/", "'"]);
/** dateutil's UTCZONE (case-sensitive: "utc" is not a zone). */
const UTC_ZONES = new Set(["UTC", "GMT", "Z", "z"]);
/** dateutil's HMS labels → 0 hour, 1 minute, 2 second. */
const HMS = new Map<string, number>([
  ["h", 0],
  ["hour", 0],
  ["hours", 0],
  ["m", 1],
  ["minute", 1],
  ["minutes", 1],
  ["s", 2],
  ["second", 2],
  ["seconds", 2],
]);
const AMPM = new Map<string, 0 | 1>([
  ["am", 0],
  ["a", 0],
  ["pm", 1],
  ["p", 1],
]);

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;
const COMPACT = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})?$/;

/** `dateutil.parser.parse(text)`; throws DateParseError where dateutil raises. */
export function parseDateutil(text: string): PyDateTime {
  const trimmed = text.trim();
  const iso = ISO.exec(trimmed);
  if (iso) {
    const [, y, mo, d, h, mi, s, frac, tz] = iso;
    const time = { hour: Number(h ?? 0), minute: Number(mi ?? 0), second: Number(s ?? 0), microsecond: fraction(frac) };
    return makeDateTime({ year: Number(y), month: Number(mo), day: Number(d), ...time }, tz === undefined ? null : isoOffset(tz));
  }
  const compact = COMPACT.exec(trimmed);
  if (compact) {
    const [, y, mo, d, h, mi, sec] = compact.map(Number);
    return makeDateTime(
      { year: y!, month: mo!, day: d!, hour: h!, minute: mi!, second: Number.isNaN(sec) ? 0 : sec!, microsecond: 0 },
      null,
    );
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

/** dateutil's two-digit year rule, with 2026 as "this year" (see the file comment). */
function pivot(yy: number): number {
  return 2000 + yy >= 2076 ? 1900 + yy : 2000 + yy;
}

interface YmdPart {
  value: number;
  /** Written with more than two digits: a year (dateutil's ystridx). */
  year: boolean;
  /** Written as a month name (dateutil's mstridx). */
  month: boolean;
}

const isDigits = (tok: string | undefined) => tok !== undefined && /^\d+$/.test(tok);
const lower = (tok: string | undefined) => tok?.toLowerCase() ?? "";

/** dateutil's token walk (`_parse`), over digits / letters / single-symbol tokens. */
class Tokens {
  private readonly t: string[];
  private i = 0;
  private readonly ymd: YmdPart[] = [];
  private hour: number | null = null;
  private minute = 0;
  private second = 0;
  private microsecond = 0;
  private offset: number | null = null;
  private zoneName: string | null = null;
  /** "GMT+3" means "my time + 3 is GMT": the sign after a zone name is reversed. */
  private reverseSign = false;

  constructor(text: string) {
    this.t = text.match(/\d+|[A-Za-z]+|\S/g) ?? [];
  }

  parse(): PyDateTime {
    while (this.i < this.t.length) {
      const tok = this.t[this.i++]!;
      if (isDigits(tok)) this.number(tok);
      else if (/^[A-Za-z]/.test(tok)) this.word(tok);
      else this.symbol(tok);
    }
    if (this.ymd.length === 0 && this.hour === null) fail("String does not contain a date");
    const { year, month, day } = resolveYmd(this.ymd);
    const fixedYear = year === null ? 2000 : year.value < 100 && !year.year ? pivot(year.value) : year.value;
    return makeDateTime(
      {
        year: fixedYear,
        month: month ?? 1,
        day: day ?? 1,
        hour: this.hour ?? 0,
        minute: this.minute,
        second: this.second,
        microsecond: this.microsecond,
      },
      this.offset,
    );
  }

  /** dateutil's `_parse_numeric_token`, branch by branch in its order. */
  private number(tok: string): void {
    const next = this.t[this.i];
    const n = Number(tok);
    const len = tok.length;
    if (this.ymd.length === 3 && (len === 2 || len === 4) && this.hour === null && next !== ":" && !HMS.has(lower(next))) {
      this.hour = Number(tok.slice(0, 2)); // "…2021 1030": HH[MM] after a full date
      if (len === 4) this.minute = Number(tok.slice(2));
    } else if (len === 6 && this.ymd.length > 0) {
      this.setTime(Number(tok.slice(0, 2)), Number(tok.slice(2, 4)), Number(tok.slice(4)));
    } else if (len === 6 || len === 8 || len === 12 || len === 14) {
      const yearLen = len === 6 ? 2 : 4;
      this.pushYmd(Number(tok.slice(0, yearLen)), yearLen === 4);
      this.pushYmd(Number(tok.slice(yearLen, yearLen + 2)), false);
      this.pushYmd(Number(tok.slice(yearLen + 2, yearLen + 4)), false);
      if (len >= 12) this.setTime(Number(tok.slice(8, 10)), Number(tok.slice(10, 12)), Number(tok.slice(12) || 0));
    } else if (HMS.has(lower(next))) {
      this.i++;
      this.assignHms(n, HMS.get(lower(next))!);
    } else if (HMS.has(lower(this.t[this.i - 2])) && HMS.get(lower(this.t[this.i - 2]))! < 2) {
      this.assignHms(n, HMS.get(lower(this.t[this.i - 2]))! + 1); // the "30" of "10h30"
    } else if (next === ":") {
      this.clock(n);
    } else if (AMPM.has(lower(next))) {
      this.i++;
      this.hour = adjustAmPm(n, AMPM.get(lower(next))!);
    } else {
      this.pushYmd(n, len > 2);
    }
  }

  private setTime(h: number, m: number, s: number): void {
    this.hour = h;
    this.minute = m;
    this.second = s;
  }

  private assignHms(value: number, unit: number): void {
    if (unit === 0) this.hour = value;
    else if (unit === 1) this.minute = value;
    else this.second = value;
  }

  /** HH:MM[:SS[.ffffff]]; a later time replaces an earlier one, as in dateutil. */
  private clock(hour: number): void {
    this.hour = hour;
    this.second = 0;
    this.microsecond = 0;
    this.minute = this.expectNumber();
    if (this.t[this.i] === ":") this.second = this.expectNumber();
    if (this.t[this.i] === "." && isDigits(this.t[this.i + 1])) {
      this.microsecond = fraction(this.t[this.i + 1]);
      this.i += 2;
    }
  }

  /** Skips one separator token and reads a number. */
  private expectNumber(): number {
    this.i += 1;
    const tok = this.t[this.i++];
    if (!isDigits(tok)) fail("incomplete time");
    return Number(tok);
  }

  /** Weekday, month, am/pm, zone name, jump word — in dateutil's order — else an error. */
  private word(raw: string): void {
    const w = raw.toLowerCase();
    if (WEEKDAYS.has(w) || MONTH_WORDS.has(w)) {
      if (this.t[this.i] === ".") this.i++;
      const month = MONTH_WORDS.get(w);
      if (month === undefined) return;
      if (this.ymd.some((p) => p.month)) fail("two month names");
      this.ymd.push({ value: month, year: false, month: true });
    } else if (AMPM.has(w)) {
      const h = this.hour;
      if (h === null || h > 12) fail(`"${raw}" without an hour of 0..12`);
      this.hour = adjustAmPm(h!, AMPM.get(w)!);
    } else if (this.couldBeZone(raw)) {
      this.zoneName = raw;
      this.offset = UTC_ZONES.has(raw) ? 0 : null;
      const next = this.t[this.i];
      if (next === "+" || next === "-") {
        this.reverseSign = true;
        this.offset = null;
        if (UTC_ZONES.has(raw)) this.zoneName = null;
      }
    } else if (!JUMP_WORDS.has(w)) {
      fail(`Unknown string format: "${raw}"`);
    }
  }

  private couldBeZone(raw: string): boolean {
    return (
      this.hour !== null &&
      this.zoneName === null &&
      this.offset === null &&
      raw.length <= 5 &&
      (/^[A-Z]+$/.test(raw) || UTC_ZONES.has(raw))
    );
  }

  /** A numeric zone after a time: +HHMM, +HH:MM or +H[H]. */
  private symbol(s: string): void {
    const next = this.t[this.i];
    if ((s === "+" || s === "-") && this.hour !== null && isDigits(next)) {
      this.i++;
      let minutes: number;
      if (next!.length === 4) minutes = Number(next!.slice(0, 2)) * 60 + Number(next!.slice(2));
      else if (this.t[this.i] === ":") minutes = Number(next) * 60 + this.expectNumber();
      else if (next!.length <= 2) minutes = Number(next) * 60;
      else return fail(`bad zone offset "${s}${next}"`);
      const sign = (s === "-") !== this.reverseSign ? -1 : 1;
      this.offset = sign * minutes;
      return;
    }
    if (!JUMP_SYMBOLS.has(s)) fail(`Unknown string format: "${s}"`);
  }

  private pushYmd(value: number, year: boolean): void {
    if (this.ymd.length >= 3) fail("too many numbers for a date");
    this.ymd.push({ value, year, month: false });
  }
}

function adjustAmPm(hour: number, pm: 0 | 1): number {
  if (hour < 12 && pm === 1) return hour + 12;
  if (hour === 12 && pm === 0) return 0;
  return hour;
}

/** dateutil's `_ymd.resolve_ymd` with dayfirst=False, yearfirst=False. */
function resolveYmd(p: YmdPart[]): { year: YmdPart | null; month: number | null; day: number | null } {
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
