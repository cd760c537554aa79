/** HTTP API bodies. */
import { z } from "zod";
import { Benchmark } from "./benchmark";
import { FAILURE_GROUPS } from "./result";
import { VerificationConfig } from "./verification-config";
import { PriceOverrides } from "./prices";
import { WebhookEndpointIds } from "./webhooks";
import { PresetReference } from "./presets";
import { RunStatusName } from "./run-views";

/** Run options about money: a spending cap, a cost estimate instead of a run, price overrides. */
const RunCostOptions = {
  /** Start jobs only while this has room for them, stop once recorded cost reaches it (the run ends budget_exceeded; src/coordinator/budget.ts). */
  budget_usd: z.number({ error: "budget_usd must be a number" }).positive({ error: "budget_usd must be > 0" }).optional(),
  /** Estimate calls, tokens and cost; nothing is written and no model is called. */
  dry_run: z.boolean({ error: "dry_run must be true or false" }).optional(),
  /** Per-model prices (USD per million tokens) over the shipped table (src/llm/prices.ts). */
  prices: PriceOverrides.optional(),
};

/**
 * The response cache, opt-in: a re-run of the same spec is served from it with no provider call.
 * Replicates and repeated judge units keep their own entries (the call site is part of the key).
 */
export const RunCacheOption = z.strictObject({
  enabled: z.boolean({ error: "cache.enabled must be true or false" }).default(false),
  /** How long an entry may be served (seconds); default 7 days, at most 30. */
  ttl_s: z
    .number()
    .int({ error: "cache.ttl_s must be a whole number of seconds" })
    .min(1)
    .max(30 * 24 * 3600)
    .optional(),
});

/** A model's shared rate limits, over its interface's defaults (src/limiter/limiter-state.ts). */
export const ModelLimits = z.strictObject({
  rpm: z.number().positive({ error: "limits.rpm must be > 0 (requests per minute)" }).optional(),
  tpm: z.number().positive({ error: "limits.tpm must be > 0 (tokens per minute)" }).optional(),
  concurrency: z.number().int().positive({ error: "limits.concurrency must be a whole number > 0" }).optional(),
});
/** Keyed by model id (answering or parsing). */
export const RunLimits = z.record(z.string(), ModelLimits);

export const CreateRunBody = z.strictObject({
  benchmark: Benchmark,
  config: VerificationConfig,
  run_name: z.string().min(1).max(200).optional(),
  ...RunCostOptions,
  cache: RunCacheOption.optional(),
  limits: RunLimits.optional(),
});
export type CreateRunBody = z.output<typeof CreateRunBody>;

/** The fields of a run request but its config (which differs between a spelled-out run and a preset's). */
const RunRequestFields = {
  benchmark: Benchmark.optional(),
  benchmark_id: z.string().min(1, { error: "benchmark_id must not be empty" }).max(100).optional(),
  run_name: z.string().min(1).max(200).optional(),
  ...RunCostOptions,
  cache: RunCacheOption.optional(),
  limits: RunLimits.optional(),
  /** Endpoints of the tenant (POST /v1/webhook-endpoints) that receive this run's end event. */
  webhook_endpoint_ids: WebhookEndpointIds.optional(),
};

function oneBenchmark(body: { benchmark?: unknown; benchmark_id?: string }, ctx: z.RefinementCtx): void {
  if (body.benchmark === undefined && body.benchmark_id === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["benchmark"],
      message: "send the benchmark inline, or benchmark_id naming a stored one (POST /v1/benchmarks)",
    });
  } else if (body.benchmark !== undefined && body.benchmark_id !== undefined) {
    ctx.addIssue({ code: "custom", path: ["benchmark_id"], message: "send either benchmark or benchmark_id, not both" });
  }
}

/** What POST /v1/runs accepts with the config spelled out: the benchmark inline, or the id of a stored one (exactly one). */
export const CreateRunRequest = z.strictObject({ ...RunRequestFields, config: VerificationConfig }).superRefine(oneBenchmark);
export type CreateRunRequest = z.output<typeof CreateRunRequest>;

/**
 * POST /v1/runs naming a stored preset (src/presets): `config`, if any, overrides the preset's
 * top-level keys. The server resolves the preset first (applyPreset) and then validates the result
 * as a CreateRunRequest; this schema is the wire shape callers and /openapi.json see.
 */
export const CreateRunFromPreset = z.strictObject({ ...RunRequestFields, ...PresetReference.shape }).superRefine(oneBenchmark);

/** Every body POST /v1/runs takes: a config spelled out, or a preset with overrides. */
export const RunSubmission = z.union([CreateRunRequest, CreateRunFromPreset]);

export const ListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z.string().min(1).max(512).optional(),
});

/**
 * GET /v1/runs: newest first, only runs in one of the `status` values (comma-separated, as each
 * parameter is sent once: `status=queued,running`) and of the benchmark named, when given.
 */
export const RunListQuery = ListQuery.extend({
  status: z
    .string()
    .describe(`Statuses separated by commas, each one of ${RunStatusName.options.join(", ")}`)
    .transform((s) => s.split(","))
    .pipe(z.array(RunStatusName, { error: "expected statuses separated by commas" }))
    .optional(),
  benchmark_name: z.string().min(1).max(500).optional(),
});
export type RunListQuery = z.output<typeof RunListQuery>;

/** How GET /v1/runs/:id/summary?group_by= groups results (src/summaries/README.md). */
export const GROUP_BYS = ["pair", "question", "replicate", "answering_model", "parsing_model", "failure_category", "trait"] as const;
export type GroupBy = (typeof GROUP_BYS)[number];

/** GET /v1/runs/:id/summary: without group_by, the coordinator's per-pair view; with it, grouped from the result rows. */
export const SummaryQuery = ListQuery.extend({ group_by: z.enum(GROUP_BYS).optional() });

/** A result's verdict (src/pipeline/verdict.ts): "the judge failed" is `error`, never `fail`. */
export const VerdictName = z.enum(["pass", "fail", "error", "no_verdict"]);

/**
 * Result filters, shared by GET /v1/runs/:id/results and the exports. Model and question ids are
 * checked against the run (an id the run does not have is a 400 naming the parameter, not an
 * empty page); verdict and failure_group against their lists here.
 */
export const ResultFilterQuery = {
  answering_model: z.string().min(1).max(300).optional(),
  parsing_model: z.string().min(1).max(300).optional(),
  question_id: z.string().min(1).max(1000).optional(),
  verdict: VerdictName.optional(),
  failure_group: z.enum(FAILURE_GROUPS).optional(),
};
export const ResultsQuery = ListQuery.extend(ResultFilterQuery);
export type ResultsQuery = z.output<typeof ResultsQuery>;

/** Export formats (src/exports/README.md). */
export const EXPORT_FORMATS = ["karenina", "csv", "ndjson"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** GET /v1/runs/:id/export: streamed from D1 (csv, ndjson); karenina needs a built export. */
export const ExportQuery = z.strictObject({ format: z.enum(EXPORT_FORMATS), ...ResultFilterQuery });

/** POST /v1/runs/:id/exports: built into R2 by the export queue, with every result's trace. */
export const CreateExportRequest = z.strictObject({ format: z.enum(EXPORT_FORMATS), ...ResultFilterQuery });

/** GET /v1/runs/compare: run B against run A; a_model/b_model pair two answering model ids, a_parsing_model/b_parsing_model two judges. */
export const CompareQuery = ListQuery.extend({
  a: z.string().min(1).max(100),
  b: z.string().min(1).max(100),
  a_model: z.string().min(1).max(300).optional(),
  b_model: z.string().min(1).max(300).optional(),
  a_parsing_model: z.string().min(1).max(300).optional(),
  b_parsing_model: z.string().min(1).max(300).optional(),
});
