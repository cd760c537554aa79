/** NumericExact: `float(x) == float(gt)` (so "3.0" equals 3, and NaN equals nothing). */
import { z } from "zod";
import { pyFloat } from "../python";
import { numericGroundTruth } from "./ground-truth";
import { definePrimitive } from "./types";

export const NumericExact = definePrimitive({
  summary: "float(extracted) == float(ground truth)",
  paramsSchema: z.strictObject({}),
  groundTruthProblem: numericGroundTruth("NumericExact"),
  check(extracted, groundTruth) {
    return pyFloat(extracted) === pyFloat(groundTruth);
  },
});
