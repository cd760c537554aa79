/**
 * NumericTolerance: |x − gt| ≤ tolerance (absolute) or |x − gt| / |gt| ≤ tolerance (relative,
 * the default). A ground truth of 0 in relative mode accepts only an exact 0, as in Karenina.
 * Values go through Python `float()`, so "3.5" counts and "about 3" raises.
 */
import { z } from "zod";
import { whenMissing } from "../../lib/wire-issues";
import { pyFloat } from "../python";
import { numericGroundTruth } from "./ground-truth";
import { definePrimitive } from "./types";

export const NumericTolerance = definePrimitive({
  summary: "number within `tolerance` of the ground truth (mode relative|absolute, default relative)",
  paramsSchema: z.strictObject({
    tolerance: z.number({ error: whenMissing("tolerance is required: a number ≥ 0") }).nonnegative({ error: "tolerance must be ≥ 0" }),
    mode: z.enum(["relative", "absolute"], { error: 'mode is "relative" or "absolute"' }).default("relative"),
  }),
  groundTruthProblem: numericGroundTruth("NumericTolerance"),
  check(extracted, groundTruth, { tolerance, mode }) {
    const x = pyFloat(extracted);
    const gt = pyFloat(groundTruth);
    const diff = Math.abs(x - gt);
    if (mode === "absolute") return diff <= tolerance;
    if (gt === 0) return diff === 0;
    return diff / Math.abs(gt) <= tolerance;
  },
});
