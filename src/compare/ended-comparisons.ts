/**
 * The latest comparisons of two ended runs, kept in this isolate. Comparing reads every result row
 * of both runs (compare-stored.ts): 200,000 rows for two 100,000-result runs, on every page of
 * flipped questions. Results of a run that has ended do not change, so its comparison computed once
 * serves the next pages (and the dashboard's reloads) from memory. A deleted run is a 404 before
 * this is consulted; a run still going is never kept, its figures change.
 */
import type { ModelPairComparison, QuestionFlips } from "./compare-runs";

export interface Comparison {
  model_pairs: ModelPairComparison[];
  unmatched: { only_in_a: number; only_in_b: number };
  /** Every question with a flip, by question id (the pages are slices of it). */
  questions: QuestionFlips[];
}

/** Comparisons kept at once, and the most flips one may hold: a memory bound, not a count of users. */
export const KEPT = 4;
export const MAX_KEPT_FLIPS = 50_000;

const kept = new Map<string, Comparison>();

/** The comparison under `key`, computed by `compute` unless kept; `cacheable`: both runs have ended. */
export async function endedComparison(key: string, cacheable: boolean, compute: () => Promise<Comparison>): Promise<Comparison> {
  const hit = cacheable ? kept.get(key) : undefined;
  if (hit) {
    // Most recently used last: the first key is the one to drop.
    kept.delete(key);
    kept.set(key, hit);
    return hit;
  }
  const c = await compute();
  const flips = c.questions.reduce((n, q) => n + q.flips.length, 0);
  if (cacheable && flips <= MAX_KEPT_FLIPS) {
    kept.set(key, c);
    if (kept.size > KEPT) kept.delete(kept.keys().next().value!);
  }
  return c;
}
