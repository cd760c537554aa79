/**
 * Composition (Karenina `evaluate_strategy` and `_composition_aware_granular`).
 *
 * Binary: the tree is walked recursively. AllOf([]) is true, AnyOf([]) false, AtLeastN counts
 * passing children, FieldCheck passes only on a field result of exactly `true`, so a null
 * (unanswered) field never satisfies a node.
 *
 * Granular: Karenina scores the *root* strategy only, over all fields, each contributing
 * weight × score (null → 0, but its weight stays in the denominator):
 *   all_of (and no strategy, or a field_check root)  Σ contributions / Σ weights
 *   any_of                                            max contribution / Σ weights
 *   at_least_n(n)                                     sum of the top n contributions / Σ weights
 * Nested nodes do not change the granular score; that is Karenina's rule, kept as is.
 */
import type { TemplateField, VerifyStrategy } from "./template-schema";

export type FieldResults = Record<string, boolean | null>;
export type FieldScores = Record<string, number | null>;

/** A composition node of any tree (Karenina's generic AllOf / AnyOf / AtLeastN): its children are the tree's own nodes. */
type Composite<N> = { type: "all_of" | "any_of" | "at_least_n"; n?: number | null; conditions: readonly N[] };

const isComposite = <N extends { type: string }>(node: N): node is N & Composite<N> =>
  node.type === "all_of" || node.type === "any_of" || node.type === "at_least_n";

/**
 * Karenina's `evaluate_composition`: AllOf([]) true, AnyOf([]) false, AtLeastN counts passing
 * children; every other node is a leaf the caller decides. Shared by the template strategy tree
 * and scenario outcome checks (src/scenarios/outcome.ts).
 */
export function evaluateComposition<N extends { type: string }>(node: N, leaf: (node: N) => boolean): boolean {
  if (!isComposite(node)) return leaf(node);
  const holds = (c: N) => evaluateComposition(c, leaf);
  if (node.type === "all_of") return node.conditions.every(holds);
  if (node.type === "any_of") return node.conditions.some(holds);
  return node.conditions.filter(holds).length >= (node.n ?? 0);
}

export function evaluateStrategy(node: VerifyStrategy, results: FieldResults): boolean {
  // The schema refuses a field_check without field_name; the "" only satisfies the types.
  // Stryker disable next-line StringLiteral: equivalent, no validated strategy reaches it
  return evaluateComposition(node, (leaf) => results[leaf.field_name ?? ""] === true);
}

/** The implicit strategy of a template without one: every field must pass. */
export function defaultStrategy(fields: readonly TemplateField[]): VerifyStrategy {
  return { type: "all_of", conditions: fields.map((f) => ({ type: "field_check", field_name: f.name, conditions: [] })) };
}

export function granularScore(root: VerifyStrategy, fields: readonly TemplateField[], scores: FieldScores): number {
  const total = fields.reduce((acc, f) => acc + f.weight, 0);
  if (total === 0) return 0;
  const inFieldOrder = fields.map((f) => f.weight * (scores[f.name] ?? 0));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  let score: number;
  if (root.type === "any_of" || root.type === "at_least_n") {
    const sorted = [...inFieldOrder].sort((a, b) => b - a);
    score = sum(root.type === "any_of" ? sorted.slice(0, 1) : sorted.slice(0, root.n ?? 0)) / total;
  } else {
    // Summed in field order, like the denominator, so every field passing gives exactly 1.
    score = sum(inFieldOrder) / total;
  }
  // Summing in another order than the denominator can overshoot 1 by an ulp (Karenina's sorted
  // sum does); a score is never above 1.
  return Math.min(1, score);
}

/**
 * `composition_strategy` as Karenina's FinalizeResult records an explicit strategy: "all_of",
 * "any_of", "at_least_n(N)", and for a FieldCheck root its lower-cased class name "fieldcheck".
 * A template without a strategy records null (the implicit all-of is not labelled).
 */
export function strategyLabel(root: VerifyStrategy): string {
  if (root.type === "at_least_n") return `at_least_n(${root.n ?? 0})`;
  return root.type === "field_check" ? "fieldcheck" : root.type;
}
