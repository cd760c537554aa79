/**
 * A scripted tool-calling judge for agentic tests: each tool turn is answered by a function that
 * sees the conversation so far (it can react to tool results); structured calls by schema name.
 * Also an in-memory workspace port.
 */
import { plainRequest } from "./plain-prompt";
import type {
  LlmError,
  LlmResult,
  Message,
  ModelPort,
  StructuredRequest,
  StructuredResponse,
  ToolCall,
  ToolTurnRequest,
} from "../../src/llm/port";
import { unsupported } from "../../src/llm/port";
import type { GrepHit, WorkspacePort } from "../../src/rubric/agentic/types";

export type TurnReply = { text?: string; tool_calls?: ToolCall[] } | LlmError;

export interface ToolPortOptions {
  model?: string;
  turn: (messages: Message[], req: ToolTurnRequest) => TurnReply;
  structured?: (req: StructuredRequest<unknown>) => unknown | LlmError;
}

const isError = (x: unknown): x is LlmError => !!x && typeof x === "object" && "kind" in x && "message" in x;

export function toolPort(opts: ToolPortOptions): ModelPort & { turns: ToolTurnRequest[]; extractions: StructuredRequest<unknown>[] } {
  const model = opts.model ?? "agent-model";
  const usage = { input_tokens: 10, output_tokens: 5, total_tokens: 15, model };
  const turns: ToolTurnRequest[] = [];
  const extractions: StructuredRequest<unknown>[] = [];
  return {
    identity: { interface: "openai_compatible", model_name: model },
    turns,
    extractions,
    async toolTurn(marked) {
      const req = plainRequest(marked);
      turns.push({ ...req, messages: [...req.messages] });
      const r = opts.turn(req.messages, req);
      if (isError(r)) return { ok: false, error: r };
      return { ok: true, value: { text: r.text ?? "", tool_calls: r.tool_calls ?? [], usage } };
    },
    async structured<T>(marked: StructuredRequest<T>): Promise<LlmResult<StructuredResponse<T>>> {
      const req = plainRequest(marked);
      extractions.push(req as StructuredRequest<unknown>);
      const out = opts.structured ? opts.structured(req as StructuredRequest<unknown>) : {};
      if (isError(out)) return { ok: false, error: out };
      const parsed = req.schema.safeParse(out);
      if (!parsed.success) return { ok: false, error: { kind: "invalid_output", message: parsed.error.message } };
      return { ok: true, value: { value: parsed.data, raw: JSON.stringify(out), usage } };
    },
    chat: async () => unsupported("chat"),
    embed: async () => unsupported("embeddings"),
    logprobs: async () => unsupported("logprobs"),
  };
}

export const call = (name: string, args: Record<string, unknown>, id = `c-${name}`): ToolCall => ({ id, name, arguments: args });

export function memoryWorkspace(files: Record<string, string> = {}): WorkspacePort & { files: Map<string, string> } {
  const map = new Map(Object.entries(files));
  return {
    label: "workspace/",
    files: map,
    list: async (prefix = "") => ({
      ok: true,
      value: [...map].filter(([p]) => p.startsWith(prefix)).map(([path, c]) => ({ path, size: c.length })),
    }),
    read: async (path, offset = 0, length = 8000) =>
      map.has(path) ? { ok: true, value: map.get(path)!.slice(offset, offset + length) } : { ok: false, error: `no such file: ${path}` },
    grep: async (pattern, prefix = "") => {
      const re = new RegExp(pattern);
      const hits: GrepHit[] = [];
      for (const [path, c] of map)
        if (path.startsWith(prefix)) c.split("\n").forEach((text, i) => re.test(text) && hits.push({ path, line: i + 1, text }));
      return { ok: true, value: hits };
    },
    write: async (path, content) => (map.set(path, content), { ok: true, value: undefined }),
    delete: async (path) => (map.delete(path), { ok: true, value: undefined }),
  };
}
