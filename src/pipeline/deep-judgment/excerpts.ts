/**
 * Deep judgment, stage 1: excerpt extraction with fuzzy validation and retries with feedback.
 * An excerpt counts only if it is found in the response (similarity ≥ threshold); attributes
 * left with none after the retries are `attributes_without_excerpts` (→ stage 10 autofail).
 */
import { z } from "zod";
import type { LlmError, Message, ModelPort, Usage } from "../../llm/port";
import type { Confidence, Excerpt } from "../../core-shared/evidence";
import { addUsage } from "../../core-shared/usage";
import { excerptSimilarity } from "../../core-shared/fuzzy";
import { type Attribute, buildExcerptMessages, excerptRetryFeedback } from "./prompts";

const CONFIDENCES: readonly Confidence[] = ["high", "medium", "low", "none"];
const RawExcerpt = z.object({
  text: z
    .string()
    .nullish()
    .transform((t) => t ?? ""),
  confidence: z
    .string()
    .nullish()
    .transform((c): Confidence => (CONFIDENCES.includes(c as Confidence) ? (c as Confidence) : "low")),
  explanation: z.string().nullish(),
});
type RawExcerpt = z.output<typeof RawExcerpt>;

export interface ExcerptSettings {
  question: string;
  response: string;
  attributes: readonly Attribute[];
  max: number;
  threshold: number;
  retries: number;
  instructions?: string;
}

export type ExcerptOutcome =
  | { ok: true; excerpts: Record<string, Excerpt[]>; missing: string[]; calls: number; retries: number; usage: Usage | undefined }
  | { ok: false; error: LlmError; calls: number; usage: Usage | undefined };

export async function extractExcerpts(judge: ModelPort, s: ExcerptSettings): Promise<ExcerptOutcome> {
  const names = s.attributes.map((a) => a.name);
  const schema = z.object(Object.fromEntries(names.map((n) => [n, z.array(RawExcerpt).nullish()])));
  const jsonSchema = {
    type: "object",
    properties: Object.fromEntries(
      names.map((n) => [
        n,
        {
          type: "array",
          items: {
            type: "object",
            properties: { text: { type: "string" }, confidence: { type: "string" }, explanation: { type: "string" } },
            required: ["text", "confidence"],
          },
        },
      ]),
    ),
    required: names,
  };
  const messages: Message[] = buildExcerptMessages(s.question, s.response, s.attributes, s.max, s.instructions);
  const valid: Record<string, Excerpt[]> = Object.fromEntries(names.map((n) => [n, []]));
  let pending = names;
  let calls = 0;
  let retries = 0;
  let usage: Usage | undefined;
  for (;;) {
    const res = await judge.structured({
      messages,
      schemaName: "DeepJudgmentExcerpts",
      jsonSchema,
      schema,
      call_site: "deep_judgment/excerpts",
    });
    calls++;
    if (!res.ok) return { ok: false, error: res.error, calls, usage };
    usage = addUsage(usage, res.value.usage);
    const failed: Record<string, string[]> = {};
    for (const name of pending) {
      const raw = (res.value.value[name] ?? []) as RawExcerpt[];
      const { kept, rejected } = validate(raw, s.response, s.threshold);
      valid[name] = kept.slice(0, s.max);
      if (kept.length === 0 && rejected.length > 0) failed[name] = rejected;
    }
    pending = Object.keys(failed);
    if (pending.length === 0 || retries >= s.retries) break;
    retries++;
    messages.push({ role: "assistant", content: res.value.raw }, excerptRetryFeedback(failed));
  }
  const missing = names.filter((n) => valid[n]!.length === 0);
  return { ok: true, excerpts: valid, missing, calls, retries, usage };
}

function validate(raw: RawExcerpt[], response: string, threshold: number): { kept: Excerpt[]; rejected: string[] } {
  const kept: Excerpt[] = [];
  const rejected: string[] = [];
  for (const e of raw) {
    if (!e.text.trim()) continue; // "no evidence" entry: nothing to validate
    const similarity_score = excerptSimilarity(e.text, response);
    if (similarity_score >= threshold) kept.push({ text: e.text, confidence: e.confidence, similarity_score });
    else rejected.push(e.text);
  }
  return { kept, rejected };
}

/** Excerpts as the reasoning prompt shows them. */
export function formatExcerpts(excerpts: Record<string, Excerpt[]>): string {
  return Object.entries(excerpts)
    .map(([attr, list]) =>
      list.length
        ? `${attr}:\n${list.map((e, i) => `  ${i + 1}. "${e.text}" (confidence: ${e.confidence}, similarity: ${e.similarity_score.toFixed(2)}${e.hallucination_risk ? `, hallucination risk: ${e.hallucination_risk.toUpperCase()} — ${e.hallucination_justification}` : ""})`).join("\n")}`
        : `${attr}:\n  (no verbatim excerpt found in the response)`,
    )
    .join("\n\n");
}
