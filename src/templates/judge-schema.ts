/**
 * What the judge sees (Karenina `build_parsing_schema` over the relaxed answer class).
 *
 * The JSON Schema lists the judge-visible fields with their descriptions and types, every one
 * optional and nullable (Karenina's relaxed parsing class: `Optional[T] = None`), so "not in the
 * answer" is a null and not a made-up value. The ground truth, the primitive and the weight
 * never appear. `additionalProperties: true` mirrors Karenina's `extra="allow"`.
 *
 * The zod schema is what the judge's reply must satisfy: extra keys (Karenina's `id`, chatter)
 * are dropped, a missing field becomes null, and the lax coercions Pydantic would apply to a
 * JSON reply ("3" → 3 for numbers, "true"/"false" for booleans) are applied.
 */
import { z } from "zod";
import type { AnswerTemplate, TemplateField } from "./template-schema";
import { PRIMITIVES } from "./primitives/registry";
import { pyTitle } from "./python";

export type ParsedAnswer = Record<string, unknown>;

export interface JudgeSchema {
  jsonSchema: Record<string, unknown>;
  schema: z.ZodType<ParsedAnswer>;
}

/**
 * Fields the judge fills: those verified by a "parsed" primitive (trace ones read the raw answer),
 * and every field of a custom_verify template (no primitive: the code reads them all).
 */
export function judgeVisibleFields(template: AnswerTemplate): TemplateField[] {
  return template.fields.filter((f) => !f.verify_with || PRIMITIVES[f.verify_with.type].kind === "parsed");
}

/**
 * Memoised per template object: a job builds it in up to three stages (guards, parsing, deep
 * judgment), and building the zod schema costs far more than verifying an answer (bench/templates).
 * Also per judge-visible content: templates that differ only in ground truth, primitives or
 * weights (a benchmark's questions often share one shape) share one schema, and zod's first-parse
 * setup is paid once (bench/throughput: building and first-parsing a schema was ~1 ms of a job).
 * Callers must not mutate the returned objects; they are shared.
 */
const BUILT = new WeakMap<AnswerTemplate, JudgeSchema>();
const BY_SHAPE = new Map<string, JudgeSchema>();
const BY_SHAPE_LIMIT = 256;

export function buildJudgeSchema(template: AnswerTemplate): JudgeSchema {
  let built = BUILT.get(template);
  if (built) return built;
  const shape = JSON.stringify([
    template.class_name ?? null,
    judgeVisibleFields(template).map((f) => [f.name, f.type, f.literal_values ?? null, f.description]),
  ]);
  built = BY_SHAPE.get(shape);
  if (built) {
    // Most recently used last, so the oldest shape is the one dropped.
    BY_SHAPE.delete(shape);
  } else {
    built = buildUncached(template);
    if (BY_SHAPE.size >= BY_SHAPE_LIMIT) BY_SHAPE.delete(BY_SHAPE.keys().next().value!);
  }
  BY_SHAPE.set(shape, built);
  BUILT.set(template, built);
  return built;
}

function buildUncached(template: AnswerTemplate): JudgeSchema {
  const fields = judgeVisibleFields(template);
  const properties: Record<string, unknown> = {};
  const shape: Record<string, z.ZodType> = {};
  for (const field of fields) {
    properties[field.name] = {
      anyOf: [jsonTypeOf(field), { type: "null" }],
      default: null,
      description: field.description,
      title: pyTitle(field.name),
    };
    shape[field.name] = nullishValueSchemaOf(field);
  }
  const jsonSchema = {
    additionalProperties: true,
    properties,
    title: template.class_name ?? "Answer",
    type: "object",
  };
  const names = fields.map((f) => f.name);
  const schema = z.object(shape).transform((v): ParsedAnswer => {
    const out: ParsedAnswer = {};
    for (const name of names) out[name] = (v as ParsedAnswer)[name] ?? null;
    return out;
  });
  return { jsonSchema, schema };
}

function jsonTypeOf(field: TemplateField): Record<string, unknown> {
  switch (field.type) {
    case "bool":
      return { type: "boolean" };
    case "int":
      return { type: "integer" };
    case "float":
      return { type: "number" };
    case "str":
      return { type: "string" };
    case "date":
      return { type: "string", format: "date" };
    case "list_str":
      return { type: "array", items: { type: "string" } };
    case "literal":
      return { enum: [...(field.literal_values ?? [])], type: "string" };
  }
}

const numericString = (v: unknown) => (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : v);
const boolString = (v: unknown) => (v === "true" || v === "True" ? true : v === "false" || v === "False" ? false : v);

/** Stateless, so shared by every template: building zod schemas dominates the judge-schema cost. */
const NULLISH_VALUE = {
  bool: z.preprocess(boolString, z.boolean()).nullish(),
  int: z.preprocess(numericString, z.number().int()).nullish(),
  float: z.preprocess(numericString, z.number()).nullish(),
  str: z.string().nullish(),
  date: z.string().nullish(),
  list_str: z.array(z.string()).nullish(),
} as const;

/** The field's value schema, null or missing allowed. */
function nullishValueSchemaOf(field: TemplateField): z.ZodType {
  if (field.type === "literal") return z.enum(field.literal_values as [string, ...string[]]).nullish();
  return NULLISH_VALUE[field.type];
}
