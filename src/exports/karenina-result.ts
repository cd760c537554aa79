/**
 * An edgeval result in the shape of Karenina's VerificationResult (pure), its key sets read from
 * the committed JSON Schema of Karenina's models (karenina-result.schema.json, README):
 * - every key Karenina's models define is written, in their order; one edgeval does not produce
 *   gets the model's default (false, 0, [] for a default_factory list) or null;
 * - keys Karenina's models do not define are left out: `metadata.completed_without_errors` and
 *   `metadata.error` (an older Karenina's, which today's forbids), `deep_judgment.deep_judgment_enabled`,
 *   and edgeval's compound traits (`rubric.compound_trait_scores`, `compound_trait_traces`), which
 *   Karenina's loader would drop anyway;
 * - a section that is null stays null.
 */
import schema from "./karenina-result.schema.json";

interface Property {
  default?: unknown;
  type?: string;
}

/** A missing key's value: the model's default; a `default_factory` list or dict (the schema shows no default) is empty; else null. */
function fallback(prop: Property): unknown {
  if ("default" in prop) return structuredClone(prop.default);
  if (prop.type === "array") return [];
  if (prop.type === "object") return {};
  return null;
}
interface ObjectSchema {
  properties: Record<string, Property>;
}
const DEFS = (schema as unknown as { $defs: Record<string, ObjectSchema> }).$defs;
const ROOT = schema as unknown as ObjectSchema;

/** The result's sections and their model in the schema. */
const SECTIONS: Record<string, string> = {
  metadata: "VerificationResultMetadata",
  template: "VerificationResultTemplate",
  rubric: "VerificationResultRubric",
  deep_judgment: "VerificationResultDeepJudgment",
  deep_judgment_rubric: "VerificationResultDeepJudgmentRubric",
};

type Obj = Record<string, unknown>;

function conform(value: Obj, model: ObjectSchema): Obj {
  const out: Obj = {};
  for (const [key, prop] of Object.entries(model.properties)) {
    if (key in value && value[key] !== undefined) out[key] = value[key];
    else out[key] = fallback(prop);
  }
  return out;
}

export function toKareninaResult(result: object): Obj {
  const r = result as Obj;
  const out: Obj = {};
  for (const [key, prop] of Object.entries(ROOT.properties)) {
    const section = SECTIONS[key];
    const v = r[key];
    if (section) out[key] = v === null || v === undefined ? null : conform(v as Obj, DEFS[section]!);
    else out[key] = v !== undefined ? v : fallback(prop);
  }
  return out;
}

/** The per-result keys, two levels deep, as Karenina's models define them (for tests and docs). */
export function kareninaKeySets(): Record<string, string[]> {
  const sets: Record<string, string[]> = { "": Object.keys(ROOT.properties) };
  for (const [key, model] of Object.entries(SECTIONS)) sets[key] = Object.keys(DEFS[model]!.properties);
  return sets;
}
