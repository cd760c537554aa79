/**
 * The run spec as stored in R2 (spec-store.ts): written once at submit from a parsed
 * request, read by every job. Parsed on read, so an object that is not a spec (a bucket edited by
 * hand, a spec from an incompatible version) is refused where it is read, not deep in a job.
 * Questions and model configs are re-parsed with their request schemas (parsing their own output
 * gives it back unchanged). `settings` is built by submit/plan.ts from a parsed VerificationConfig;
 * it has no schema of its own yet, so only its mode and hint flag are checked here.
 */
import { z } from "zod";
import { PriceOverrides } from "../schemas/prices";
import type { PipelineSettings } from "../pipeline/types";
import { RunCacheOption, RunLimits } from "../schemas/api";
import { Question, Scenario } from "../schemas/benchmark";
import { ModelConfig } from "../schemas/model-config";
import { RescoreCaveats } from "../schemas/rescore-caveats";

const Settings = z.custom<PipelineSettings>(
  (v) =>
    typeof v === "object" &&
    v !== null &&
    typeof (v as { evaluation_mode?: unknown }).evaluation_mode === "string" &&
    typeof (v as { include_extraction_hints?: unknown }).include_extraction_hints === "boolean",
  { error: "settings must be the pipeline settings submit wrote" },
);

export const RunSpec = z.object({
  run_id: z.string().min(1),
  /** The owning tenant; absent on specs written before tenants (their keys have no `t/` prefix). */
  tenant_id: z.string().min(1).optional(),
  run_name: z.string().nullable(),
  benchmark_name: z.string(),
  created_at: z.string(),
  /** Only the selected questions (config.question_ids), in benchmark order. */
  questions: z.array(Question),
  answering_models: z.array(ModelConfig),
  parsing_models: z.array(ModelConfig),
  replicate_count: z.number().int().min(1),
  settings: Settings,
  /** Price overrides for this run's cost accounting (over src/llm/prices.ts). */
  prices: PriceOverrides.optional(),
  budget_usd: z.number().optional(),
  /** The response cache (src/adapters/response-cache.ts); absent = off. */
  cache: RunCacheOption.optional(),
  /** Per model id: shared rate limits over the interface's defaults. */
  limits: RunLimits.optional(),
  /**
   * A re-scored run (src/rescore/): its jobs reuse the parent run's answers and results (same
   * tenant), and evaluate only `new_traits` on results the parent has.
   */
  rescore: z
    .object({
      parent_run_id: z.string().min(1),
      new_traits: z.array(z.string()),
      /** What the child does without, as its 202 said (src/http/rescore.ts); the run's D1 row keeps it too. Absent before 8 Dec 2026. */
      caveats: RescoreCaveats.optional(),
    })
    .optional(),
  /** Multi-turn scenarios (src/scenarios): one chain of turn jobs per scenario × answering × parsing × replicate. */
  scenarios: z.array(Scenario).optional(),
  /** Karenina's `scenario_turn_limit`: a scenario stops with `limit_reached` after this many turns. */
  scenario_turn_limit: z.number().int().min(1).optional(),
});
export type RunSpec = z.output<typeof RunSpec>;
