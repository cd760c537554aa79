/**
 * NumericThresholdGraded: a one-sided gate on the ground truth (the threshold) with a soft
 * wrong-side shoulder. direction "max": check x ≤ gt (x < gt with `exclusive`); "min": x ≥ gt.
 * `score` is 1 anywhere on the right side (Karenina ignores `exclusive` there), then decays to 0
 * at `margin` past the threshold: raw units (absolute) or margin × |gt| (relative, the default;
 * with gt = 0 there is no shoulder, so the wrong side scores 0).
 */
import { z } from "zod";
import { whenMissing } from "../../lib/wire-issues";
import { pyFloat } from "../python";
import { DecaySchema, ModeSchema, decayed } from "./graded";
import { numericGroundTruth } from "./ground-truth";
import { definePrimitive } from "./types";

export const NumericThresholdGraded = definePrimitive({
  summary: "one-sided threshold on the ground truth (direction max|min) with a decaying wrong-side shoulder",
  paramsSchema: z.strictObject({
    direction: z.enum(["max", "min"], { error: 'direction is required: "max" (at most the ground truth) or "min" (at least)' }),
    margin: z.number({ error: whenMissing("margin is required: a number > 0") }).positive({ error: "margin must be > 0" }),
    mode: ModeSchema("relative"),
    decay: DecaySchema,
    exclusive: z.boolean({ error: "exclusive must be true or false" }).default(false),
  }),
  groundTruthProblem: numericGroundTruth("NumericThresholdGraded"),
  check(extracted, groundTruth, { direction, exclusive }) {
    const val = pyFloat(extracted);
    const threshold = pyFloat(groundTruth);
    if (direction === "max") return exclusive ? val < threshold : val <= threshold;
    return exclusive ? val > threshold : val >= threshold;
  },
  score(extracted, groundTruth, { direction, margin, mode, decay }) {
    const val = pyFloat(extracted);
    const threshold = pyFloat(groundTruth);
    if (direction === "max" ? val <= threshold : val >= threshold) return 1;
    const gap = direction === "max" ? val - threshold : threshold - val;
    if (mode === "relative" && threshold === 0) return 0;
    const shoulder = mode === "absolute" ? margin : margin * Math.abs(threshold);
    if (shoulder <= 0 || gap >= shoulder) return 0;
    return decayed(gap / shoulder, decay);
  },
});
