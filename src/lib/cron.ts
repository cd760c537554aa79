/**
 * Five-field cron expressions in UTC (pure): `minute hour day-of-month month day-of-week`, each
 * `*`, a number, a range `a-b`, a step `*∕n` or `a-b∕n`, or a comma list of those; day-of-week 0-7
 * (0 and 7 are Sunday). As in Vixie cron, when both day fields are restricted a day matches if
 * either does. A day of the month none of the expression's months has (31 2: February 31st) is
 * refused, since the schedule would never run. No names (JAN, MON), no `@hourly`, no seconds: a bad expression is refused with the
 * field it is in.
 */

export type CronField = "minute" | "hour" | "day_of_month" | "month" | "day_of_week";

const FIELDS: { name: CronField; min: number; max: number }[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day_of_month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  { name: "day_of_week", min: 0, max: 7 },
];

export interface Cron {
  sets: Set<number>[];
  /** Whether the day fields were `*` (matters for the either-day rule). */
  domAny: boolean;
  dowAny: boolean;
}

export type CronParse = { ok: true; cron: Cron } | { ok: false; field: CronField | "expression"; message: string };

export function parseCron(expr: string): CronParse {
  const parts = expr.trim().split(/\s+/);
  if (parts.length !== 5)
    return {
      ok: false,
      field: "expression",
      message: `a cron expression has 5 fields (minute hour day-of-month month day-of-week); this one has ${parts.length}`,
    };
  const sets: Set<number>[] = [];
  for (let i = 0; i < 5; i++) {
    const f = FIELDS[i]!;
    const set = parseField(parts[i]!, f.min, f.max);
    if (typeof set === "string")
      return { ok: false, field: f.name, message: `${f.name.replace(/_/g, "-")} ${JSON.stringify(parts[i])}: ${set}` };
    if (f.name === "day_of_week" && set.has(7)) set.add(0);
    sets.push(set);
  }
  const cron = { sets, domAny: parts[2] === "*", dowAny: parts[4] === "*" };
  // With the weekday unrestricted only the day of the month decides: "0 3 31 2 *" parsed and
  // stored a schedule that never ran, and nothing said so.
  if (!cron.domAny && cron.dowAny && !someMonthHasADay(sets[3]!, sets[2]!))
    return {
      ok: false,
      field: "day_of_month",
      message: `day-of-month ${JSON.stringify(parts[2])} falls in none of the months ${JSON.stringify(parts[3])}: the schedule would never run`,
    };
  return { ok: true, cron };
}

/** The most days each month has (February's 29th in leap years). */
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function someMonthHasADay(months: Set<number>, days: Set<number>): boolean {
  const fewest = Math.min(...days);
  for (const m of months) if (fewest <= MONTH_DAYS[m - 1]!) return true;
  return false;
}

function parseField(text: string, min: number, max: number): Set<number> | string {
  const out = new Set<number>();
  for (const item of text.split(",")) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(item);
    if (!m) return `"${item}" is not *, a number, a range a-b or a step */n`;
    const step = m[4] === undefined ? 1 : Number(m[4]);
    let lo = min;
    let hi = max;
    if (m[1] !== "*") {
      lo = Number(m[2]);
      hi = m[3] === undefined ? (m[4] === undefined ? lo : max) : Number(m[3]);
    }
    if (lo < min || hi > max || lo > hi) return `${item} is outside ${min}-${max}`;
    if (step < 1) return "a step must be at least 1";
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

/** Whether the cron fires in the UTC minute of `ms`. */
export function cronMatches(cron: Cron, ms: number): boolean {
  const d = new Date(ms);
  const [minute, hour, dom, month, dow] = cron.sets as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  if (!minute.has(d.getUTCMinutes()) || !hour.has(d.getUTCHours()) || !month.has(d.getUTCMonth() + 1)) return false;
  const domOk = dom.has(d.getUTCDate());
  const dowOk = dow.has(d.getUTCDay());
  if (cron.domAny || cron.dowAny) return domOk && dowOk;
  return domOk || dowOk;
}

/** The UTC minute of `ms`, as the key that allows one run per schedule per minute. */
export const minuteOf = (ms: number) => new Date(Math.floor(ms / 60_000) * 60_000).toISOString().slice(0, 16);
