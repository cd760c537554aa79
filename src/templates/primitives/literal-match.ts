/** LiteralMatch: Python `x == gt` (no normalisation: "III" ≠ "iii"; 1 == 1.0 == True). */
import { z } from "zod";
import { pyEquals } from "../python";
import { definePrimitive } from "./types";

export const LiteralMatch = definePrimitive({
  summary: "extracted == ground truth, exactly (for literal fields)",
  paramsSchema: z.strictObject({}),
  check(extracted, groundTruth) {
    return pyEquals(extracted, groundTruth);
  },
});
