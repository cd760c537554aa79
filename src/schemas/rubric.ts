/**
 * Rubrics (Karenina `Rubric`), evaluated by stage 11 (src/rubric/).
 *
 * Each trait kind lists Karenina's main fields with their types; the bodies are loose
 * (`z.looseObject`) so traits exported from Karenina checkpoints, which carry deep-judgment and
 * other settings edgeval does not model yet, are kept intact rather than refused.
 * Karenina's rubric-level rules are enforced: trait names unique within and across kinds, and
 * no dots (dotted keys are reserved for template-kind trait fields, "trait.field").
 */
import { z } from "zod";
import { whenMissing } from "../lib/wire-issues";
import { validateRegexPattern } from "../templates/python-regex";
import { JudgeConfig } from "./judge";

const TraitName = z
  .string({ error: whenMissing("name is required") })
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
    pattern: z.string({ error: whenMissing("pattern is required: a Python regular expression") }),
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
    /** cloudpickle bytes, base64 in JSON; never executed by edgeval as Python (kept for round trips). */
    callable_code: z.string().optional(),
    /**
     * edgeval's runnable form: JavaScript defining `function evaluate(text)`, run in the QuickJS
     * sandbox. Returns a boolean, a number in [min_score, max_score], or a class name / index.
     */
    javascript_code: z.string().min(1).optional(),
    invert_result: z.boolean().default(false),
    classes: Classes,
  })
  .superRefine(literalNeedsClasses)
  .superRefine((t, ctx) => {
    if (t.callable_code === undefined && t.javascript_code === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["callable_code"],
        message: "callable_code is required (base64), or javascript_code (JavaScript edgeval runs in its sandbox)",
      });
    }
  });

export const MetricRubricTrait = z
  .looseObject({
    ...common,
    evaluation_mode: z.enum(["tp_only", "full_matrix"], { error: 'evaluation_mode is "tp_only" or "full_matrix"' }).default("tp_only"),
    metrics: z.array(z.enum(["precision", "recall", "f1", "specificity", "accuracy"])).optional(),
    tp_instructions: z.array(z.string(), { error: whenMissing("tp_instructions is required: a list of strings") }),
    tn_instructions: z.array(z.string()).default([]),
    repeated_extraction: z.boolean().default(true),
  })
  .superRefine((t, ctx) => {
    // Karenina's rules: full_matrix needs what should be absent; tp_only cannot compute specificity or accuracy.
    if (t.evaluation_mode === "full_matrix" && t.tn_instructions.length === 0) {
      ctx.addIssue({
        code: "custom",
        path: ["tn_instructions"],
        message: "full_matrix needs tn_instructions (what the answer should not contain)",
      });
    }
    if (t.evaluation_mode === "tp_only") {
      (t.metrics ?? []).forEach((m, i) => {
        if (m === "specificity" || m === "accuracy")
          ctx.addIssue({ code: "custom", path: ["metrics", i], message: `${m} needs true negatives: use evaluation_mode "full_matrix"` });
      });
    }
  });

export const AgenticRubricTrait = z
  .looseObject({
    ...common,
    ...ScoreBounds,
    description: z.string({ error: whenMissing("description is required for an agentic trait") }).min(1),
    kind: z.union([ScalarKind, TemplateKind], { error: 'kind is "boolean", "score", "literal" or a template kind' }),
    classes: Classes,
    context_mode: z.enum(["workspace_only", "trace_and_workspace", "trace_only"]).default("trace_and_workspace"),
    max_turns: z.number().int().positive().default(15),
    timeout_seconds: z.number().int().positive().default(120),
    materialize_trace: z.boolean({ error: "materialize_trace must be true or false" }).default(false),
    persist_trace: z.boolean({ error: "persist_trace must be true or false" }).default(false),
  })
  .superRefine(literalNeedsClasses)
  .superRefine((t, ctx) => {
    // Karenina's AgenticRubricTrait validator (schemas/entities/rubric.py:860) raises: there is no trace to write.
    if (t.materialize_trace && t.context_mode === "workspace_only") {
      ctx.addIssue({
        code: "custom",
        path: ["materialize_trace"],
        message:
          'materialize_trace writes the answering trace to a file, but context_mode "workspace_only" gives the agent no trace; use "trace_and_workspace" or drop materialize_trace',
      });
    }
  });

/**
 * edgeval's `compound` trait (issue 7): a compound judge config (src/schemas/judge.ts) whose pooled
 * value is the trait's score. Its units see {{input}} = the question, {{output}} = the answer and
 * {{reference}} = the raw answer when `include_ground_truth` is set. It has no Karenina form.
 */
export const CompoundRubricTrait = z.looseObject({
  ...common,
  config: JudgeConfig,
  include_ground_truth: z.boolean().default(false),
});

/** Karenina's five trait lists; compound traits are edgeval's own (no checkpoint form). */
export const TRAIT_KINDS = ["llm_traits", "regex_traits", "callable_traits", "metric_traits", "agentic_traits"] as const;
export type TraitKind = (typeof TRAIT_KINDS)[number];
export const RUBRIC_LISTS = [...TRAIT_KINDS, "compound_traits"] as const;
export type RubricList = (typeof RUBRIC_LISTS)[number];

const lists = {
  llm_traits: z.array(LLMRubricTrait).default([]),
  regex_traits: z.array(RegexRubricTrait).default([]),
  callable_traits: z.array(CallableRubricTrait).default([]),
  metric_traits: z.array(MetricRubricTrait).default([]),
  agentic_traits: z.array(AgenticRubricTrait).default([]),
  compound_traits: z.array(CompoundRubricTrait).default([]),
};

function uniqueNames(rubric: Record<RubricList, { name: string }[]>, ctx: z.RefinementCtx, prefix: (string | number)[] = []): void {
  const seen = new Map<string, string>();
  for (const kind of RUBRIC_LISTS) {
    rubric[kind].forEach((trait, i) => {
      const where = `${kind}[${i}]`;
      const first = seen.get(trait.name);
      if (first)
        ctx.addIssue({
          code: "custom",
          path: [...prefix, kind, i, "name"],
          message: `duplicate trait name "${trait.name}" (also at ${first})`,
        });
      else seen.set(trait.name, where);
    });
  }
}

/**
 * Karenina's DynamicRubric: traits evaluated only when a presence check says the response engages
 * with their concept. Every trait needs a summary or a description (that is what is checked).
 */
export const DynamicRubric = z.strictObject(lists).superRefine((r, ctx) => {
  uniqueNames(r, ctx);
  for (const kind of RUBRIC_LISTS) {
    r[kind].forEach((t, i) => {
      if (!t.summary && !t.description)
        ctx.addIssue({
          code: "custom",
          path: [kind, i, "summary"],
          message: "a dynamic trait needs a summary or a description (the presence check reads it)",
        });
    });
  }
});
export type DynamicRubric = z.output<typeof DynamicRubric>;

export const Rubric = z.strictObject({ ...lists, dynamic: DynamicRubric.optional() }).superRefine((rubric, ctx) => {
  uniqueNames(rubric, ctx);
  if (rubric.dynamic) {
    const names = new Set(RUBRIC_LISTS.flatMap((k) => rubric[k].map((t) => t.name)));
    for (const kind of RUBRIC_LISTS) {
      rubric.dynamic[kind].forEach((t, i) => {
        if (names.has(t.name))
          ctx.addIssue({
            code: "custom",
            path: ["dynamic", kind, i, "name"],
            message: `dynamic trait "${t.name}" has the name of a static trait`,
          });
      });
    }
  }
});
export type Rubric = z.output<typeof Rubric>;
export type RubricInput = z.input<typeof Rubric>;
export type LLMRubricTrait = z.output<typeof LLMRubricTrait>;
export type RegexRubricTrait = z.output<typeof RegexRubricTrait>;
export type CallableRubricTrait = z.output<typeof CallableRubricTrait>;
export type MetricRubricTrait = z.output<typeof MetricRubricTrait>;
export type CompoundRubricTrait = z.output<typeof CompoundRubricTrait>;

/** Every trait name of a rubric (static and dynamic) with where it sits, for cross-rubric checks. */
export function traitNames(rubric: Rubric): { name: string; kind: RubricList; index: number }[] {
  const own = RUBRIC_LISTS.flatMap((kind) => rubric[kind].map((t, index) => ({ name: t.name, kind, index })));
  const dyn = rubric.dynamic
    ? RUBRIC_LISTS.flatMap((kind) => rubric.dynamic![kind].map((t, index) => ({ name: t.name, kind, index })))
    : [];
  return [...own, ...dyn];
}
