/** BooleanMatch: None matches only None; otherwise Python truthiness of both sides is compared. */
import { z } from "zod";
import { pyTruthy } from "../python";
import { definePrimitive } from "./types";

export const BooleanMatch = definePrimitive({
  summary: "extracted and ground truth have the same truth value (null matches only null)",
  paramsSchema: z.strictObject({}),
  check(extracted, groundTruth) {
    if (extracted == null || groundTruth == null) return extracted == null && groundTruth == null;
    return pyTruthy(extracted) === pyTruthy(groundTruth);
  },
});
