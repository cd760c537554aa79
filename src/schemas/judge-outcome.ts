/**
 * What /v1/judge and /v1/judge/calibrate answer. The core's JudgeOutcome and CalibrationReport
 * (src/judges/types.ts, calibrate.ts) must fit these: src/http/judge.ts assigns them to the
 * inferred input types, so a field added to the core without a line here is a type error.
 */
import { z } from "zod";
import { UNIT_TYPES } from "./judge";

const ScaleValue = z.union([z.string(), z.number(), z.boolean()]);

export const UnitUsage = z.strictObject({
  calls: z.number().int(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number(),
  models: z.array(z.string()),
  /** Null when a call's model has no price (listed in unpriced_models). */
  cost_usd: z.number().nullable(),
  unpriced_models: z.array(z.string()),
});

const UnitError = z.strictObject({ kind: z.string(), message: z.string() });

export const UnitOutput = z.strictObject({
  name: z.string(),
  id: z.string(),
  type: z.enum(UNIT_TYPES),
  status: z.enum(["ok", "error", "skipped"]),
  value: z.number().nullable(),
  answer: ScaleValue.optional(),
  pass_value: ScaleValue.optional(),
  explanation: z.string().optional(),
  text: z.string().optional(),
  chosen: z.string().optional(),
  chosen_swapped: z.string().optional(),
  disagreement: z.boolean().optional(),
  ranking: z.array(z.string()).optional(),
  variance: z.number().optional(),
  votes: z.record(z.string(), z.number()).optional(),
  tie: z.literal(true).optional(),
  inputs: z.array(z.string()),
  attempts: z.number().int(),
  usage: UnitUsage,
  error: UnitError.optional(),
});

export const JudgeOutcome = z.strictObject({
  /** Null when the judge itself failed (see error): never read as "the output is wrong". */
  pass: z.boolean().nullable(),
  score: z.number().nullable(),
  threshold: z.number(),
  metric: z.string().optional(),
  answer: ScaleValue.optional(),
  tie: z.literal(true).optional(),
  reason: z.string(),
  units: z.array(UnitOutput),
  error: UnitError.extend({ unit: z.string() }).optional(),
  usage: UnitUsage,
});

export const CalibrationReport = z.strictObject({
  n: z.number().int(),
  judged: z.number().int(),
  errored: z.number().int(),
  threshold: z.number(),
  accuracy: z.number().nullable(),
  cohen_kappa: z.number().nullable(),
  spearman_rho: z.number().nullable(),
  kendall_tau: z.number().nullable(),
  krippendorff_alpha: z.number().nullable(),
  krippendorff_alpha_level: z.enum(["nominal", "interval"]),
  flip_rate: z.number().nullable(),
  position_swap_conflict_rate: z.number().nullable(),
  items: z.array(
    z.strictObject({
      index: z.number().int(),
      label: z.union([z.boolean(), z.number()]),
      human_pass: z.boolean(),
      pass: z.array(z.boolean().nullable()),
      score: z.array(z.number().nullable()),
      error: z.string().optional(),
    }),
  ),
});
