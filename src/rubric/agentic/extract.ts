/**
 * Structured extraction of an agentic trait's score from an investigation trace, per kind:
 * boolean → {result}, score → {score} (clamped), literal → {classification} resolved to its class
 * index (-1 when it names no class), template kind → the trait's JSON schema, exploded into
 * `trait.field` scores. Public on its own because the shared strategy extracts every trait from
 * one investigation.
 */
import { z } from "zod";
import type { LlmError, Message, ModelPort, Usage } from "../../llm/port";
import type { AgenticScore, AgenticTrait } from "./types";

export type Extraction = { ok: true; scores: Record<string, AgenticScore>; label?: string; usage: Usage } | { ok: false; error: LlmError };

export async function extractScore(model: ModelPort, trait: AgenticTrait, trace: string, callSite: string): Promise<Extraction> {
  const kind = trait.kind;
  const user = `<criterion>\n${trait.name}: ${trait.description}\n</criterion>\n\n<investigation>\n${trace}\n</investigation>`;
  const msgs = (rule: string): Message[] => [
    {
      role: "system",
      content: `You are a structured data extraction assistant. From an evaluation agent's investigation, extract the verdict for the criterion. ${rule} Use only what the investigation found. Return ONLY the JSON object.`,
    },
    { role: "user", content: user },
  ];
  const site = `${callSite}/${trait.name}/extract`;
  if (kind === "boolean") {
    const r = await model.structured({
      messages: msgs('Return {"result": true|false}.'),
      schemaName: "SingleBooleanScore",
      jsonSchema: obj({ result: { type: "boolean" } }),
      schema: z.object({ result: z.boolean() }),
      call_site: site,
    });
    return r.ok ? { ok: true, scores: { [trait.name]: r.value.value.result }, usage: r.value.usage } : r;
  }
  if (kind === "score") {
    const [min, max] = [trait.min_score ?? 1, trait.max_score ?? 5];
    const r = await model.structured({
      messages: msgs(`Return {"score": <integer from ${min} to ${max}>}.`),
      schemaName: "SingleNumericScore",
      jsonSchema: obj({ score: { type: "integer" } }),
      schema: z.object({ score: z.number() }),
      call_site: site,
    });
    return r.ok
      ? { ok: true, scores: { [trait.name]: Math.min(max, Math.max(min, Math.round(r.value.value.score))) }, usage: r.value.usage }
      : r;
  }
  if (kind === "literal") {
    const classes = Object.entries(trait.classes ?? {});
    const rule = `Return {"classification": "<one class name>"}. Classes:\n${classes.map(([n, d]) => `- ${n}: ${d}`).join("\n")}`;
    const r = await model.structured({
      messages: msgs(rule),
      schemaName: "SingleLiteralClassification",
      jsonSchema: obj({ classification: { type: "string" } }),
      schema: z.object({ classification: z.string() }),
      call_site: site,
    });
    if (!r.ok) return r;
    const label = r.value.value.classification;
    return {
      ok: true,
      scores: {
        [trait.name]: literalIndex(
          classes.map(([n]) => n),
          label,
        ),
      },
      label,
      usage: r.value.usage,
    };
  }
  const r = await model.structured({
    messages: msgs("Fill every field of the schema from the evidence in the investigation."),
    schemaName: "AgenticTemplateTrait",
    jsonSchema: kind.schema,
    schema: z.record(z.string(), z.unknown()),
    call_site: site,
  });
  if (!r.ok) return r;
  const scores: Record<string, AgenticScore> = {};
  for (const [field, v] of Object.entries(r.value.value))
    scores[`${trait.name}.${field}`] = typeof v === "number" || typeof v === "boolean" ? v : null;
  return { ok: true, scores, usage: r.value.usage };
}

/** Exact class name first, then case-insensitive; -1 when neither matches. */
export function literalIndex(names: string[], label: string): number {
  const exact = names.indexOf(label);
  if (exact >= 0) return exact;
  const lower = label.trim().toLowerCase();
  return names.findIndex((n) => n.toLowerCase() === lower);
}

const obj = (properties: Record<string, unknown>) => ({ type: "object", properties, required: Object.keys(properties) });
