/**
 * Message traces as text, and what the judges read from them (Karenina's trace_formatting /
 * trace_parsing). A trace is written as Karenina's harmonised string: `--- AI Message ---` and
 * `--- Tool Message (call_id: X) ---` blocks; system and user turns are left out.
 *
 * Template judges read the final AI message by default (`use_full_trace_for_template: false`);
 * when it cannot be extracted they get the whole trace and `trace_extraction_error` says why.
 */
import type { Message } from "../llm/port";

const AI_HEADER = "--- AI Message ---";

export function formatTrace(messages: readonly Message[]): string {
  const parts: string[] = [];
  for (const m of messages) {
    if (m.role === "assistant") {
      const calls = (m.tool_calls ?? []).map(
        (c) => `  ${c.name} (call_${c.id})\n   Call ID: ${c.id}\n   Args: ${JSON.stringify(c.arguments)}`,
      );
      const body = [m.content, calls.length ? `\nTool Calls:\n${calls.join("\n")}` : ""].join("");
      if (body) parts.push(`${AI_HEADER}\n${body}`);
    } else if (m.role === "tool") {
      parts.push(`--- Tool Message (call_id: ${m.tool_call_id ?? "unknown"}) ---\n${m.content}`);
    }
  }
  return parts.join("\n\n");
}

export type Extraction = { ok: true; text: string } | { ok: false; error: string };

/** The final AI message's text, or why there is none (Karenina's messages). */
export function extractFinalAiMessage(messages: readonly Message[]): Extraction {
  const last = messages.at(-1);
  if (!last) return { ok: false, error: "Empty message list" };
  if (last.role !== "assistant") return { ok: false, error: "Last message in trace is not an AI message" };
  if (!last.content.trim()) return { ok: false, error: "Final AI message has no text content (only tool calls)" };
  return { ok: true, text: last.content };
}

export interface EvaluationInput {
  /** What template judges (abstention, sufficiency, parsing, deep judgment) read. */
  text: string;
  used_full_trace: boolean;
  trace_extraction_error: string | null;
}

/**
 * A plain answer (no trace) is the AI message itself. A trace gives its final AI message unless
 * the full trace is asked for; when extraction fails the full trace is the fallback and the error
 * is recorded.
 */
export function prepareEvaluationInput(raw: string, trace: readonly Message[] | null, useFullTrace: boolean): EvaluationInput {
  if (!trace) return { text: raw, used_full_trace: useFullTrace, trace_extraction_error: null };
  if (useFullTrace) return { text: formatTrace(trace), used_full_trace: true, trace_extraction_error: null };
  const final = extractFinalAiMessage(trace);
  if (final.ok) return { text: final.text, used_full_trace: false, trace_extraction_error: null };
  return {
    text: formatTrace(trace),
    used_full_trace: true,
    trace_extraction_error: `Failed to extract final AI message: ${final.error}`,
  };
}
