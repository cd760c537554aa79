/**
 * What a scenario reads of a turn's result (src/scenarios `TurnOutcome`), derived from the result
 * alone, so a redelivery that finds the result saved derives the same next turn. Pure.
 */
import type { TurnOutcome } from "../scenarios/engine";
import type { VerificationResult } from "../schemas/result";

/** What the scenario reads of a turn's result (derived from the result alone, so a redelivery derives the same). */
export function turnOutcome(result: VerificationResult): TurnOutcome {
  const t = result.template;
  const trace = t?.trace_messages ?? [];
  // The model's own messages: what follows the last prompt it was given (a plain answer: one message).
  const lastUser = trace.map((m) => m.role).lastIndexOf("user");
  const produced =
    lastUser >= 0 && lastUser < trace.length - 1
      ? trace.slice(lastUser + 1)
      : [{ role: "assistant" as const, content: t?.raw_llm_response ?? "" }];
  const failure = result.metadata.failure;
  return {
    produced,
    raw_response: t?.raw_llm_response ?? "",
    parsed: t?.parsed_llm_response ?? {},
    verify_result: t?.verify_result ?? null,
    rubric: traitScores(result),
    result_id: result.metadata.result_id,
    failure: failure ? { category: failure.category, stage: failure.stage, reason: failure.reason } : null,
  };
}

/** Karenina's `get_all_trait_scores()`: every kind of trait score in one map. */
function traitScores(result: VerificationResult): Record<string, unknown> {
  const r = result.rubric as Record<string, unknown> | null | undefined;
  if (!r) return {};
  const maps = ["llm_trait_scores", "regex_trait_scores", "callable_trait_scores", "metric_trait_scores", "agentic_trait_scores"];
  return Object.assign({}, ...maps.map((k) => (r[k] && typeof r[k] === "object" ? r[k] : {})));
}
