/**
 * Rubrics (Karenina `Rubric`): stored now, evaluated by a later stage.
 *
 * Each trait kind lists Karenina's main fields with their types; the bodies are loose
 * (`z.looseObject`) so traits exported from Karenina checkpoints, which carry deep-judgment and
 * other settings edgeval does not model yet, are kept intact rather than refused.
 * Karenina's rubric-level rules are enforced: trait names unique within and across kinds, and
 * no dots (dotted keys are reserved for template-kind trait fields, "trait.field").
 */
import { z } from "zod";
import { validateRegexPattern } from "../templates/python-regex";

const TraitName = z
  .string({ error: "name is required" })
  .min(1, { error: "name must not be empty" })
  .refine((n) => !n.includes("."), { error: "trait names must not contain '.' (reserved for template-kind trait fields)" });

const common = {
  name: TraitName,
  description: z.string().nullish(),
  summary: z.string().nullish(),
  higher_is_better: z.boolean().nullish(),
};

const ScoreBounds = {
  min_score: z.number().int().nullish(),
  max_score: z.number().int().nullish(),
};

/** Literal-kind classes: name → description, 2 to 20 of them (order gives the index). */
const Classes = z
  .record(z.string().min(1, { error: "class names must not be empty" }), z.string())
  .refine((c) => Object.keys(c).length >= 2 && Object.keys(c).length <= 20, { error: "classes needs 2 to 20 entries" })
  .nullish();

const ScalarKind = z.enum(["boolean", "score", "literal"], { error: 'kind is "boolean", "score" or "literal"' });
/** Template-kind traits serialise as `{"type": "template", "schema": <JSON schema>}`. */
const TemplateKind = z.looseObject({ type: z.literal("template"), schema: z.record(z.string(), z.unknown()) });

function literalNeedsClasses(t: { kind: unknown; classes?: unknown }, ctx: z.RefinementCtx): void {
  if (t.kind === "literal" && t.classes == null) {
    ctx.addIssue({ code: "custom", path: ["classes"], message: 'a kind "literal" trait needs classes' });
  }
}

export const LLMRubricTrait = z
  .looseObject({
    ...common,
    ...ScoreBounds,
    kind: z.union([ScalarKind, TemplateKind], { error: 'kind is "boolean", "score", "literal" or {"type": "template", "schema": {...}}' }),
    classes: Classes,
    include_ground_truth: z.boolean().optional(),
    deep_judgment_enabled: z.boolean().optional(),
  })
  .superRefine(literalNeedsClasses);

export const RegexRubricTrait = z
  .looseObject({
    ...common,
    pattern: z.string({ error: "pattern is required: a Python regular expression" }),
    case_sensitive: z.boolean().default(true),
    invert_result: z.boolean().default(false),
  })
  .superRefine((t, ctx) => {
    const problem = validateRegexPattern(t.pattern);
    if (problem) ctx.addIssue({ code: "custom", path: ["pattern"], message: problem });
  });

export const CallableRubricTrait = z
  .looseObject({
    ...common,
    ...ScoreBounds,
    kind: ScalarKind,
    /** cloudpickle bytes, base64 in JSON; never executed by edgeval as Python. */
    callable_code: z.string({ error: "callable_code is required (base64)" }),
    invert_result: z.boolean().default(false),
    classes: Classes,
  })
  .superRefine(literalNeedsClasses);

export const MetricRubricTrait = z.looseObject({
  ...common,
  evaluation_mode: z.enum(["tp_only", "full_matrix"], { error: 'evaluation_mode is "tp_only" or "full_matrix"' }).default("tp_only"),
  metrics: z.array(z.enum(["precision", "recall", "f1", "specificity", "accuracy"])).optional(),
  tp_instructions: z.array(z.string(), { error: "tp_instructions is required: a list of strings" }),
  tn_instructions: z.array(z.string()).default([]),
  repeated_extraction: z.boolean().default(true),
});

export const AgenticRubricTrait = z
  .looseObject({
    ...common,
    ...ScoreBounds,
    description: z.string({ error: "description is required for an agentic trait" }).min(1),
    kind: z.union([ScalarKind, TemplateKind], { error: 'kind is "boolean", "score", "literal" or a template kind' }),
    classes: Classes,
    context_mode: z.enum(["workspace_only", "trace_and_workspace", "trace_only"]).default("trace_and_workspace"),
    max_turns: z.number().int().positive().default(15),
    timeout_seconds: z.number().int().positive().default(120),
  })
  .superRefine(literalNeedsClasses);

export const TRAIT_KINDS = ["llm_traits", "regex_traits", "callable_traits", "metric_traits", "agentic_traits"] as const;
export type TraitKind = (typeof TRAIT_KINDS)[number];

export const Rubric = z
  .strictObject({
    llm_traits: z.array(LLMRubricTrait).default([]),
    regex_traits: z.array(RegexRubricTrait).default([]),
    callable_traits: z.array(CallableRubricTrait).default([]),
    metric_traits: z.array(MetricRubricTrait).default([]),
    agentic_traits: z.array(AgenticRubricTrait).default([]),
  })
  .superRefine((rubric, ctx) => {
    const seen = new Map<string, string>();
    for (const kind of TRAIT_KINDS) {
      rubric[kind].forEach((trait, i) => {
        const where = `${kind}[${i}]`;
        const first = seen.get(trait.name);
        if (first) ctx.addIssue({ code: "custom", path: [kind, i, "name"], message: `duplicate trait name "${trait.name}" (also at ${first})` });
        else seen.set(trait.name, where);
      });
    }
  });
export type Rubric = z.output<typeof Rubric>;
export type RubricInput = z.input<typeof Rubric>;

/** Every trait name of a rubric with where it sits, for cross-rubric checks. */
export function traitNames(rubric: Rubric): { name: string; kind: TraitKind; index: number }[] {
  return TRAIT_KINDS.flatMap((kind) => rubric[kind].map((t, index) => ({ name: t.name, kind, index })));
}
