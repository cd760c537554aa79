/**
 * DateRange: `min ≤ date ≤ max` (inclusive, either bound optional), all parsed with dateutil;
 * the ground truth is ignored. Bounds that do not parse are refused when the template is
 * submitted (in Karenina they would fail every answer); an unparseable answer, or a zoned answer
 * against naive bounds, fails the field.
 */
import { z } from "zod";
import { DateParseError, diffMicros } from "../dates";
import { parseDateutil } from "../dateutil";
import { dateVerdict, parseConstantDate, parseDate } from "./date-match";
import { definePrimitive } from "./types";

const bound = (name: string) =>
  z
    .string({ error: `${name} must be a date string or null` })
    .superRefine((s, ctx) => {
      try {
        parseDateutil(s);
      } catch (e) {
        if (!(e instanceof DateParseError)) throw e;
        ctx.addIssue({ code: "custom", message: `${name} is not a date edgeval can read: ${e.message}` });
      }
    })
    .nullable()
    .default(null);

export const DateRange = definePrimitive({
  summary: "min ≤ extracted date ≤ max (inclusive, either optional); ground truth ignored",
  paramsSchema: z.strictObject({ min: bound("min"), max: bound("max") }),
  check(extracted, _groundTruth, { min, max }) {
    return dateVerdict(() => {
      const d = parseDate(extracted);
      if (min !== null && diffMicros(d, parseConstantDate(min)) < 0) return false;
      return !(max !== null && diffMicros(d, parseConstantDate(max)) > 0);
    });
  },
});
