/** NumericMinimum: `x ≥ gt` (`x > gt` with `exclusive`); the ground truth is the threshold. */
import { z } from "zod";
import { pyFloat } from "../python";
import { definePrimitive } from "./types";

export const NumericMinimum = definePrimitive({
  summary: "extracted ≥ ground truth (> with exclusive)",
  paramsSchema: z.strictObject({
    exclusive: z.boolean({ error: "exclusive must be true or false" }).default(false),
  }),
  check(extracted, groundTruth, { exclusive }) {
    const val = pyFloat(extracted);
    const threshold = pyFloat(groundTruth);
    return exclusive ? val > threshold : val >= threshold;
  },
});
