/**
 * DateMatch: both values parse to the same calendar date (`.date()`, time and zone ignored).
 * Parsing is dateutil's (see `dates.ts`), or `strptime(value, format)` on both sides when
 * `format` is set. A value that does not parse fails the field (false, not an error), as in
 * Karenina.
 */
import { z } from "zod";
import { DateParseError, type PyDateTime, dateKey } from "../dates";
import { parseDateutil } from "../dateutil";
import { pyStr } from "../python";
import { compileFormat, strptime } from "../strptime";
import { groundTruthProbe } from "./ground-truth";
import { definePrimitive } from "./types";

/** Karenina's `_parse_date`: strptime with a format, dateutil without. */
export function parseDate(value: unknown, format: string | null = null): PyDateTime {
  const text = pyStr(value);
  return format ? strptime(text, format) : parseDateutil(text);
}

/**
 * The same, memoised, for template constants (ground truths, DateRange bounds) that every result
 * re-reads; answers are parsed fresh. Parsed values are never mutated, so sharing them is safe.
 */
export function parseConstantDate(value: unknown, format: string | null = null): PyDateTime {
  const key = `${format ?? ""}\u0000${pyStr(value)}`;
  let d = CONSTANTS.get(key);
  if (d === undefined) {
    d = parseDate(value, format);
    if (CONSTANTS.size >= 1024) CONSTANTS.clear();
    CONSTANTS.set(key, d);
  }
  return d;
}
const CONSTANTS = new Map<string, PyDateTime>();

/** Runs a date comparison the way Karenina does: ValueError / TypeError mean "no match". */
export function dateVerdict(compare: () => boolean): boolean {
  try {
    return compare();
  } catch (e) {
    if (e instanceof DateParseError || e instanceof TypeError) return false;
    throw e;
  }
}

export const DateMatch = definePrimitive({
  summary: "same calendar date (dateutil parsing, or strptime with `format`); unparseable → false",
  paramsSchema: z.strictObject({
    format: z
      .string({ error: "format must be a strptime format string or null" })
      .superRefine((f, ctx) => {
        const c = compileFormat(f);
        if (typeof c === "string") ctx.addIssue({ code: "custom", message: c });
      })
      .nullable()
      .default(null),
  }),
  groundTruthProblem(gt, { format }) {
    const what = format ? `a date in the format ${JSON.stringify(format)}` : "a date";
    return groundTruthProbe("DateMatch", what, (v) => parseConstantDate(v, format))(gt);
  },
  check(extracted, groundTruth, { format }) {
    return dateVerdict(() => dateKey(parseDate(extracted, format)) === dateKey(parseConstantDate(groundTruth, format)));
  },
});
