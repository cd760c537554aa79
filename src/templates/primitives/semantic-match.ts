/**
 * SemanticMatch: embedding similarity ≥ `threshold` (default 0.85). Karenina's own `check()`
 * raises: the embedding check stage (pipeline stage 9, `embedding_check_enabled`) does the
 * comparison. The field gives a `field_verification_error` (the field verdict is then false), and
 * the embedding check may override it; with the check off it stays false, never a silent pass.
 */
import { z } from "zod";
import { definePrimitive } from "./types";

export const SEMANTIC_MATCH_UNAVAILABLE = "SemanticMatch is decided by the embedding check (enable embedding_check_enabled)";

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
