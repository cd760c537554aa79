/**
 * What rubric evaluation produces and the ports it needs from outside the core.
 * The `RubricSection` is Karenina's VerificationResultRubric (src/schemas/result.ts); the
 * evaluators fill it piece by piece.
 */
import type { Usage } from "../llm/port";
import type { JudgeOutcome } from "../judges/types";

export type Provenance = "global" | "question_specific" | "dynamic";

export interface ConfusionLists {
  tp: string[];
  fn: string[];
  fp: string[];
  tn: string[];
}

/** One compound trait's unit-by-unit trace, kept with the result (the result JSON lives in R2). */
export type CompoundTrace = Pick<JudgeOutcome, "pass" | "score" | "threshold" | "reason" | "units" | "error">;

export interface RubricSection {
  rubric_evaluation_performed: boolean;
  rubric_evaluation_strategy: "batch" | "sequential" | null;
  llm_trait_scores: Record<string, number | boolean | null> | null;
  llm_trait_labels: Record<string, string> | null;
  regex_trait_scores: Record<string, boolean> | null;
  callable_trait_scores: Record<string, number | boolean | null> | null;
  metric_trait_scores: Record<string, Record<string, number>> | null;
  metric_trait_confusion_lists: Record<string, ConfusionLists> | null;
  agentic_trait_scores: Record<string, number | boolean | null> | null;
  agentic_trait_investigation_traces: Record<string, string> | null;
  agentic_trait_extraction_metadata: Record<string, unknown> | null;
  compound_trait_scores: Record<string, number | null> | null;
  compound_trait_traces: Record<string, CompoundTrace> | null;
  dynamic_rubric_promoted_traits: string[] | null;
  dynamic_rubric_skipped_traits: Record<string, string> | null;
  trait_provenance: Record<string, Provenance> | null;
}

/** Result of a callable trait's code: a value, or why it could not give one. */
export type CallableOutcome = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Runs a callable trait's JavaScript (`function evaluate(text)`) somewhere safe. The edge
 * implements it with the QuickJS sandbox (src/adapters/rubric-callable.ts); tests may script it.
 */
export interface CallableTraitPort {
  run(req: { trait: string; source: string; text: string }): Promise<CallableOutcome>;
}

/** What every evaluator reports besides its scores: usage and non-fatal problems. */
export interface EvalLog {
  usage: Usage[];
  warnings: string[];
}
