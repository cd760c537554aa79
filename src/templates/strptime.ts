/**
 * Python `datetime.strptime(value, format)` for DateMatch's `format` param, C locale.
 *
 * Directives: %Y %y %m %d %H %I %M %S %f %p %b %B %h %a %A %j %z %Z %%, with Python's own
 * per-directive patterns (so "%m" accepts "3" and "03"), whitespace in the format matching any
 * run of whitespace, case-insensitive names, and the whole value consumed ("unconverted data
 * remains" otherwise). Missing parts default to 1900-01-01 00:00, as in Python. Locale-dependent
 * directives (%c %x %X %U %W …) are refused when the template is submitted.
 */
import { DateParseError, type PyDateTime, daysInMonth, makeDateTime } from "./dates";

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
const names = (xs: string[]) => xs.join("|");

/** Python `_strptime`'s regex per directive (TimeRE), C locale. */
const DIRECTIVES: Record<string, string> = {
  d: "3[01]|[12]\\d|0[1-9]|[1-9]| [1-9]",
  f: "[0-9]{1,6}",
  H: "2[0-3]|[01]\\d|\\d",
  I: "1[0-2]|0[1-9]|[1-9]",
  j: "36[0-6]|3[0-5]\\d|[12]\\d\\d|0[1-9]\\d|00[1-9]|[1-9]\\d|0[1-9]|[1-9]",
  m: "1[0-2]|0[1-9]|[1-9]",
  M: "[0-5]\\d|\\d",
  S: "6[01]|[0-5]\\d|\\d",
  y: "\\d\\d",
  Y: "\\d\\d\\d\\d",
  z: "[+-]\\d\\d:?[0-5]\\d(?::?[0-5]\\d(?:\\.\\d{1,6})?)?|Z",
  Z: "utc|gmt",
  p: "am|pm",
  B: names(MONTHS),
  b: names(MONTHS.map((m) => m.slice(0, 3))),
  h: names(MONTHS.map((m) => m.slice(0, 3))),
  A: names(DAYS),
  a: names(DAYS.map((d) => d.slice(0, 3))),
};

interface Compiled {
  regex: RegExp;
  directives: string[];
}
const CACHE = new Map<string, Compiled | string>();

/** The compiled format, or what is wrong with it (cached; formats repeat for every result). */
export function compileFormat(format: string): Compiled | string {
  let c = CACHE.get(format);
  if (c === undefined) {
    if (CACHE.size >= 256) CACHE.clear();
    c = compile(format);
    CACHE.set(format, c);
  }
  return c;
}

function compile(format: string): Compiled | string {
  let source = "";
  const directives: string[] = [];
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c !== "%") {
      if (/\s/.test(c)) {
        while (/\s/.test(format[i + 1] ?? "")) i++;
        source += "\\s+";
      } else source += c.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
      continue;
    }
    const d = format[++i];
    if (d === undefined) return "a format cannot end with a lone %";
    if (d === "%") {
      source += "%";
      continue;
    }
    if (!Object.hasOwn(DIRECTIVES, d))
      return `"%${d}" is not a supported strptime directive (supported: ${Object.keys(DIRECTIVES)
        .map((k) => `%${k}`)
        .join(" ")} %%)`;
    if (directives.includes(d)) return `"%${d}" appears twice in the format`;
    directives.push(d);
    source += `(${DIRECTIVES[d]})`;
  }
  return { regex: new RegExp(`^(?:${source})$`, "i"), directives };
}

/** `datetime.strptime(value, format)`; throws DateParseError where Python raises ValueError. */
export function strptime(value: string, format: string): PyDateTime {
  const c = compileFormat(format);
  if (typeof c === "string") throw new DateParseError(c);
  const m = c.regex.exec(value);
  if (!m) throw new DateParseError(`time data ${JSON.stringify(value)} does not match format ${JSON.stringify(format)}`);
  const got: Record<string, string> = {};
  c.directives.forEach((d, i) => (got[d] = m[i + 1]!));
  // Python matches %z's "Z" case-sensitively inside an otherwise case-insensitive pattern.
  if (got.z === "z") throw new DateParseError(`time data ${JSON.stringify(value)} does not match format ${JSON.stringify(format)}`);
  let year = 1900;
  if (got.Y !== undefined) year = Number(got.Y);
  else if (got.y !== undefined) year = Number(got.y) <= 68 ? 2000 + Number(got.y) : 1900 + Number(got.y);
  let month = got.m !== undefined ? Number(got.m) : 1;
  if (got.B !== undefined || got.b !== undefined || got.h !== undefined) {
    month = MONTHS.findIndex((n) => n.startsWith((got.B ?? got.b ?? got.h)!.toLowerCase().slice(0, 3))) + 1;
  }
  let day = got.d !== undefined ? Number(got.d.trim()) : 1;
  if (got.j !== undefined && got.m === undefined && got.d === undefined && month === 1) {
    ({ month, day } = fromDayOfYear(year, Number(got.j)));
  }
  let hour = got.H !== undefined ? Number(got.H) : 0;
  if (got.I !== undefined) {
    hour = Number(got.I) % 12;
    if (got.p?.toLowerCase() === "pm") hour += 12;
  }
  const micro = got.f !== undefined ? Number(got.f.padEnd(6, "0")) : 0;
  const time = { hour, minute: Number(got.M ?? 0), second: Number(got.S ?? 0), microsecond: micro };
  return makeDateTime({ year, month, day, ...time }, zoneOf(got));
}

function fromDayOfYear(year: number, doy: number): { month: number; day: number } {
  let month = 1;
  while (month < 12 && doy > daysInMonth(year, month)) doy -= daysInMonth(year, month++);
  return { month, day: doy };
}

function zoneOf(got: Record<string, string>): number | null {
  if (got.z !== undefined) {
    if (got.z.toUpperCase() === "Z") return 0;
    const [, sign, hh, mm] = /^([+-])(\d\d):?(\d\d)/.exec(got.z)!;
    return (sign === "-" ? -1 : 1) * (Number(hh) * 60 + Number(mm));
  }
  // Python's %Z parses the name but leaves the datetime naive.
  return null;
}
