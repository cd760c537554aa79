/**
 * SetContainment: compares the two values as Python sets, with no normalisation (case
 * sensitive), in mode exact | subset (x ⊆ gt) | superset (x ⊇ gt) | overlap (≥ min_overlap
 * shared elements, default 1).
 */
import { z } from "zod";
import { pySetKeys } from "../python";
import { setGroundTruth } from "./ground-truth";
import { definePrimitive } from "./types";

export const SetContainment = definePrimitive({
  summary: "set comparison, mode exact|subset|superset|overlap (default exact), case sensitive",
  paramsSchema: z.strictObject({
    mode: z
      .enum(["exact", "subset", "superset", "overlap"], {
        error: 'mode is one of "exact", "subset", "superset", "overlap"',
      })
      .default("exact"),
    min_overlap: z
      .number()
      .int({ error: "min_overlap must be an integer ≥ 1" })
      .min(1, { error: "min_overlap must be an integer ≥ 1" })
      .nullable()
      .default(null),
  }),
  groundTruthProblem: setGroundTruth("SetContainment"),
  check(extracted, groundTruth, { mode, min_overlap }) {
    const x = pySetKeys(extracted);
    const gt = pySetKeys(groundTruth);
    const within = (a: Set<string>, b: Set<string>) => [...a].every((k) => b.has(k));
    switch (mode) {
      case "exact":
        return x.size === gt.size && within(x, gt);
      case "subset":
        return within(x, gt);
      case "superset":
        return within(gt, x);
      case "overlap":
        return [...x].filter((k) => gt.has(k)).length >= (min_overlap ?? 1);
    }
  },
});
