/**
 * Field verification (Karenina's auto-generated `verify()` / `verify_granular()` for
 * VerifiedField templates, plus the per-field maps FinalizeResult records).
 *
 * - A null or missing parsed value gives a null field result and score (tri-valued), and the
 *   primitive is not called.
 * - A primitive that throws gives a null result for that field and a `field_verification_error`;
 *   as in Karenina, the field verdict is then false and the granular score is not computed
 *   (null), so the two never contradict each other.
 * - Trace fields (TraceRegex, TraceContains, TraceLength) ignore the parsed answer: they pass
 *   when the primitive's condition on the raw answer equals `bool(ground_truth)`, so a false
 *   ground truth means "must be absent". They need `options.rawTrace`; without it they are a
 *   field error, never a guess.
 * - A check that could not be decided (a regex past its step budget, `RegexBudgetExceeded`) says
 *   nothing about the answer: `verify_result` is null (an error result, group system), not false.
 * - No fields (a regex-only template): the field part is true and nothing else is recorded.
 * Pure: reads only its arguments.
 */
import type { AnswerTemplate, TemplateField } from "./template-schema";
import { type FieldResults, type FieldScores, defaultStrategy, evaluateStrategy, granularScore, strategyLabel } from "./composition";
import { primitiveFor } from "./primitives/registry";
import { pyTruthy } from "./python";
import { RegexBudgetExceeded } from "./python-regex";

export interface VerifyOptions {
  /** The answering model's raw response, read by trace primitives. */
  rawTrace?: string;
}

export interface FieldVerification {
  field_results: FieldResults;
  field_scores: FieldScores;
  /** null: verification could not decide (a regex past its budget, custom code that failed to run). */
  verify_result: boolean | null;
  /** null when there are no fields or a primitive failed (Karenina skips verify_granular then). */
  verify_granular_result: number | null;
  /** Karenina's label of the template's own strategy: "all_of" | "any_of" | "at_least_n(N)" | "fieldcheck"; null without one. */
  composition_strategy: string | null;
  field_verification_error: string | null;
}

export function verifyFields(template: AnswerTemplate, parsed: Record<string, unknown>, options: VerifyOptions = {}): FieldVerification {
  const { fields } = template;
  if (fields.length === 0) {
    return {
      field_results: {},
      field_scores: {},
      verify_result: true,
      verify_granular_result: null,
      composition_strategy: null,
      field_verification_error: null,
    };
  }
  const results: FieldResults = {};
  const scores: FieldScores = {};
  const errors: string[] = [];
  let undecided = false;
  for (const field of fields) {
    try {
      [results[field.name], scores[field.name]] = verifyOne(field, parsed, options);
    } catch (e) {
      results[field.name] = null;
      scores[field.name] = null;
      if (e instanceof RegexBudgetExceeded) undecided = true;
      errors.push(`${field.name} (${field.verify_with?.type ?? "no verify_with"}): ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const root = template.verify_strategy ?? defaultStrategy(fields);
  const failed = errors.length > 0;
  return {
    field_results: results,
    field_scores: scores,
    verify_result: undecided ? null : !failed && evaluateStrategy(root, results),
    verify_granular_result: failed ? null : granularScore(root, fields, scores),
    composition_strategy: template.verify_strategy ? strategyLabel(template.verify_strategy) : null,
    field_verification_error: failed ? `Field verification failed: ${errors.join("; ")}` : null,
  };
}

/** One field's tri-valued result and score; throws what the primitive (Python) would raise. */
function verifyOne(field: TemplateField, parsed: Record<string, unknown>, options: VerifyOptions): [boolean | null, number | null] {
  // Only a custom_verify template has fields without verify_with, and it never comes here.
  const verifyWith = field.verify_with;
  if (!verifyWith) throw new Error("no verify_with (a custom_verify field verified as a primitive one)");
  const primitive = primitiveFor(verifyWith);
  if (primitive.kind === "trace") {
    if (options.rawTrace === undefined) throw new Error("a trace primitive needs the raw answer, and none was given");
    const passed = primitive.checkTrace!(options.rawTrace, verifyWith.params) === pyTruthy(field.ground_truth);
    return [passed, passed ? 1 : 0];
  }
  const value = parsed[field.name];
  if (value === null || value === undefined) return [null, null];
  const passed = primitive.check(value, field.ground_truth, verifyWith.params);
  return [passed, safeScore(() => primitive.score(value, field.ground_truth, verifyWith.params), passed)];
}

/**
 * Karenina clamps score() to [0, 1] (`min(1, max(0, s))`, which turns NaN into 0) and falls back
 * to the binary outcome if score() raises.
 */
function safeScore(score: () => number, passed: boolean): number {
  try {
    const s = score();
    return Number.isNaN(s) ? 0 : Math.min(1, Math.max(0, s));
  } catch {
    return passed ? 1 : 0;
  }
}

/** `parsed_gt_response`: Karenina's `self.correct`, `{field: ground_truth}`. */
export function groundTruthOf(template: AnswerTemplate): Record<string, unknown> {
  return Object.fromEntries(template.fields.map((f) => [f.name, f.ground_truth ?? null]));
}
