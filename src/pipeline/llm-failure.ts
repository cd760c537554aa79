/**
 * Maps a model-port error to Karenina's failure taxonomy. Transient kinds keep their own
 * retry-group category; anything else is a system failure of the stage that made the call.
 * Never a content failure: the judge failing says nothing about the answer.
 */
import { isTransientKind, type LlmError } from "../llm/port";
import type { StageError, StageName } from "./types";

export function stageErrorFromLlm(stage: StageName, error: LlmError, what: string): StageError {
  // A transient kind is its own failure category (Karenina's retry group).
  const category = isTransientKind(error.kind) ? error.kind : stage === "parse_template" ? "parsing" : "unexpected_error";
  const status = error.status ? ` (HTTP ${error.status})` : "";
  return { category, stage, reason: truncate(`${what}: ${error.kind}${status}: ${error.message}`), llm: error };
}

/** Karenina caps failure reasons at 500 characters. */
export function truncate(text: string, max = 500): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
