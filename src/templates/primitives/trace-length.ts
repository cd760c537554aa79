/**
 * TraceLength: the raw answer's length is within [min, max] (either optional), counted in
 * `unit` "chars" (Python `len`: code points) or "words" (Python `str.split()`).
 */
import { z } from "zod";
import { pySplit, pyStrLen } from "../python";
import { defineTracePrimitive } from "./types";

const bound = (name: string) =>
  z
    .number()
    .int({ error: `${name} must be an integer or null` })
    .nullable()
    .default(null);

export const TraceLength = defineTracePrimitive({
  summary: "the raw answer's length in chars or words is within [min, max]",
  paramsSchema: z
    .strictObject({
      min: bound("min"),
      max: bound("max"),
      unit: z.enum(["chars", "words"], { error: 'unit is "chars" or "words"' }).default("chars"),
    })
    .refine((p) => p.min === null || p.max === null || p.min <= p.max, {
      error: "min must be ≤ max (this length could never pass)",
      path: ["max"],
    }),
  checkTrace(raw, { min, max, unit }) {
    const length = unit === "words" ? pySplit(raw).length : pyStrLen(raw);
    if (min !== null && length < min) return false;
    return !(max !== null && length > max);
  },
});
