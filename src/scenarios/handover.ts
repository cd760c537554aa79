/**
 * Handover (Karenina `scenario/handover.py`): when an edge with a handover strategy is followed,
 * the next node does not get the conversation as chat history; it gets it as a labelled text
 * transcript in its question, and an empty history.
 *   transcript_prepend   transcript, separator, question
 *   transcript_append    question, separator, transcript
 * Transcript lines are Karenina's labels: `[__user__] text` for the scenario's prompts and
 * `[<agent>:<role>:<text|tool_use|tool_result>] …` for everything an agent produced; a tool call
 * reads `name(arg='value', …)` with Python's repr of each argument.
 */
import { pyRepr } from "../templates/python";
import type { Handover } from "./scenario-schema";
import { type TaggedMessage, USER_AGENT } from "./state";

export const TRANSCRIPT_SEPARATOR = "\n\n---\n\n";

export function formatTranscript(messages: readonly TaggedMessage[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    const label = (type: string) => (m.agent_id === USER_AGENT ? `[${USER_AGENT}]` : `[${m.agent_id}:${m.role}:${type}]`);
    if (m.role === "tool") lines.push(`${label("tool_result")} ${m.content}`);
    else if (m.content !== "" || !m.tool_calls?.length) lines.push(`${label("text")} ${m.content}`);
    for (const call of m.tool_calls ?? []) lines.push(`${label("tool_use")} ${call.name}(${toolArgs(call.arguments)})`);
  }
  return lines.join("\n");
}

function toolArgs(args: unknown): string {
  if (!args || typeof args !== "object" || Array.isArray(args)) return "";
  return Object.entries(args as Record<string, unknown>)
    .map(([k, v]) => `${k}=${pyRepr(v)}`)
    .join(", ");
}

/** The next turn's question text and chat history after following an edge with `handover`. */
export function applyHandover(
  handover: Handover,
  messages: readonly TaggedMessage[],
  questionText: string,
): { question_text: string; history: TaggedMessage[] } {
  const transcript = formatTranscript(messages);
  const question_text =
    handover === "transcript_prepend" ? transcript + TRANSCRIPT_SEPARATOR + questionText : questionText + TRANSCRIPT_SEPARATOR + transcript;
  return { question_text, history: [] };
}
