/**
 * Submit-time checks that a primitive can ever compare its field's ground truth. Karenina only
 * finds out at verification time, when every answer then raises (a field_verification_error on
 * every result) or silently fails (dates); refusing the template says so once, at the field.
 */
import { pyFloat, pySequence, pySetKeys } from "../python";

const reason = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** For primitives that compare with `float(ground_truth)`. */
export function numericGroundTruth(name: string) {
  return (gt: unknown): string | null => {
    if (gt === null) return `${name} compares the answer with the ground truth, so ground_truth cannot be null`;
    try {
      pyFloat(gt);
      return null;
    } catch (e) {
      return `${name} needs a numeric ground truth (${reason(e)})`;
    }
  };
}

/** Runs `probe` on the ground truth; what it throws is the problem. */
export function groundTruthProbe(name: string, what: string, probe: (gt: unknown) => unknown) {
  return (gt: unknown): string | null => {
    try {
      probe(gt);
      return null;
    } catch (e) {
      return `${name} needs ${what} as ground truth (${reason(e)})`;
    }
  };
}

export const setGroundTruth = (name: string) => groundTruthProbe(name, "a list", pySetKeys);
export const sequenceGroundTruth = (name: string) => groundTruthProbe(name, "a list", pySequence);
