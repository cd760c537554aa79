/**
 * The port that turns the untrusted-text marks of a prompt (src/lib/untrusted.ts) into
 * nonce-delimited blocks, per call: the nonce comes from the call's site, so every call of a job
 * (and each retry of one call) gets its own, reproducible one. It sits under the retries and the
 * response cache, which therefore key on the marked prompt and keep working whatever the nonce.
 */
import { delimit, hasUntrusted } from "../lib/untrusted";
import type { Message, ModelPort } from "./port";

/** The nonce for a call site; null turns delimiting off (the prompt as Karenina writes it). */
export type NonceFor = (callSite: string) => Promise<string | null>;

export function delimitingPort(inner: ModelPort, nonceFor: NonceFor): ModelPort {
  const withBlocks = async <R extends { messages: Message[]; call_site?: string }>(req: R): Promise<R> => {
    if (!req.messages.some((m) => hasUntrusted(m.content))) return req;
    const nonce = await nonceFor(req.call_site ?? "");
    return { ...req, messages: req.messages.map((m) => (hasUntrusted(m.content) ? { ...m, content: delimit(m.content, nonce) } : m)) };
  };
  return {
    identity: inner.identity,
    chat: async (req) => inner.chat(await withBlocks(req)),
    structured: async (req) => inner.structured(await withBlocks(req)),
    embed: (req) => inner.embed(req),
    toolTurn: async (req) => inner.toolTurn(await withBlocks(req)),
    logprobs: async (req) => inner.logprobs(await withBlocks(req)),
  };
}
