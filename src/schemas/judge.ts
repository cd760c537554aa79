/**
 * Compound-judge configs (Verdict style) as the spec writes them: a single unit
 * (`{type: categorical | likert | pairwise | …, prompt, …}`) or `{pipeline: [step, …]}` where a step
 * is `{layer: {unit | units, repeat, inner, outer, leaf, root}}` or a bare unit / pool.
 * Field meanings per unit type, and what is refused, are checked by `src/judges/graph.ts`
 * (which reports paths); this file is the wire shape only.
 */
import { z } from "zod";
import { onWrongType, whenMissing } from "../lib/wire-issues";
import { PriceOverrides } from "./prices";
import { JudgeModelConfig as ModelConfig } from "./model-config";

export const JUDGE_UNIT_TYPES = [
  "judge",
  "likert",
  "direct-score",
  "categorical",
  "categorical-judge",
  "pairwise",
  "pairwise-judge",
  "best-of-k",
  "ranker",
  "verify",
  "debate-for",
  "debate-against",
  "conversational",
  "cot",
  "chain-of-thought",
  "map",
] as const;
export const POOL_TYPES = [
  "max-pool",
  "max",
  "mean-pool",
  "mean",
  "weighted-mean",
  "weighted-mean-pool",
  "min-pool",
  "min",
  "mean-variance",
  "mean-variance-pool",
] as const;
export const UNIT_TYPES = [...JUDGE_UNIT_TYPES, ...POOL_TYPES] as const;
export type UnitType = (typeof UNIT_TYPES)[number];

const Num = z.number({ error: onWrongType("must be a number") });
const Value = z.union([z.string(), z.number(), z.boolean()]);

export const ScaleSpec = z.union(
  [
    z.array(z.union([z.string(), z.number()])).min(2, { error: "a scale needs at least two values" }),
    z.strictObject({
      type: z.literal("discrete"),
      values: z.array(z.union([z.string(), z.number()])).optional(),
      range: z.union([z.tuple([Num, Num]), z.tuple([Num, Num, Num])]).optional(),
      end_is_worst: z.boolean().optional(),
    }),
    z.strictObject({ type: z.literal("likert"), min: z.int().optional(), max: z.int().optional(), end_is_worst: z.boolean().optional() }),
    z.strictObject({ type: z.literal("boolean") }),
    z.strictObject({ type: z.literal("continuous"), min: Num, max: Num }),
  ],
  {
    error:
      "scale is [min, max] (a numeric range), [min, max, step], a list of values, or {type: discrete | likert | boolean | continuous, …}",
  },
);
export type ScaleSpec = z.output<typeof ScaleSpec>;

/** One model, or an ordered fallback list tried in turn when a model keeps failing. */
export const ModelRef = z.union([ModelConfig, z.array(ModelConfig).min(1)]);
export type ModelRef = z.output<typeof ModelRef>;

export const ExtractorSpec = z.union(
  [
    z.strictObject({ type: z.literal("structured") }),
    z.strictObject({ type: z.literal("regex"), pattern: z.enum(["first_int", "first_float"]) }),
    /** provider: the second model that structures the text (default: the unit's own). */
    z.strictObject({ type: z.literal("post-hoc"), provider: ModelConfig.optional() }),
    z.strictObject({
      type: z.literal("token-probability"),
      mode: z.enum(["argmax", "sample", "weighted"]).default("argmax"),
      top_logprobs: z.int().min(1).max(20).default(20),
    }),
  ],
  { error: "extractor is {type: structured | regex | post-hoc | token-probability, …}" },
);
export type ExtractorSpec = z.output<typeof ExtractorSpec>;

const unitFields = {
  name: z
    .string()
    .regex(/^[A-Za-z_][\w-]*$/, { error: "name is letters, digits, _ and - (it is used in {{previous.NAME.field}})" })
    .optional(),
  prompt: z.string().optional(),
  scale: ScaleSpec.optional(),
  categories: z.array(z.string()).min(2, { error: "categories needs at least two labels" }).optional(),
  /** The label that passes (categorical); the first category when absent. */
  pass_value: Value.optional(),
  explanation: z.boolean().optional(),
  /** pairwise / best-of-k / ranker: the candidates, as prompt templates. */
  options: z.array(z.string()).min(2).max(10).optional(),
  k: z.int().min(2).max(10).optional(),
  /** pairwise: also run B-before-A and report disagreement. */
  swap: z.boolean().optional(),
  /** conversational: the role's name. */
  role: z.string().optional(),
  /** map: the pure transform. */
  op: z.enum(["invert", "normalize"]).optional(),
  weights: z.record(z.string(), Num).optional(),
  threshold: Num.optional(),
  provider: ModelRef.optional(),
  extractor: ExtractorSpec.optional(),
  /** Attempts per model (Verdict's `.via(model, retries)`): 1 = no re-ask; default 2. */
  retries: z.int().min(1, { error: "retries is the number of attempts per model (as in Verdict), so at least 1" }).max(6).optional(),
  temperature: Num.min(0).optional(),
  max_tokens: z.int().positive().optional(),
  repeat: z.int().min(1).max(16).optional(),
  metric: z.string().optional(),
};

export const UnitConfig = z.strictObject({
  type: z.enum(UNIT_TYPES, { error: `type is one of ${UNIT_TYPES.join(", ")}` }),
  ...unitFields,
});
export type UnitConfig = z.output<typeof UnitConfig>;

export const LayerConfig = z.strictObject({
  unit: UnitConfig.optional(),
  units: z.array(UnitConfig).min(1).optional(),
  /**
   * A sub-pipeline repeated as a whole (Verdict's `Layer(judge >> verify, 3)`): each repeat is an
   * independent chain of these steps; the layer's roots are the first steps, its leaves the last.
   */
  block: z.array(UnitConfig).min(1).max(8).optional(),
  repeat: z.int().min(1).max(16).default(1),
  inner: z.enum(["none", "chain"]).optional(),
  outer: z.enum(["dense", "broadcast", "cumulative", "last"]).default("dense"),
  /** Which units (0-based after repeat; negative counts from the end, as in Python) feed the next layer. */
  leaf: z.array(z.int()).min(1).optional(),
  /** Which units (0-based after repeat; negative counts from the end) receive the previous layer. */
  root: z.array(z.int()).min(1).optional(),
});
export type LayerConfig = z.output<typeof LayerConfig>;

export const PipelineStep = z.union([z.strictObject({ layer: LayerConfig }), UnitConfig], {
  error: "a pipeline step is {layer: {unit | units, repeat, …}} or a unit / pool {type, …}",
});
export type PipelineStep = z.output<typeof PipelineStep>;

export const JudgeConfig = z
  .strictObject({
    type: z.enum(UNIT_TYPES, { error: `type is one of ${UNIT_TYPES.join(", ")}` }).optional(),
    ...unitFields,
    pipeline: z.array(PipelineStep).min(1).max(32).optional(),
    /** A pool appended after the pipeline (spec: `aggregate: max`). */
    aggregate: z.enum(["max", "mean", "min", "weighted-mean", "mean-variance"]).optional(),
    /** Seeds the RNG of sampling extractors, so a run is reproducible. */
    seed: z.int().optional(),
  })
  .refine((c) => (c.type === undefined) !== (c.pipeline === undefined), {
    error: "give either type (a single unit) or pipeline (a list of steps), not both and not neither",
  });
export type JudgeConfig = z.output<typeof JudgeConfig>;

export const JudgeSample = {
  input: z.string().default(""),
  output: z.string({ error: whenMissing("output (the text being judged) is required") }),
  reference: z.string().optional(),
  vars: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
};

/** /v1/judge answers within this many milliseconds: past it, `pass: null` with a `timeout` error and no further model calls. */
export const DEFAULT_JUDGE_DEADLINE_MS = 30_000;
export const MAX_JUDGE_DEADLINE_MS = 120_000;

/** How long a judge may take before it answers `pass: null` with a `timeout` error (src/llm/deadline.ts). */
export const DeadlineMs = (byDefault: number) =>
  z
    .int({ error: onWrongType("must be a whole number of milliseconds") })
    .min(1, { error: "must be at least 1" })
    .max(MAX_JUDGE_DEADLINE_MS, { error: `must be at most ${MAX_JUDGE_DEADLINE_MS} (2 minutes)` })
    .default(byDefault);

export const JudgeRequest = z.strictObject({
  ...JudgeSample,
  config: JudgeConfig,
  /** Prices per million tokens over the shipped table, keyed "interface:model_name" or model_name. */
  prices: PriceOverrides.optional(),
  deadline_ms: DeadlineMs(DEFAULT_JUDGE_DEADLINE_MS),
});
export type JudgeRequest = z.output<typeof JudgeRequest>;

export const CalibrationItem = z.strictObject({
  ...JudgeSample,
  /** The human label: pass/fail, or a score on the judge's scale. */
  label: z.union([z.boolean(), z.number()]),
});

/**
 * Labels are all pass/fail or all scores. Mixed, the report read true/false as 1/0 beside scores on
 * the judge's scale (ρ, τ and α compared 1 with a likert 4) and picked α's level from whichever
 * kind it met: figures that look right and mean nothing.
 */
function oneLabelKind(body: { items: { label: boolean | number }[]; label_threshold?: number }, ctx: z.RefinementCtx): void {
  const kind = (l: boolean | number) => (typeof l === "boolean" ? "true/false" : "a number");
  const first = body.items[0]?.label;
  if (first === undefined) return;
  // A threshold for numeric labels beside pass/fail ones was silently ignored.
  if (typeof first === "boolean" && body.label_threshold !== undefined)
    ctx.addIssue({
      code: "custom",
      path: ["label_threshold"],
      message: `label_threshold says where a numeric label passes, and these labels are true/false: it would change nothing; got ${body.label_threshold}. Remove it, or label with scores on the judge's scale`,
    });
  body.items.forEach(({ label }, i) => {
    if (kind(label) === kind(first)) return;
    ctx.addIssue({
      code: "custom",
      path: ["items", i, "label"],
      message: `every label must be of one kind: items[0].label is ${kind(first)}, got ${kind(label)} (${label}); give every item pass/fail, or every item a score on the judge's scale`,
    });
  });
}

export const CalibrateRequest = z
  .strictObject({
    config: JudgeConfig,
    items: z.array(CalibrationItem).min(2, { error: "calibration needs at least two items" }).max(200),
    /** Each item is judged this many times (flip rate needs ≥ 2). */
    repeats: z.int().min(1).max(5).default(1),
    /** A numeric human label passes at ≥ this (default: the judge's threshold). */
    label_threshold: Num.optional(),
    prices: PriceOverrides.optional(),
  })
  .superRefine(oneLabelKind);
export type CalibrateRequest = z.output<typeof CalibrateRequest>;
