/**
 * One repair retry for structured output: when a model's output does not parse or fails the
 * schema (`invalid_output`), it is shown what it produced and why that was refused, and asked
 * once more. A second invalid output stays `invalid_output` (the pipeline's `parsing` failure):
 * never a value, never a guess.
 */
import type { LlmResult, Message, ModelPort, StructuredRequest, StructuredResponse } from "./port";
import { truncate } from "./errors";

/** Long enough to show the model its mistake, short enough not to double the prompt. */
const RAW_ECHO_LIMIT = 4_000;

export function repairMessages(messages: readonly Message[], raw: string, problem: string): Message[] {
  return [
    ...messages,
    { role: "assistant", content: truncate(raw, RAW_ECHO_LIMIT) },
    {
      role: "user",
      content:
        `Your previous reply could not be used: ${problem}\n` +
        "Reply again with only a JSON object that satisfies the requested schema, and nothing else.",
    },
  ];
}

export async function structuredWithRepair<T>(inner: ModelPort, req: StructuredRequest<T>): Promise<LlmResult<StructuredResponse<T>>> {
  const first = await inner.structured(req);
  if (first.ok || first.error.kind !== "invalid_output") return first;
  const call_site = req.call_site === undefined ? undefined : `${req.call_site}/repair`;
  const second = await inner.structured({
    ...req,
    messages: repairMessages(req.messages, first.error.raw ?? "", first.error.message),
    ...(call_site ? { call_site } : {}),
  });
  if (second.ok) return second;
  if (second.error.kind !== "invalid_output") return second;
  return { ok: false, error: { ...second.error, message: `${second.error.message} (after one repair retry)` } };
}

/** The port with structured calls given one repair retry; other operations pass through. */
export function repairingPort(inner: ModelPort): ModelPort {
  return {
    identity: inner.identity,
    chat: (req) => inner.chat(req),
    structured: (req) => structuredWithRepair(inner, req),
    embed: (req) => inner.embed(req),
    toolTurn: (req) => inner.toolTurn(req),
    logprobs: (req) => inner.logprobs(req),
  };
}
