/**
 * An in-process ModelPort for core tests: answers come from a script, calls are recorded.
 * (HTTP-level tests use the real SDK adapters against the fake LLM server instead.)
 */
import { plainRequest } from "./plain-prompt";
import type { ChatRequest, LlmError, LlmResult, ModelPort, StructuredRequest, StructuredResponse, Usage } from "../../src/llm/port";
import { unsupported } from "../../src/llm/port";

export interface ScriptedPortOptions {
  model?: string;
  /** Text for chat calls, or an error. */
  chat?: (req: ChatRequest) => string | LlmError;
  /** Raw structured output (validated against the request's schema), or an error. */
  structured?: (req: StructuredRequest<unknown>) => unknown | LlmError;
}

export interface ScriptedPort extends ModelPort {
  calls: { op: string; messages: { role: string; content: string }[] }[];
}

const isError = (x: unknown): x is LlmError => !!x && typeof x === "object" && "kind" in x && "message" in x && Object.keys(x).length <= 5;

export function scriptedPort(opts: ScriptedPortOptions = {}): ScriptedPort {
  const model = opts.model ?? "scripted";
  const usage = (): Usage => ({ input_tokens: 10, output_tokens: 5, total_tokens: 15, model });
  const calls: ScriptedPort["calls"] = [];
  return {
    identity: { interface: "openai_compatible", model_name: model },
    calls,
    async chat(marked) {
      const req = plainRequest(marked);
      calls.push({ op: "chat", messages: req.messages });
      const out = opts.chat ? opts.chat(req) : "scripted answer";
      return isError(out) ? { ok: false, error: out } : { ok: true, value: { text: out, usage: usage() } };
    },
    async structured<T>(marked: StructuredRequest<T>): Promise<LlmResult<StructuredResponse<T>>> {
      const req = plainRequest(marked);
      calls.push({ op: "structured", messages: req.messages });
      const out = opts.structured ? opts.structured(req as StructuredRequest<unknown>) : {};
      if (isError(out)) return { ok: false, error: out };
      const parsed = req.schema.safeParse(out);
      if (!parsed.success) {
        return { ok: false, error: { kind: "invalid_output", message: parsed.error.message, raw: JSON.stringify(out) } };
      }
      return { ok: true, value: { value: parsed.data, raw: JSON.stringify(out), usage: usage() } };
    },
    embed: async () => unsupported("embeddings"),
    toolTurn: async () => unsupported("tool turns"),
    logprobs: async () => unsupported("logprobs"),
  };
}
