/**
 * OrderedMatch: same length and element-wise equal after normalising `str(item)` (normalize
 * defaults to lowercase + strip). Python iterates a string by characters, so a string compares
 * character by character; None or a number raises (no len()), giving a field error.
 */
import { z } from "zod";
import { Normalizer, applyNormalizers } from "../normalizers";
import { pySequence, pyStr } from "../python";
import { sequenceGroundTruth } from "./ground-truth";
import { definePrimitive } from "./types";

export const OrderedMatch = definePrimitive({
  summary: 'lists equal element by element after normalize (default ["lowercase", "strip"])',
  paramsSchema: z.strictObject({
    normalize: z.array(Normalizer).default(["lowercase", "strip"]),
  }),
  groundTruthProblem: sequenceGroundTruth("OrderedMatch"),
  check(extracted, groundTruth, { normalize }) {
    const xs = pySequence(extracted);
    const gts = pySequence(groundTruth);
    if (xs.length !== gts.length) return false;
    return xs.every((x, i) => applyNormalizers(normalize, pyStr(x)) === applyNormalizers(normalize, pyStr(gts[i])));
  },
});
