/**
 * NumericRangeGraded: the band [min, max] with soft shoulders. `check` is NumericRange's hard
 * gate (exclusive flags apply); `score` is 1 inside the closed band — Karenina ignores the
 * exclusive flags there, so an exclusive edge is check false with score 1 — and decays outside
 * it to 0 at a shoulder of `margin` (absolute, the default) or `margin × (max − min)` (relative).
 * The ground truth is ignored.
 */
import { z } from "zod";
import { whenMissing } from "../../lib/wire-issues";
import { pyFloat } from "../python";
import { DecaySchema, ModeSchema, decayed } from "./graded";
import { inRange } from "./numeric-range";
import { definePrimitive } from "./types";

export const NumericRangeGraded = definePrimitive({
  summary: "range [min, max] with a decaying shoulder of `margin` outside it; ground truth ignored",
  paramsSchema: z
    .strictObject({
      min: z.number({ error: whenMissing("min is required: a number") }),
      max: z.number({ error: whenMissing("max is required: a number") }),
      margin: z.number({ error: whenMissing("margin is required: a number > 0") }).positive({ error: "margin must be > 0" }),
      mode: ModeSchema("absolute"),
      decay: DecaySchema,
      exclusive_min: z.boolean({ error: "exclusive_min must be true or false" }).default(false),
      exclusive_max: z.boolean({ error: "exclusive_max must be true or false" }).default(false),
    })
    .refine((p) => p.min < p.max, { error: "NumericRangeGraded requires min < max", path: ["max"] }),
  check(extracted, _groundTruth, params) {
    return inRange(pyFloat(extracted), params);
  },
  score(extracted, _groundTruth, { min, max, margin, mode, decay }) {
    const val = pyFloat(extracted);
    if (min <= val && val <= max) return 1;
    const gap = val < min ? min - val : val - max;
    const shoulder = mode === "absolute" ? margin : margin * (max - min);
    if (shoulder <= 0 || gap >= shoulder) return 0;
    return decayed(gap / shoulder, decay);
  },
});
