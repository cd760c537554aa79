/** Shared by the graded numeric primitives (Karenina's NumericGraded family). */
import { z } from "zod";

export const DecaySchema = z.enum(["linear", "quadratic"], { error: 'decay is "linear" or "quadratic"' }).default("linear");
export const ModeSchema = (fallback: "relative" | "absolute") =>
  z.enum(["relative", "absolute"], { error: 'mode is "relative" or "absolute"' }).default(fallback);

/** Credit after traversing fraction `r` ∈ [0, 1) of a shoulder: 1 − r or 1 − r². */
export function decayed(r: number, decay: "linear" | "quadratic"): number {
  return decay === "quadratic" ? 1 - r * r : 1 - r;
}
