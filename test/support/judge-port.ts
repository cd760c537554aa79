/**
 * A scripted ModelPort for compound-judge tests: every operation (structured, chat, logprobs) is
 * answered by one function that sees the op, the prompt text and the call-site id; calls are
 * recorded in order with their start and end. An answer may be a value, an LlmError, or a
 * promise (to hold a call open and observe concurrency).
 */
import { plainRequest } from "./plain-prompt";
import type { LlmError, ModelPort, Usage } from "../../src/llm/port";
import { unsupported } from "../../src/llm/port";
import type { JudgePorts } from "../../src/judges";
import type { ModelConfig } from "../../src/schemas/model-config";

export interface JudgeCall {
  op: "structured" | "chat" | "logprobs";
  model: string;
  call_site?: string;
  system: string;
  user: string;
  jsonSchema?: Record<string, unknown>;
  seq: number;
}

export type Answer = unknown | LlmError | Promise<unknown>;
export type Script = (call: JudgeCall) => Answer;

const isError = (x: unknown): x is LlmError =>
  !!x && typeof x === "object" && "kind" in x && "message" in x && typeof (x as LlmError).kind === "string";

export function judgePorts(script: Script, opts: { logprobs?: boolean; rng?: () => number } = {}) {
  const calls: JudgeCall[] = [];
  const events: string[] = [];
  const ports = new Map<string, ModelPort>();
  let seq = 0;
  const make = (model: string): ModelPort => {
    const usage = (): Usage => ({ input_tokens: 10, output_tokens: 5, total_tokens: 15, model });
    const run = async (op: JudgeCall["op"], marked: any) => {
      const req = plainRequest(marked);
      const call: JudgeCall = {
        op,
        model,
        call_site: req.call_site,
        system: req.messages.find((m: any) => m.role === "system")?.content ?? "",
        user: req.messages
          .filter((m: any) => m.role === "user")
          .map((m: any) => m.content)
          .join("\n"),
        jsonSchema: req.jsonSchema,
        seq: seq++,
      };
      calls.push(call);
      events.push(`start ${call.call_site}`);
      const out = await script(call);
      events.push(`end ${call.call_site}`);
      return out;
    };
    return {
      identity: { interface: "openai_compatible", model_name: model },
      async structured(req) {
        const out = await run("structured", req);
        if (isError(out)) return { ok: false, error: out };
        const parsed = req.schema.safeParse(out);
        if (!parsed.success)
          return { ok: false, error: { kind: "invalid_output", message: parsed.error.message, raw: JSON.stringify(out) } };
        return { ok: true, value: { value: parsed.data, raw: JSON.stringify(out), usage: usage() } };
      },
      async chat(req) {
        const out = await run("chat", req);
        return isError(out) ? { ok: false, error: out } : { ok: true, value: { text: String(out), usage: usage() } };
      },
      async logprobs(req) {
        if (!opts.logprobs) return unsupported("logprobs");
        const out = await run("logprobs", req);
        if (isError(out)) return { ok: false, error: out };
        const top = out as { token: string; logprob: number }[];
        return {
          ok: true,
          value: {
            text: top[0]?.token ?? "",
            tokens: [{ token: top[0]?.token ?? "", logprob: top[0]?.logprob ?? 0, top }],
            usage: usage(),
          },
        };
      },
      embed: async () => unsupported("embeddings"),
      toolTurn: async () => unsupported("tool turns"),
    };
  };
  const judgePorts: JudgePorts = {
    model(config: ModelConfig) {
      let p = ports.get(config.model_name);
      if (!p) ports.set(config.model_name, (p = make(config.model_name)));
      return p;
    },
    ...(opts.rng ? { rng: opts.rng } : {}),
  };
  return { ports: judgePorts, calls, events };
}

/** A normalised model config for tests (the judges core never builds adapters from it). */
export function testModel(model_name = "judge-model"): any {
  return {
    id: model_name,
    interface: "openai_compatible",
    model_name,
    base_url: "http://fake.invalid/v1",
    temperature: 0.1,
    max_tokens: 100,
  };
}
