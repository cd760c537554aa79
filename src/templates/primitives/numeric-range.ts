/**
 * NumericRange: `min ≤ x ≤ max`, either bound optional (null = open), each made strict by
 * `exclusive_min` / `exclusive_max`. The ground truth is ignored, as in Karenina. A range whose
 * min exceeds its max can never pass, so it is refused at submit time.
 */
import { z } from "zod";
import { pyFloat } from "../python";
import { definePrimitive } from "./types";

export function inRange(
  val: number,
  p: { min: number | null; max: number | null; exclusive_min: boolean; exclusive_max: boolean },
): boolean {
  if (p.min !== null && (p.exclusive_min ? val <= p.min : val < p.min)) return false;
  if (p.max !== null && (p.exclusive_max ? val >= p.max : val > p.max)) return false;
  // NaN fails every comparison above, so Python lets it through; so does this.
  return true;
}

export const NumericRange = definePrimitive({
  summary: "min ≤ extracted ≤ max (either bound optional, exclusive_min/max for strict); ground truth ignored",
  paramsSchema: z
    .strictObject({
      min: z.number({ error: "min must be a number or null" }).nullable().default(null),
      max: z.number({ error: "max must be a number or null" }).nullable().default(null),
      exclusive_min: z.boolean({ error: "exclusive_min must be true or false" }).default(false),
      exclusive_max: z.boolean({ error: "exclusive_max must be true or false" }).default(false),
    })
    .refine((p) => p.min === null || p.max === null || p.min <= p.max, {
      error: "min must be ≤ max (this range could never pass)",
      path: ["max"],
    }),
  check(extracted, _groundTruth, params) {
    return inRange(pyFloat(extracted), params);
  },
});
