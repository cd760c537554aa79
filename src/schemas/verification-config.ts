/**
 * VerificationConfig: Karenina's field names, types and defaults (`extra="forbid"` → strict).
 *
 * Every field of Karenina's config is accepted, in one of three ways:
 *
 * 1. Honoured by edgeval: answering_models, parsing_models, replicate_count, evaluation_mode
 *    (all three), rubric_trait_names, rubric_evaluation_strategy, use_full_trace_for_rubric,
 *    include_extraction_hints, use_full_trace_for_template, allow_partial_trace_scoring,
 *    abstention_enabled, sufficiency_enabled, embedding_check_enabled / _model / _threshold,
 *    deep_judgment_mode and its tuning numbers (max excerpts, fuzzy threshold, retries) and
 *    deep_judgment_search_enabled (Tavily), few_shot_config, prompt_config (the *_instructions
 *    shortcuts fold into it), agentic_parsing and its agentic_parsing_* options and
 *    agentic_judge_context (stage 7b), deep_judgment_rubric_mode / _config / _global_excerpts / _*_default tuning numbers
 *    (search per trait through the run's search tool), agentic_rubric_strategy,
 *    agentic_rubric_parallel (async_max_workers traits at a time), request_timeout and
 *    retry_policy (stamped onto models without their own, as Karenina's model_stamping), plus
 *    edgeval's own `question_ids` filter (ids are checked against the benchmark later) and
 *    `embedding_check_provider` (who serves the embedding check's embeddings).
 * 2. Accepted execution knobs that change nothing in edgeval (Queues fan the work out and the
 *    shared provider limiter paces it; features they tune are not there yet; each is listed with
 *    its reason in the README's "Accepted but inert" table):
 *    async_enabled, async_max_workers (except as agentic_rubric_parallel's bound), max_concurrent_requests, batch_timeout_seconds,
 *    task_ordering, answerer_concurrency_limits, max_requeue_count, replay_parse_on_hydration_mismatch,
 *    workspace_copy,
 *    workspace_cleanup, workspace_output_exclude_patterns. Legacy keys Karenina strips
 *    (rubric_enabled, deep_judgment_rubric_search_enabled) are accepted and dropped the same way.
 * 3. Features not implemented yet: accepted only at their off value, otherwise an issue at
 *    that field saying so (parsing_only, workspace output, db_config, replay_store, skip_triples,
 *    custom_error_patterns).
 *
 * Karenina's side effect is kept: an answering model without a system prompt gets
 * DEFAULT_ANSWERING_SYSTEM_PROMPT; parsing models keep none.
 */
import { z } from "zod";
import { RequestTimeout, RetryPolicyConfig } from "./retry-policy";
import { whenMissing } from "../lib/wire-issues";
import { DEEP_JUDGMENT_RUBRIC_MODES, DeepJudgmentRubricCustomConfig } from "./deep-judgment-rubric";
import { FewShotExample } from "./benchmark";
import { ModelConfig } from "./model-config";

export const DEFAULT_ANSWERING_SYSTEM_PROMPT = "You are an expert assistant. Answer the question accurately and concisely.";
export const EVALUATION_MODES = ["template_only", "template_and_rubric", "rubric_only"] as const;

const notYet = (field: string, feature: string, off: string) => `${field}: ${feature} is not supported yet (only ${off} is accepted)`;

/** A feature flag edgeval cannot honour yet: only `false`. */
const offFlag = (field: string, feature: string) =>
  z
    .boolean({ error: `${field} must be true or false` })
    .refine((v) => !v, { error: notYet(field, feature, "false") })
    .default(false);

/** An object-valued feature edgeval cannot honour yet: only null. */
const nullOnly = (field: string, feature: string) => z.null({ error: notYet(field, feature, "null") }).nullish();

const int = (min: number) =>
  z
    .number()
    .int({ error: `must be an integer ≥ ${min}` })
    .min(min, { error: `must be an integer ≥ ${min}` });
const positive = z.number().positive({ error: "must be a number > 0" });
const unit = z.number().min(0, { error: "must be between 0 and 1" }).max(1, { error: "must be between 0 and 1" });

/** Karenina's PromptConfig: per-task instructions appended to that task's system prompt. */
const PROMPT_TASKS = [
  "generation",
  "parsing",
  "abstention_detection",
  "sufficiency_detection",
  "rubric_evaluation",
  "agentic_parsing",
  "deep_judgment",
] as const;
export const PromptConfig = z.strictObject(
  Object.fromEntries(PROMPT_TASKS.map((t) => [t, z.string({ error: `${t} must be a string` }).nullish()])) as {
    [K in (typeof PROMPT_TASKS)[number]]: z.ZodOptional<z.ZodNullable<z.ZodString>>;
  },
);
export type PromptConfig = z.output<typeof PromptConfig>;

/** Constructor shortcuts Karenina folds into prompt_config (`parsing_instructions` → `prompt_config.parsing`). */
const INSTRUCTION_SHORTCUTS = {
  generation_instructions: "generation",
  parsing_instructions: "parsing",
  abstention_detection_instructions: "abstention_detection",
  sufficiency_detection_instructions: "sufficiency_detection",
  rubric_evaluation_instructions: "rubric_evaluation",
  agentic_parsing_instructions: "agentic_parsing",
  deep_judgment_instructions: "deep_judgment",
} as const satisfies Record<string, (typeof PROMPT_TASKS)[number]>;
type Shortcut = keyof typeof INSTRUCTION_SHORTCUTS;
const SHORTCUT_NAMES = Object.keys(INSTRUCTION_SHORTCUTS) as Shortcut[];
const shortcutShape = Object.fromEntries(SHORTCUT_NAMES.map((f) => [f, z.string({ error: `${f} must be a string` }).nullish()])) as {
  [K in Shortcut]: z.ZodOptional<z.ZodNullable<z.ZodString>>;
};

const FEW_SHOT_MODES = ["all", "k-shot", "custom", "none"] as const;
/** An example named by its index in the question's list, or by the MD5 of its question text. */
const ExampleRef = z.union([
  int(0),
  z.string().regex(/^[0-9a-f]{32}$/, { error: "an example is named by its index or the MD5 hex of its question" }),
]);
const QuestionFewShotConfig = z.strictObject({
  mode: z.enum([...FEW_SHOT_MODES, "inherit"]).default("inherit"),
  k: int(1).nullish(),
  selected_examples: z.array(ExampleRef).nullish(),
  external_examples: z.array(FewShotExample).nullish(),
  excluded_examples: z.array(ExampleRef).nullish(),
});
const LEGACY_FEW_SHOT_KEYS = ["enabled", "global_mode", "global_k", "global_external_examples"] as const;
const CURRENT_FEW_SHOT_KEYS = ["source", "pool_mode", "pool_k", "global_examples"] as const;
/**
 * Karenina's FewShotConfig in its current shape (source, pool_mode, pool_k, question_configs,
 * global_examples; karenina schemas/config/models.py:254) or the older one (enabled, global_mode,
 * global_k, global_external_examples). Defaults are applied where the examples are resolved
 * (src/pipeline/few-shot.ts), so a config keeps the shape it was written in.
 */
export const FewShotConfig = z
  .strictObject({
    source: z
      .enum(["disabled", "question_pool", "global", "both"], { error: "source is one of disabled, question_pool, global, both" })
      .optional(),
    pool_mode: z.enum(["all", "k-shot", "custom"], { error: "pool_mode is one of all, k-shot, custom" }).optional(),
    pool_k: int(1).optional(),
    global_examples: z.array(FewShotExample).optional(),
    enabled: z.boolean().optional(),
    global_mode: z.enum(FEW_SHOT_MODES, { error: `global_mode is one of ${FEW_SHOT_MODES.join(", ")}` }).optional(),
    global_k: int(1).optional(),
    global_external_examples: z.array(FewShotExample).optional(),
    question_configs: z.record(z.string(), QuestionFewShotConfig).optional(),
  })
  .superRefine((c, ctx) => {
    const legacy = LEGACY_FEW_SHOT_KEYS.find((k) => c[k] !== undefined);
    const current = CURRENT_FEW_SHOT_KEYS.find((k) => c[k] !== undefined);
    if (legacy && current) {
      ctx.addIssue({
        code: "custom",
        path: [legacy],
        message: `${legacy} belongs to the older few-shot shape and ${current} to Karenina's current one (source, pool_mode, pool_k, global_examples); use one shape`,
      });
    }
  });
export type FewShotConfig = z.output<typeof FewShotConfig>;

const ConfigInput = z.strictObject({
  answering_models: z.array(ModelConfig, { error: "answering_models must be a list of models" }).default([]),
  parsing_models: z
    .array(ModelConfig, { error: whenMissing("parsing_models is required: a list of at least one judge model") })
    .min(1, { error: "parsing_models needs at least one model" }),
  replicate_count: int(1).default(1),
  parsing_only: offFlag("parsing_only", "parsing-only evaluation (TaskEval)"),
  question_ids: z
    .array(z.string().min(1), { error: "question_ids must be a list of question ids" })
    .min(1, { error: "question_ids must not be empty (omit it to run every question)" })
    .nullish(),

  evaluation_mode: z.enum(EVALUATION_MODES, { error: `evaluation_mode is one of ${EVALUATION_MODES.join(", ")}` }).default("template_only"),
  rubric_trait_names: z.array(z.string()).nullish(),
  rubric_evaluation_strategy: z.enum(["batch", "sequential"]).nullable().default("batch"),
  use_full_trace_for_template: z.boolean().default(false),
  use_full_trace_for_rubric: z.boolean().default(true),
  allow_partial_trace_scoring: z.boolean().default(true),
  include_extraction_hints: z.boolean().default(true),

  abstention_enabled: z.boolean().default(false),
  sufficiency_enabled: z.boolean().default(false),
  embedding_check_enabled: z.boolean().default(false),
  embedding_check_model: z.string().default("all-MiniLM-L6-v2"),
  /**
   * edgeval's: the model config that serves embeddings for the check (src/llm/embedding-model.ts);
   * unset, Karenina's default model name maps to Workers AI (deployed) or a local OpenAI-compatible
   * endpoint, and any other name is asked of the judge's provider.
   */
  embedding_check_provider: ModelConfig.nullish(),
  embedding_check_threshold: unit.default(0.85),

  async_enabled: z.boolean().default(true),
  async_max_workers: int(1).default(2),
  max_concurrent_requests: int(1).nullable().default(null),
  batch_timeout_seconds: positive.nullable().default(null),
  task_ordering: z.enum(["auto", "prefix_cache", "distribute_answerers", "generation_order", "random"]).default("auto"),
  answerer_concurrency_limits: z
    .union([int(1), z.record(z.string(), int(1))])
    .nullable()
    .default(null),

  deep_judgment_mode: z
    .enum(["disabled", "reasoning_only", "full"], { error: "deep_judgment_mode is one of disabled, reasoning_only, full" })
    .default("disabled"),
  deep_judgment_max_excerpts_per_attribute: int(1).default(3),
  deep_judgment_fuzzy_match_threshold: unit.default(0.8),
  deep_judgment_excerpt_retry_attempts: int(0).default(2),
  deep_judgment_search_enabled: z.boolean().default(false),
  deep_judgment_search_tool: z.string().default("tavily"),
  deep_judgment_rubric_mode: z
    .enum(DEEP_JUDGMENT_RUBRIC_MODES, { error: `deep_judgment_rubric_mode is one of ${DEEP_JUDGMENT_RUBRIC_MODES.join(", ")}` })
    .default("disabled"),
  deep_judgment_rubric_global_excerpts: z.boolean().default(true),
  deep_judgment_rubric_config: DeepJudgmentRubricCustomConfig.nullish(),
  deep_judgment_rubric_max_excerpts_default: int(1).default(7),
  deep_judgment_rubric_fuzzy_match_threshold_default: unit.default(0.8),
  deep_judgment_rubric_excerpt_retry_attempts_default: int(0).default(2),
  deep_judgment_rubric_search_tool: z.string().default("tavily"),

  few_shot_config: FewShotConfig.nullish(),
  prompt_config: PromptConfig.nullish(),
  ...shortcutShape,

  agentic_parsing: z.boolean({ error: "agentic_parsing must be true or false" }).default(false),
  agentic_parsing_trigger: z.enum(["always", "dynamic"], { error: 'agentic_parsing_trigger is "always" or "dynamic"' }).default("always"),
  agentic_judge_context: z.enum(["workspace_only", "trace_and_workspace", "trace_only"]).default("workspace_only"),
  agentic_parsing_max_turns: int(1).default(15),
  agentic_parsing_timeout: positive.default(120),
  agentic_parsing_materialize_trace: z.boolean().default(false),
  agentic_parsing_persist_trace: z.boolean().default(false),
  agentic_rubric_strategy: z.enum(["individual", "shared"]).default("individual"),
  agentic_rubric_parallel: z.boolean().default(false),

  workspace_copy: z.boolean().default(true),
  workspace_cleanup: z.boolean().default(true),
  workspace_output_mode: z
    .enum(["none", "full", "produced"])
    .refine((m) => m === "none", { error: notYet("workspace_output_mode", "workspace output", '"none"') })
    .default("none"),
  workspace_output_dir: nullOnly("workspace_output_dir", "workspace output"),
  workspace_output_exclude_patterns: z.array(z.string()).default([]),

  db_config: nullOnly("db_config", "database persistence (edgeval stores results itself)"),
  /** Seconds per model call for models without their own (Karenina's default 120); the deployment's MODEL_TIMEOUT_MS caps it. */
  request_timeout: RequestTimeout.default(120),
  /** Turns a scenario may take before it stops with `limit_reached` (src/scenarios). */
  scenario_turn_limit: int(1).default(20),
  replay_store: nullOnly("replay_store", "replay"),
  replay_parse_on_hydration_mismatch: z.enum(["fall_through", "strict"]).default("fall_through"),
  skip_triples: nullOnly("skip_triples", "resume"),
  /** Retry budgets and backoff for models without their own retry_policy. */
  retry_policy: RetryPolicyConfig.nullish(),
  custom_error_patterns: z
    .array(z.unknown())
    .refine((p) => p.length === 0, { error: notYet("custom_error_patterns", "custom error classification", "[]") })
    .default([]),
  max_requeue_count: int(1).default(5),

  rubric_enabled: z.boolean().optional(),
  deep_judgment_rubric_search_enabled: z.boolean().optional(),
});

const STRIPPED = ["rubric_enabled", "deep_judgment_rubric_search_enabled", ...SHORTCUT_NAMES] as const;

export const VerificationConfig = ConfigInput.superRefine((config, ctx) => {
  if (config.deep_judgment_search_enabled) {
    if (config.deep_judgment_mode === "reasoning_only") {
      ctx.addIssue({
        code: "custom",
        path: ["deep_judgment_search_enabled"],
        message: 'deep-judgment search needs excerpts: it cannot be used with deep_judgment_mode "reasoning_only"',
      });
    }
    if (config.deep_judgment_search_tool !== "tavily") {
      ctx.addIssue({
        code: "custom",
        path: ["deep_judgment_search_tool"],
        message: 'deep_judgment_search_tool: only "tavily" (a Tavily-compatible search API) is supported',
      });
    }
  }
  // As Karenina's VerificationConfig._validate_custom_mode_has_config (schemas/verification/config.py:388-389).
  if (config.deep_judgment_rubric_mode === "custom" && !config.deep_judgment_rubric_config) {
    ctx.addIssue({
      code: "custom",
      path: ["deep_judgment_rubric_config"],
      message: 'deep_judgment_rubric_mode "custom" needs deep_judgment_rubric_config (which traits get deep judgment, with what settings)',
    });
  }
  if (config.deep_judgment_rubric_search_tool !== "tavily") {
    ctx.addIssue({
      code: "custom",
      path: ["deep_judgment_rubric_search_tool"],
      message: 'deep_judgment_rubric_search_tool: only "tavily" (a Tavily-compatible search API) is supported',
    });
  }
  for (const shortcut of SHORTCUT_NAMES) {
    const task = INSTRUCTION_SHORTCUTS[shortcut];
    if (config[shortcut] && config.prompt_config?.[task]) {
      ctx.addIssue({
        code: "custom",
        path: [shortcut],
        message: `${shortcut} and prompt_config.${task} both set the ${task} instructions; give one`,
      });
    }
  }
  // Karenina's VerificationConfig checks for agentic parsing (karenina-inventory §2).
  if (config.agentic_parsing) {
    if (config.evaluation_mode === "rubric_only") {
      ctx.addIssue({
        code: "custom",
        path: ["agentic_parsing"],
        message: 'agentic parsing fills a template: it cannot be used with evaluation_mode "rubric_only"',
      });
    }
    if (config.agentic_parsing_materialize_trace && config.agentic_judge_context === "workspace_only") {
      ctx.addIssue({
        code: "custom",
        path: ["agentic_parsing_materialize_trace"],
        message:
          'agentic_parsing_materialize_trace writes the trace for the agent: it needs agentic_judge_context "trace_and_workspace" or "trace_only"',
      });
    }
    config.parsing_models.forEach((m, i) => {
      if (m.interface === "workers_ai") {
        ctx.addIssue({
          code: "custom",
          path: ["parsing_models", i, "interface"],
          message: "agentic parsing needs a tool-calling parsing model; workers_ai has none",
        });
      }
    });
  } else if (config.agentic_parsing_trigger === "dynamic") {
    ctx.addIssue({
      code: "custom",
      path: ["agentic_parsing_trigger"],
      message: 'agentic_parsing_trigger "dynamic" requires agentic_parsing: true',
    });
  }
  if (!config.parsing_only && config.answering_models.length === 0) {
    ctx.addIssue({ code: "custom", path: ["answering_models"], message: "answering_models needs at least one model" });
  }
  config.parsing_models.forEach((m, i) => {
    if (m.interface === "manual") {
      ctx.addIssue({
        code: "custom",
        path: ["parsing_models", i, "interface"],
        message: "a manual model cannot judge: parsing models must call an LLM",
      });
    }
    if (m.mcp_urls_dict) {
      ctx.addIssue({
        code: "custom",
        path: ["parsing_models", i, "mcp_urls_dict"],
        message: "MCP servers are for answering models; a parsing model investigates with agentic_parsing",
      });
    }
  });
  for (const list of ["answering_models", "parsing_models"] as const) {
    const first = new Map<string, number>();
    config[list].forEach((m, i) => {
      const at = first.get(m.id);
      // Result ids are derived from the model ids, so two models with one id would overwrite each other.
      if (at !== undefined)
        ctx.addIssue({ code: "custom", path: [list, i, "id"], message: `duplicate model id "${m.id}" (first used by ${list}[${at}])` });
      else first.set(m.id, i);
    });
  }
}).transform((config) => {
  const out: Record<string, unknown> = { ...config };
  for (const key of STRIPPED) delete out[key];
  const rest = out as Omit<typeof config, (typeof STRIPPED)[number]>;
  return {
    ...rest,
    question_ids: config.question_ids ?? undefined,
    prompt_config: mergeShortcuts(config),
    answering_models: config.answering_models.map((m) => (m.system_prompt ? m : { ...m, system_prompt: DEFAULT_ANSWERING_SYSTEM_PROMPT })),
  };
});
export type VerificationConfig = z.output<typeof VerificationConfig>;
export type VerificationConfigInput = z.input<typeof VerificationConfig>;

/** prompt_config with the shortcut fields folded in (null when nothing is customised). */
function mergeShortcuts(config: z.output<typeof ConfigInput>): PromptConfig | null {
  const merged: PromptConfig = { ...(config.prompt_config ?? {}) };
  for (const shortcut of SHORTCUT_NAMES) {
    const text = config[shortcut];
    if (text) merged[INSTRUCTION_SHORTCUTS[shortcut]] = text;
  }
  return Object.values(merged).some((v) => v) ? merged : null;
}
