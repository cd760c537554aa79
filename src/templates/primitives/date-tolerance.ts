/**
 * DateTolerance: |extracted − ground truth| ≤ `tolerance` `unit`s (days, the default, hours or
 * minutes), both parsed with dateutil. Unparseable values, or one zoned and one naive datetime
 * (Python cannot subtract them), fail the field.
 */
import { z } from "zod";
import { whenMissing } from "../../lib/wire-issues";
import { diffMicros } from "../dates";
import { dateVerdict, parseConstantDate, parseDate } from "./date-match";
import { groundTruthProbe } from "./ground-truth";
import { definePrimitive } from "./types";

const UNIT_MICROS = { days: 86_400_000_000, hours: 3_600_000_000, minutes: 60_000_000 } as const;

export const DateTolerance = definePrimitive({
  summary: "dates within `tolerance` days|hours|minutes of each other (inclusive)",
  paramsSchema: z.strictObject({
    tolerance: z.number({ error: whenMissing("tolerance is required: an integer") }).int({ error: "tolerance must be an integer" }),
    unit: z.enum(["days", "hours", "minutes"], { error: 'unit is "days", "hours" or "minutes"' }).default("days"),
  }),
  groundTruthProblem: groundTruthProbe("DateTolerance", "a date", (v) => parseConstantDate(v)),
  check(extracted, groundTruth, { tolerance, unit }) {
    return dateVerdict(() => Math.abs(diffMicros(parseDate(extracted), parseConstantDate(groundTruth))) <= tolerance * UNIT_MICROS[unit]);
  },
});
