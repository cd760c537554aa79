/** ExactMatch: `norm(str(x)) == norm(str(gt))`, normalize defaulting to lowercase + strip. */
import { z } from "zod";
import { Normalizer, applyNormalizers } from "../normalizers";
import { pyStr } from "../python";
import { definePrimitive } from "./types";

export const ExactMatch = definePrimitive({
  summary: 'normalised string equality (normalize defaults to ["lowercase", "strip"])',
  paramsSchema: z.strictObject({
    normalize: z.array(Normalizer).default(["lowercase", "strip"]),
  }),
  check(extracted, groundTruth, { normalize }) {
    return applyNormalizers(normalize, pyStr(extracted)) === applyNormalizers(normalize, pyStr(groundTruth));
  },
});
