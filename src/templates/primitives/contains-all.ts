/**
 * ContainsAll: the extracted text contains every one of `substrings` (both normalised).
 * The ground truth is ignored, as in Karenina.
 */
import { z } from "zod";
import { Normalizer, applyNormalizers } from "../normalizers";
import { pyStr } from "../python";
import { definePrimitive } from "./types";

export const ContainsAll = definePrimitive({
  summary: "extracted text contains every one of `substrings` (ground truth ignored)",
  paramsSchema: z.strictObject({
    substrings: z
      .array(z.string(), { error: "substrings must be a list of strings" })
      .min(1, { error: "substrings needs at least one entry (an empty list would pass any answer)" }),
    normalize: z.array(Normalizer).default([]),
  }),
  check(extracted, _groundTruth, { substrings, normalize }) {
    const text = applyNormalizers(normalize, pyStr(extracted));
    return substrings.every((s) => text.includes(applyNormalizers(normalize, s)));
  },
});
