/**
 * NumericGraded: distance d from the ground truth (relative |x−gt|/|gt|, the default, or
 * absolute |x−gt|) graded in bands.
 * - Single band (`full_credit` null): `check` is d ≤ cutoff; `score` decays from 1 at d = 0 to
 *   0 at the cutoff.
 * - Double band (0 ≤ full_credit < cutoff): `check` is d ≤ full_credit (the inner band); `score`
 *   is 1 up to full_credit, then decays to 0 at the cutoff. A near miss is check false, score > 0.
 * Decay: r = (d − full_credit) / (cutoff − full_credit), credit 1 − r (linear) or 1 − r².
 * Relative mode with gt = 0: only an exact 0 has a distance (0); anything else fails and scores 0.
 */
import { z } from "zod";
import { whenMissing } from "../../lib/wire-issues";
import { pyFloat } from "../python";
import { DecaySchema, ModeSchema, decayed } from "./graded";
import { numericGroundTruth } from "./ground-truth";
import { definePrimitive } from "./types";

function distance(extracted: unknown, groundTruth: unknown, mode: "relative" | "absolute"): number | null {
  const x = pyFloat(extracted);
  const gt = pyFloat(groundTruth);
  const d = Math.abs(x - gt);
  if (mode === "absolute") return d;
  if (gt === 0) return d === 0 ? 0 : null;
  return d / Math.abs(gt);
}

export const NumericGraded = definePrimitive({
  summary: "distance-graded number: pass within full_credit (or cutoff), partial credit out to cutoff",
  paramsSchema: z
    .strictObject({
      cutoff: z.number({ error: whenMissing("cutoff is required: a number > 0") }).positive({ error: "cutoff must be > 0" }),
      full_credit: z.number({ error: "full_credit must be a number or null" }).nullable().default(null),
      mode: ModeSchema("relative"),
      decay: DecaySchema,
    })
    .refine((p) => p.full_credit === null || (p.full_credit >= 0 && p.full_credit < p.cutoff), {
      error: "full_credit must satisfy 0 ≤ full_credit < cutoff",
      path: ["full_credit"],
    }),
  groundTruthProblem: numericGroundTruth("NumericGraded"),
  check(extracted, groundTruth, { cutoff, full_credit, mode }) {
    const d = distance(extracted, groundTruth, mode);
    return d !== null && d <= (full_credit ?? cutoff);
  },
  score(extracted, groundTruth, { cutoff, full_credit, mode, decay }) {
    const d = distance(extracted, groundTruth, mode);
    if (d === null) return 0;
    const inner = full_credit ?? 0;
    if (d <= inner) return 1;
    if (cutoff <= inner || d >= cutoff) return 0;
    return decayed((d - inner) / (cutoff - inner), decay);
  },
});
