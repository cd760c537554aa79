/**
 * ContainsAny: the extracted text contains at least one of `substrings` (both normalised).
 * The ground truth is ignored, as in Karenina.
 */
import { z } from "zod";
import { Normalizer, applyNormalizers } from "../normalizers";
import { pyStr } from "../python";
import { definePrimitive } from "./types";

export const ContainsAny = definePrimitive({
  summary: "extracted text contains one of `substrings` (ground truth ignored)",
  paramsSchema: z.strictObject({
    substrings: z
      .array(z.string(), { error: "substrings must be a list of strings" })
      .min(1, { error: "substrings needs at least one entry (an empty list can never match)" }),
    normalize: z.array(Normalizer).default([]),
  }),
  check(extracted, _groundTruth, { substrings, normalize }) {
    const text = applyNormalizers(normalize, pyStr(extracted));
    return substrings.some((s) => text.includes(applyNormalizers(normalize, s)));
  },
});
