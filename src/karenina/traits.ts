/**
 * Rubric traits ⇄ checkpoint `Rating`s (Karenina's `checkpoint_trait_converters`).
 * `additionalType` = `karenina:{Global|QuestionSpecific}<Kind>`; a trait's settings travel as
 * `additionalProperty` name/value pairs; LLM scalar kinds are inferred from best/worst ratings.
 */
import type { z } from "zod";
import { AgenticRubricTrait, CallableRubricTrait, LLMRubricTrait, MetricRubricTrait, RegexRubricTrait, type Rubric, type TraitKind } from "../schemas/rubric";

export interface Rating {
  "@type"?: string;
  "@id"?: string;
  name?: unknown;
  description?: unknown;
  bestRating?: unknown;
  worstRating?: unknown;
  additionalType?: unknown;
  additionalProperty?: { name?: unknown; value?: unknown }[];
}

const KIND_BY_SUFFIX: Record<string, TraitKind> = {
  RubricTrait: "llm_traits",
  LLMRubricTrait: "llm_traits",
  RegexTrait: "regex_traits",
  CallableTrait: "callable_traits",
  MetricRubricTrait: "metric_traits",
  AgenticRubricTrait: "agentic_traits",
};

const SCHEMAS: Record<TraitKind, z.ZodType> = {
  llm_traits: LLMRubricTrait,
  regex_traits: RegexRubricTrait,
  callable_traits: CallableRubricTrait,
  metric_traits: MetricRubricTrait,
  agentic_traits: AgenticRubricTrait,
};

export type TraitImport = { ok: true; kind: TraitKind; trait: Record<string, unknown>; warning?: string } | { ok: false; message: string };

/** Values Karenina may store as JSON strings (classes, kind) come back as objects. */
function maybeJson(v: unknown): unknown {
  if (typeof v !== "string" || !/^[[{]/.test(v.trim())) return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

export function ratingToTrait(r: Rating): TraitImport {
  const name = typeof r.name === "string" ? r.name : "(unnamed)";
  const type = String(r.additionalType ?? "").replace(/^karenina:/, "");
  // Karenina reads a Rating without additionalType as an LLM trait.
  const suffix = type.replace(/^(Global|QuestionSpecific)/, "") || "RubricTrait";
  if (/Dynamic/.test(suffix)) return { ok: false, message: `trait "${name}": dynamic rubric traits (${type}) are not supported yet; not imported` };
  const kind = KIND_BY_SUFFIX[suffix];
  if (!kind) return { ok: false, message: `trait "${name}": unknown additionalType ${JSON.stringify(r.additionalType)}; not imported` };
  const props: Record<string, unknown> = {};
  for (const p of r.additionalProperty ?? []) if (typeof p.name === "string") props[p.name] = maybeJson(p.value);
  const trait: Record<string, unknown> = { name, ...(typeof r.description === "string" ? { description: r.description } : {}), ...props };
  // An explicit kind wins; otherwise (legacy) best 1 / worst 0 means boolean, anything else score.
  if (kind === "llm_traits" && trait.kind === undefined) {
    const [best, worst] = [Number(r.bestRating), Number(r.worstRating)];
    if (best === 1 && worst === 0) trait.kind = "boolean";
    else {
      trait.kind = "score";
      trait.min_score ??= worst;
      trait.max_score ??= best;
    }
  }
  if (kind === "callable_traits" || kind === "agentic_traits") {
    if (trait.kind === undefined) trait.kind = Number(r.bestRating) === 1 && Number(r.worstRating) === 0 ? "boolean" : "score";
    if (trait.kind === "score") {
      trait.min_score ??= Number(r.worstRating);
      trait.max_score ??= Number(r.bestRating);
    }
  }
  const parsed = SCHEMAS[kind].safeParse(trait);
  const unsupportedCallable = `trait "${name}": callable traits are pickled Python (cloudpickle), which edgeval never runs`;
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join(".") || name}: ${i.message}`).join("; ");
    return { ok: false, message: kind === "callable_traits" ? `${unsupportedCallable}; not imported (${why})` : `trait "${name}" (${type}) is invalid: ${why}; not imported` };
  }
  return {
    ok: true,
    kind,
    trait: parsed.data as Record<string, unknown>,
    ...(kind === "callable_traits" ? { warning: `${unsupportedCallable}; kept as data, it will not be evaluated` } : {}),
  };
}

const RATING_KEYS = new Set(["name", "description", "kind", "min_score", "max_score"]);

export function traitToRating(kind: TraitKind, trait: Record<string, unknown>, scope: "Global" | "QuestionSpecific"): Rating {
  const scalar = trait.kind === "boolean" || trait.kind === "score";
  let suffix: string;
  let best = 1;
  let worst = 0;
  const props: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(trait)) if (!RATING_KEYS.has(k) && v !== undefined) props[k] = v;
  if (kind === "llm_traits" && scalar) suffix = "RubricTrait";
  else {
    suffix = { llm_traits: "LLMRubricTrait", regex_traits: "RegexTrait", callable_traits: "CallableTrait", metric_traits: "MetricRubricTrait", agentic_traits: "AgenticRubricTrait" }[kind];
    if (trait.kind !== undefined) props.kind = trait.kind;
  }
  if (trait.kind === "score") {
    best = Number(trait.max_score ?? 5);
    worst = Number(trait.min_score ?? 1);
    // Karenina reads the score range from these properties, not from best/worst.
    Object.assign(props, { min_score: trait.min_score, max_score: trait.max_score });
  } else if (trait.kind === "literal" && trait.classes && typeof trait.classes === "object") {
    best = Object.keys(trait.classes).length - 1;
  } else if (typeof trait.kind === "object") best = 0;
  return {
    "@type": "Rating",
    name: trait.name,
    ...(trait.description != null ? { description: trait.description } : {}),
    bestRating: best,
    worstRating: worst,
    additionalType: `karenina:${scope}${suffix}`,
    additionalProperty: Object.entries(props)
      .filter(([, v]) => v !== undefined)
      .map(([name, value]) => ({ "@type": "PropertyValue", name, value }) as { name: string; value: unknown }),
  };
}

export function rubricToRatings(rubric: Rubric | undefined, scope: "Global" | "QuestionSpecific"): Rating[] {
  if (!rubric) return [];
  const out: Rating[] = [];
  for (const kind of Object.keys(KIND_NAMES) as TraitKind[]) {
    for (const t of rubric[kind] as Record<string, unknown>[]) out.push(traitToRating(kind, t, scope));
  }
  return out;
}

const KIND_NAMES: Record<TraitKind, true> = { llm_traits: true, regex_traits: true, callable_traits: true, metric_traits: true, agentic_traits: true };
