/** Shared builders for pipeline unit tests (scripted ports, inputs, a log that remembers). */
import type { EmbedRequest, LlmResult, EmbedResponse } from "../../../src/llm/port";
import type { PipelineInput, PipelineLog, PipelineSettings } from "../../../src/pipeline/types";
import { Question } from "../../../src/schemas/benchmark";
import { ModelConfig } from "../../../src/schemas/model-config";
import { type ScriptedPort, scriptedPort } from "../../support/scripted-port";

export const answering = ModelConfig.parse({ id: "ans", interface: "openai_compatible", model_name: "m-ans", base_url: "http://x/v1" });
export const parsing = ModelConfig.parse({ id: "judge", interface: "openai_compatible", model_name: "m-judge", base_url: "http://x/v1" });

export const clock = (start = 1_000) => {
  let t = start;
  return { now: () => (t += 250) };
};

export function question(overrides: Record<string, unknown> = {}) {
  return Question.parse({
    id: "q1",
    question: "Which organelle makes ATP?",
    template: {
      fields: [
        {
          name: "organelle",
          type: "str",
          description: "Organelle named as the ATP source",
          ground_truth: "mitochondrion",
          verify_with: { type: "ExactMatch" },
        },
      ],
    },
    ...overrides,
  });
}

export function input(overrides: Partial<PipelineInput> = {}, settings: Partial<PipelineSettings> = {}): PipelineInput {
  return {
    run_id: "run-1",
    run_name: null,
    question: question(),
    answering,
    parsing,
    replicate: 1,
    settings: { evaluation_mode: "template_only", include_extraction_hints: true, ...settings },
    ...overrides,
  };
}

export interface LogLine {
  level: "info" | "warn";
  event: string;
  fields?: Record<string, unknown>;
}

export function memoryLog(): PipelineLog & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    info: (event, fields) => lines.push({ level: "info", event, fields }),
    warn: (event, fields) => lines.push({ level: "warn", event, fields }),
  };
}

/** A judge whose structured replies are chosen by schema name (Answer, AbstentionResult, …). */
export function judgeBy(replies: Record<string, (messages: string) => unknown>, chat?: (messages: string) => string): ScriptedPort {
  return scriptedPort({
    structured: (req) => {
      const reply = replies[req.schemaName];
      if (!reply) throw new Error(`unexpected structured call ${req.schemaName}`);
      return reply(req.messages.map((m) => m.content).join("\n"));
    },
    chat: chat ? (req) => chat(req.messages.map((m) => m.content).join("\n")) : undefined,
  });
}

/** Adds an embeddings operation to a scripted port: vectors chosen per input text. */
export function withEmbeddings(port: ScriptedPort, vector: (text: string) => number[]): ScriptedPort & { embedCalls: EmbedRequest[] } {
  const embedCalls: EmbedRequest[] = [];
  return Object.assign(port, {
    embedCalls,
    embed: async (req: EmbedRequest): Promise<LlmResult<EmbedResponse>> => {
      embedCalls.push(req);
      return {
        ok: true,
        value: { vectors: req.inputs.map(vector), usage: { input_tokens: 4, output_tokens: 0, total_tokens: 4, model: req.model ?? "e" } },
      };
    },
  });
}
