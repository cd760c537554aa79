/** NumericMaximum: `x ≤ gt` (`x < gt` with `exclusive`); the ground truth is the threshold. */
import { z } from "zod";
import { pyFloat } from "../python";
import { numericGroundTruth } from "./ground-truth";
import { definePrimitive } from "./types";

export const NumericMaximum = definePrimitive({
  summary: "extracted ≤ ground truth (< with exclusive)",
  paramsSchema: z.strictObject({
    exclusive: z.boolean({ error: "exclusive must be true or false" }).default(false),
  }),
  groundTruthProblem: numericGroundTruth("NumericMaximum"),
  check(extracted, groundTruth, { exclusive }) {
    const val = pyFloat(extracted);
    const threshold = pyFloat(groundTruth);
    return exclusive ? val < threshold : val <= threshold;
  },
});
