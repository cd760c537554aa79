/**
 * SemanticMatch: embedding similarity ≥ `threshold` (default 0.85). Karenina's own `check()`
 * raises: the embedding check stage does the comparison. Until that stage exists here, a
 * SemanticMatch field gives a `field_verification_error` (the verdict is then false), never a
 * silent pass.
 */
import { z } from "zod";
import { definePrimitive } from "./types";

export const SEMANTIC_MATCH_UNAVAILABLE = "SemanticMatch needs the embedding check (issue 4)";

export const SemanticMatch = definePrimitive({
  summary: "embedding similarity ≥ threshold (default 0.85), decided by the embedding check",
  paramsSchema: z.strictObject({
    threshold: z
      .number({ error: "threshold must be a number in [0, 1]" })
      .min(0, { error: "threshold must be a number in [0, 1]" })
      .max(1, { error: "threshold must be a number in [0, 1]" })
      .default(0.85),
  }),
  check() {
    throw new Error(SEMANTIC_MATCH_UNAVAILABLE);
  },
});
