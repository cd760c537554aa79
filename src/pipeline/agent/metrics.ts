/**
 * Karenina's `agent_metrics` from a trace (trace_agent_metrics.extract_agent_metrics_from_messages):
 * iterations = assistant turns, tool_calls = the larger of calls asked and results returned,
 * tools_used sorted, per-tool counts, and "suspect" failed calls: a result the tool flagged as an
 * error, or whose text matches one of Karenina's error patterns (a heuristic: "error", "not found",
 * "500", … anywhere in the output).
 */
import type { Message } from "../../llm/port";

const TOOL_FAILURE_PATTERNS: readonly RegExp[] = [
  /\berror\b/i,
  /\bfailed\b/i,
  /\bexception\b/i,
  /\btraceback\b/i,
  /\bstack\s+trace\b/i,
  /\b404\b/i,
  /\b500\b/i,
  /\b502\b/i,
  /\b503\b/i,
  /\btimeout\b/i,
  /\binvalid\b/i,
  /\bunauthorized\b/i,
  /\bforbidden\b/i,
  /\bnot\s+found\b/i,
  /\bcannot\b/i,
  /\bunable\s+to\b/i,
];

export type AgentMetrics = {
  iterations: number;
  tool_calls: number;
  tools_used: string[];
  tool_call_counts: Record<string, number>;
  suspect_failed_tool_calls: number;
  suspect_failed_tools: string[];
};

export function agentMetrics(messages: readonly Message[], flaggedFailed: readonly string[] = []): AgentMetrics {
  const flagged = new Set(flaggedFailed);
  const nameOf = new Map<string, string>();
  const counts: Record<string, number> = {};
  const suspectTools = new Set<string>();
  let iterations = 0;
  let asked = 0;
  let results = 0;
  let suspect = 0;
  for (const m of messages) {
    if (m.role === "assistant") {
      iterations += 1;
      for (const c of m.tool_calls ?? []) {
        asked += 1;
        counts[c.name] = (counts[c.name] ?? 0) + 1;
        nameOf.set(c.id, c.name);
      }
    } else if (m.role === "tool") {
      results += 1;
      const id = m.tool_call_id ?? "";
      if (flagged.has(id) || TOOL_FAILURE_PATTERNS.some((p) => p.test(m.content))) {
        suspect += 1;
        const name = nameOf.get(id);
        if (name) suspectTools.add(name);
      }
    }
  }
  return {
    iterations,
    tool_calls: Math.max(asked, results),
    tools_used: Object.keys(counts).sort(),
    tool_call_counts: counts,
    suspect_failed_tool_calls: suspect,
    suspect_failed_tools: [...suspectTools].sort(),
  };
}
