/**
 * LLM traits (boolean, score, literal, template-kind) through the judge port.
 *
 * batch: boolean+score traits in one call, literal traits in one call, and traits that see the
 *   reference answer (`include_ground_truth` with a non-empty raw answer) in calls of their own.
 * sequential: one call per trait.
 * Template-kind traits always take one call each (their own schema). A failed call leaves its
 * traits at null with a warning: the judge failing is never the answer failing.
 */
import { z } from "zod";
import { isRetryable, type LlmError, type ModelPort } from "../llm/port";
import type { LLMRubricTrait } from "../schemas/rubric";
import { batchScoresMessages, literalMessages, type PromptContext, singleTraitMessages, templateTraitMessages } from "./prompts";
import type { EvalLog } from "./types";
import { literalIndex, traitValue } from "./values";

export interface LlmTraitScores {
  scores: Record<string, number | boolean | null>;
  labels: Record<string, string>;
}

export interface LlmTraitDeps {
  judge: ModelPort;
  context: PromptContext;
  /** The raw (reference) answer, shown to traits with include_ground_truth. */
  reference: string | null;
  log: EvalLog & { transient?: LlmError };
}

const Lax = z.union([z.number(), z.boolean(), z.string(), z.null()]);
const BatchScores = z.object({ scores: z.record(z.string(), Lax) });
export const BATCH_SCORES_SCHEMA = {
  description:
    "Structured output for batch trait evaluation.\n\nUsed when evaluating multiple rubric traits in a single LLM call.\nThe LLM returns all trait scores in one response.",
  properties: {
    scores: {
      additionalProperties: { anyOf: [{ type: "integer" }, { type: "boolean" }] },
      description: "Dictionary mapping trait names to scores (int for score traits, bool for binary)",
      title: "Scores",
      type: "object",
    },
  },
  required: ["scores"],
  title: "BatchRubricScores",
  type: "object",
};
const BatchLiteral = z.object({ classifications: z.array(z.object({ trait_name: z.string(), class_name: z.string() })) });
const BATCH_LITERAL_SCHEMA = {
  type: "object",
  properties: {
    classifications: {
      type: "array",
      items: {
        type: "object",
        properties: { trait_name: { type: "string" }, class_name: { type: "string" } },
        required: ["trait_name", "class_name"],
      },
    },
  },
  required: ["classifications"],
};
const SingleBool = z.object({ result: Lax });
const SingleScore = z.object({ score: Lax });
const SingleLiteral = z.object({ classification: z.string() });

const isTemplateKind = (t: LLMRubricTrait) => typeof t.kind === "object";
const seesReference = (t: LLMRubricTrait, d: LlmTraitDeps) => t.include_ground_truth === true && !!d.reference;

async function call<T>(
  d: LlmTraitDeps,
  what: string,
  req: Parameters<ModelPort["structured"]>[0] & { schema: z.ZodType<T> },
): Promise<T | null> {
  const res = await d.judge.structured<T>(req);
  if (!res.ok) {
    d.log.warnings.push(`rubric evaluation: ${what} failed (${res.error.kind}): ${res.error.message}`);
    if (isRetryable(res.error) && !d.log.transient) d.log.transient = res.error;
    return null;
  }
  d.log.usage.push(res.value.usage);
  return res.value.value;
}

function ctx(d: LlmTraitDeps, withRef: boolean): PromptContext {
  return withRef ? { ...d.context, reference: d.reference! } : d.context;
}

/** Groups of traits sharing one batch call: by reference exposure. */
function byReference(traits: LLMRubricTrait[], d: LlmTraitDeps): [LLMRubricTrait[], boolean][] {
  const plain = traits.filter((t) => !seesReference(t, d));
  const withRef = traits.filter((t) => seesReference(t, d));
  return (
    [
      [plain, false],
      [withRef, true],
    ] as [LLMRubricTrait[], boolean][]
  ).filter(([g]) => g.length > 0);
}

export async function evaluateLlmTraits(
  traits: LLMRubricTrait[],
  strategy: "batch" | "sequential",
  d: LlmTraitDeps,
): Promise<LlmTraitScores> {
  const out: LlmTraitScores = { scores: {}, labels: {} };
  const scalar = traits.filter((t) => t.kind === "boolean" || t.kind === "score");
  const literal = traits.filter((t) => t.kind === "literal");
  if (strategy === "batch") {
    for (const [group, ref] of byReference(scalar, d)) await batchScalar(group, ref, d, out);
    for (const [group, ref] of byReference(literal, d)) await batchLiteral(group, ref, d, out);
  } else {
    for (const t of scalar) await singleScalar(t, d, out);
    for (const t of literal) await singleLiteral(t, d, out);
  }
  for (const t of traits.filter(isTemplateKind)) await templateTrait(t, d, out);
  return out;
}

async function batchScalar(traits: LLMRubricTrait[], ref: boolean, d: LlmTraitDeps, out: LlmTraitScores): Promise<void> {
  const messages = batchScoresMessages(traits, ctx(d, ref), BATCH_SCORES_SCHEMA);
  const v = await call(d, "batch boolean/score call", {
    messages,
    schemaName: "BatchRubricScores",
    jsonSchema: BATCH_SCORES_SCHEMA,
    schema: BatchScores,
    call_site: `rubric/batch${ref ? "/ref" : ""}`,
  });
  for (const t of traits) out.scores[t.name] = v ? traitValue(t, v.scores[t.name]) : null;
  if (v) {
    const missing = traits.filter((t) => out.scores[t.name] === null).map((t) => t.name);
    if (missing.length) d.log.warnings.push(`rubric evaluation: no usable value for ${missing.join(", ")} in the batch reply`);
  }
}

async function batchLiteral(traits: LLMRubricTrait[], ref: boolean, d: LlmTraitDeps, out: LlmTraitScores): Promise<void> {
  const messages = literalMessages(traits, ctx(d, ref), BATCH_LITERAL_SCHEMA, false);
  const v = await call(d, "batch literal call", {
    messages,
    schemaName: "BatchLiteralClassifications",
    jsonSchema: BATCH_LITERAL_SCHEMA,
    schema: BatchLiteral,
    call_site: `rubric/literal${ref ? "/ref" : ""}`,
  });
  const got = new Map((v?.classifications ?? []).map((c) => [c.trait_name, c.class_name]));
  for (const t of traits) setLiteral(t, got.has(t.name) ? got.get(t.name) : undefined, out);
}

function setLiteral(t: LLMRubricTrait, label: string | undefined, out: LlmTraitScores): void {
  if (label === undefined) {
    out.scores[t.name] = null;
    return;
  }
  const m = literalIndex(t.classes ?? {}, label);
  out.scores[t.name] = m.score;
  out.labels[t.name] = m.label;
}

async function singleScalar(t: LLMRubricTrait, d: LlmTraitDeps, out: LlmTraitScores): Promise<void> {
  const bool = t.kind === "boolean";
  const jsonSchema = {
    type: "object",
    properties: bool ? { result: { type: "boolean" } } : { score: { type: "integer" } },
    required: [bool ? "result" : "score"],
  };
  const messages = singleTraitMessages(t, ctx(d, seesReference(t, d)), jsonSchema);
  const schema = bool ? SingleBool : SingleScore;
  const v = await call<{ result?: unknown; score?: unknown }>(d, `trait ${t.name}`, {
    messages,
    schemaName: bool ? "SingleBooleanScore" : "SingleNumericScore",
    jsonSchema,
    schema,
    call_site: `rubric/trait/${t.name}`,
  });
  out.scores[t.name] = v ? traitValue(t, bool ? v.result : v.score) : null;
}

async function singleLiteral(t: LLMRubricTrait, d: LlmTraitDeps, out: LlmTraitScores): Promise<void> {
  const jsonSchema = { type: "object", properties: { classification: { type: "string" } }, required: ["classification"] };
  const messages = literalMessages([t], ctx(d, seesReference(t, d)), jsonSchema, true);
  const v = await call(d, `trait ${t.name}`, {
    messages,
    schemaName: "SingleLiteralClassification",
    jsonSchema,
    schema: SingleLiteral,
    call_site: `rubric/trait/${t.name}`,
  });
  setLiteral(t, v?.classification, out);
}

/** Template-kind: the trait's own schema; each field becomes `trait.field`. */
async function templateTrait(t: LLMRubricTrait, d: LlmTraitDeps, out: LlmTraitScores): Promise<void> {
  const jsonSchema = (t.kind as { schema: Record<string, unknown> }).schema;
  const fields = Object.keys((jsonSchema.properties as Record<string, unknown> | undefined) ?? {});
  const messages = templateTraitMessages(t, ctx(d, seesReference(t, d)), jsonSchema);
  const v = await call(d, `trait ${t.name}`, {
    messages,
    schemaName: String(jsonSchema.title ?? t.name),
    jsonSchema,
    schema: z.record(z.string(), z.unknown()),
    call_site: `rubric/trait/${t.name}`,
  });
  for (const f of fields) {
    const value = v?.[f];
    const key = `${t.name}.${f}`;
    if (typeof value === "number" || typeof value === "boolean") out.scores[key] = value;
    else if (typeof value === "string") out.labels[key] = value;
    else out.scores[key] = null;
  }
}
