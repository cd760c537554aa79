/**
 * Rubric traits ⇄ checkpoint `Rating`s (Karenina's `checkpoint_trait_converters`).
 * `additionalType` = `karenina:{Global|QuestionSpecific}<Kind>`; a trait's settings travel as
 * `additionalProperty` name/value pairs; LLM scalar kinds are inferred from best/worst ratings.
 */
import type { z } from "zod";
import {
  AgenticRubricTrait,
  CallableRubricTrait,
  LLMRubricTrait,
  MetricRubricTrait,
  RegexRubricTrait,
  TRAIT_KINDS,
  type Rubric,
  type TraitKind,
} from "../schemas/rubric";

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

export type TraitImport =
  | { ok: true; kind: TraitKind; dynamic?: true; trait: Record<string, unknown>; warning?: string }
  | { ok: false; message: string };

/**
 * Karenina's dynamic traits (`karenina:{Global|QuestionSpecific}DynamicRubricTrait`) carry their
 * own kind in a `dynamic_trait_type` property (checkpoint_trait_converters.py:704, read back at
 * :746 with "llm" as the default); `summary` stays a property of the trait.
 */
const DYNAMIC_TAG: Record<TraitKind, string> = {
  llm_traits: "llm",
  regex_traits: "regex",
  callable_traits: "callable",
  metric_traits: "metric",
  agentic_traits: "agentic",
};
const SUFFIX_BY_TAG: Record<string, string> = {
  llm: "LLMRubricTrait",
  regex: "RegexTrait",
  callable: "CallableTrait",
  metric: "MetricRubricTrait",
  agentic: "AgenticRubricTrait",
};

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
  let suffix = type.replace(/^(Global|QuestionSpecific)/, "") || "RubricTrait";
  const props: Record<string, unknown> = {};
  for (const p of r.additionalProperty ?? []) if (typeof p.name === "string") props[p.name] = maybeJson(p.value);
  const dynamic = suffix === "DynamicRubricTrait";
  if (dynamic) {
    const tag = String(props.dynamic_trait_type ?? "llm");
    delete props.dynamic_trait_type;
    if (!SUFFIX_BY_TAG[tag])
      return {
        ok: false,
        message: `trait "${name}": unknown dynamic_trait_type ${JSON.stringify(tag)}; not imported (Karenina skips it too)`,
      };
    suffix = SUFFIX_BY_TAG[tag]!;
  }
  const kind = KIND_BY_SUFFIX[suffix];
  if (!kind) return { ok: false, message: `trait "${name}": unknown additionalType ${JSON.stringify(r.additionalType)}; not imported` };
  // Karenina's _convert_rating_to_regex_trait starts from pattern = "" (checkpoint_trait_converters.py:413):
  // a regex trait without a pattern loads with the empty pattern, which matches every answer.
  if (kind === "regex_traits" && props.pattern === undefined) props.pattern = "";
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
  if (dynamic && !trait.summary && !trait.description) {
    return {
      ok: false,
      message: `dynamic trait "${name}" has neither summary nor description, so there is no concept to check for; not imported`,
    };
  }
  const parsed = SCHEMAS[kind].safeParse(trait);
  const unsupportedCallable = `trait "${name}": callable traits are pickled Python (cloudpickle), which edgeval never runs`;
  if (!parsed.success) {
    // A message that already names its field is not prefixed with it again ("callable_code:
    // callable_code is required…" read as a stutter in every import of a code-less callable trait).
    const why = parsed.error.issues
      .map((i) => {
        const at = i.path.join(".") || name;
        return i.message.startsWith(`${at} `) ? i.message : `${at}: ${i.message}`;
      })
      .join("; ");
    return {
      ok: false,
      message:
        kind === "callable_traits"
          ? `${unsupportedCallable}; not imported (${why})`
          : `trait "${name}" (${type}) is invalid: ${why}; not imported`,
    };
  }
  return {
    ok: true,
    kind,
    ...(dynamic ? { dynamic: true as const } : {}),
    trait: parsed.data as Record<string, unknown>,
    ...(kind === "callable_traits" ? { warning: `${unsupportedCallable}; kept as data, it will not be evaluated` } : {}),
  };
}

const RATING_KEYS = new Set(["name", "description", "kind", "min_score", "max_score"]);

export function traitToRating(
  kind: TraitKind,
  trait: Record<string, unknown>,
  scope: "Global" | "QuestionSpecific",
  dynamic = false,
): Rating {
  const scalar = trait.kind === "boolean" || trait.kind === "score";
  let suffix: string;
  let best = 1;
  let worst = 0;
  const props: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(trait)) if (!RATING_KEYS.has(k) && v !== undefined) props[k] = v;
  if (kind === "llm_traits" && scalar) suffix = "RubricTrait";
  else {
    suffix = {
      llm_traits: "LLMRubricTrait",
      regex_traits: "RegexTrait",
      callable_traits: "CallableTrait",
      metric_traits: "MetricRubricTrait",
      agentic_traits: "AgenticRubricTrait",
    }[kind];
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
    // Karenina's convert_dynamic_rubric_to_ratings re-tags the per-kind rating and adds the kind tag.
    additionalType: `karenina:${scope}${dynamic ? "DynamicRubricTrait" : suffix}`,
    additionalProperty: Object.entries(dynamic ? { ...props, dynamic_trait_type: DYNAMIC_TAG[kind] } : props)
      .filter(([, v]) => v !== undefined)
      .map(([name, value]) => ({ "@type": "PropertyValue", name, value }) as { name: string; value: unknown }),
  };
}

/** A rubric's ratings (static, then dynamic); a trait with no checkpoint form is named in `warnings`. */
export function rubricToRatings(
  rubric: Rubric | undefined,
  scope: "Global" | "QuestionSpecific",
  warnings: string[] = [],
  where = "the global rubric",
): Rating[] {
  if (!rubric) return [];
  const out: Rating[] = [];
  for (const [lists, dynamic] of [
    [rubric, false],
    [rubric.dynamic, true],
  ] as const) {
    if (!lists) continue;
    for (const kind of TRAIT_KINDS)
      for (const t of lists[kind] as Record<string, unknown>[]) out.push(traitToRating(kind, t, scope, dynamic));
    for (const t of lists.compound_traits) {
      warnings.push(
        `${where}: ${dynamic ? "dynamic " : ""}compound trait "${t.name}" has no Karenina checkpoint form (Karenina has no compound judges); not exported`,
      );
    }
  }
  return out;
}
