/** Token usage arithmetic for usage_metadata (several calls in one stage add up). */
import type { Usage } from "../llm/port";

export function addUsage(a: Usage | undefined, b: Usage): Usage {
  if (!a) return b;
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
    model: a.model,
    // A stage is marked as served from the response cache only when every call of it was.
    ...(a.cached && b.cached ? { cached: true } : {}),
  };
}
