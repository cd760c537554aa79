/**
 * Turns a validated run request into a run spec, with the checks that need more than one field:
 * question_ids must exist, manual models must answer every selected question, and every model
 * (answering, parsing, and those inside rubric traits) whose provider needs a key must find its
 * secret and may send it only where keys may go (for a dry run a missing secret is a warning:
 * it calls no model). Pure: nothing is written here.
 */
import { inertSettingWarnings } from "./inert-settings";
import { secretAdvice } from "../env";
import type { FieldIssue } from "../schemas/field-issue";
import { mcpServerIssues, modelKeyIssues } from "../llm/model-keys";
import { temperatureIssues } from "../llm/temperature-range";
import { embeddingModel } from "../llm/embedding-model";
import type { KeyRing } from "../tenants/key-ring";
import type { CreateRunBody } from "../schemas/api";
import type { PipelineSettings } from "../pipeline/types";
import type { ModelConfig } from "../schemas/model-config";
import type { VerificationConfig } from "../schemas/verification-config";
import type { Question, Scenario } from "../schemas/benchmark";
import { type Rubric, traitNames } from "../schemas/rubric";
import { TAVILY_SECRET } from "../adapters/search-tavily";
import { modelsInRubrics } from "./rubric-models";
import { priceFor, priceTable } from "../llm/prices";
import { jobIds } from "./spec";
import type { RunSpec } from "../storage/run-spec";

/** A run larger than this is refused: split it (keeps submit within one request's limits). */
export const MAX_RESULTS_PER_RUN = 100_000;

/**
 * `warnings`: what would stop the real run but not a dry run (a secret not set yet), and Karenina
 * options set but not applied here (inert-settings.ts).
 */
export type Plan = { ok: true; spec: RunSpec; jobIds: string[]; warnings: FieldIssue[] } | { ok: false; issues: FieldIssue[] };

export interface PlanOptions {
  /** A dry run calls no model, so a missing secret is a warning, not a refusal. */
  dryRun?: boolean;
  /** How a missing secret is set where this worker runs (src/env.ts secretAdvice). */
  secretAdvice?: (name: string) => string;
  /** Set when `budget_usd` is the tenant's monthly spend quota's remainder, not the caller's: the refusals say so. */
  budgetFromQuota?: { monthly_spend_usd: number };
}

export function planRun(
  body: CreateRunBody,
  ids: { run_id: string; tenant_id: string; created_at: string },
  /** The tenant's provider keys and where each may go (src/tenants/key-ring.ts). */
  ring: KeyRing,
  opts: PlanOptions = {},
): Plan {
  const { benchmark, config } = body;
  const issues: FieldIssue[] = [];
  const warnings: FieldIssue[] = [];
  const advice = opts.secretAdvice ?? ((name: string) => secretAdvice(name, {}));
  const unsetSecrets = opts.dryRun ? warnings : issues;

  const known = new Set(benchmark.questions.map((q) => q.id));
  (config.question_ids ?? []).forEach((id, i) => {
    if (!known.has(id))
      issues.push({ path: `config.question_ids[${i}]`, message: `no question with id ${JSON.stringify(id)} in the benchmark` });
  });
  const wanted = config.question_ids ? new Set(config.question_ids) : null;
  const questions = benchmark.questions.filter((q) => !wanted || wanted.has(q.id));

  config.answering_models.forEach((m, i) => {
    if (m.interface !== "manual") return;
    const missing = questions.filter((q) => m.manual_answers?.[q.id] === undefined).map((q) => q.id);
    if (missing.length) {
      issues.push({
        path: `config.answering_models[${i}].manual_answers`,
        message: `no answer for ${missing.length} selected question(s): ${missing
          .slice(0, 5)
          .map((q) => JSON.stringify(q))
          .join(", ")}${missing.length > 5 ? ", …" : ""}`,
      });
    }
  });
  const models = configModelIssues(
    config,
    modelsInRubrics(benchmark, (id) => !wanted || wanted.has(id)),
    ring,
    advice,
  );
  issues.push(...models.issues);
  unsetSecrets.push(...models.unset);

  if (config.deep_judgment_search_enabled && !ring.secret(TAVILY_SECRET)) {
    unsetSecrets.push({
      path: "config.deep_judgment_search_enabled",
      message: `deep-judgment search needs the secret ${TAVILY_SECRET}, which is not set; ${advice(TAVILY_SECRET)}`,
    });
  }

  issues.push(...budgetIssues(body, opts.budgetFromQuota));
  for (const id of Object.keys(body.limits ?? {})) {
    if (![...config.answering_models, ...config.parsing_models].some((m) => m.id === id)) {
      issues.push({ path: `limits.${id}`, message: `no answering or parsing model has id ${JSON.stringify(id)}` });
    }
  }

  const scenarios = benchmark.scenarios ?? [];
  // A scenario turn is one result per (answering, parsing) pair; each chain runs at most scenario_turn_limit turns.
  const totalResults =
    (questions.length + scenarios.length * config.scenario_turn_limit) *
    config.answering_models.length *
    config.replicate_count *
    config.parsing_models.length;
  if (totalResults > MAX_RESULTS_PER_RUN) {
    issues.push({ path: "config", message: `this run would produce ${totalResults} results; the limit is ${MAX_RESULTS_PER_RUN} per run` });
  }
  if (issues.length) return { ok: false, issues };

  const spec: RunSpec = {
    run_id: ids.run_id,
    tenant_id: ids.tenant_id,
    run_name: body.run_name ?? null,
    benchmark_name: benchmark.name,
    created_at: ids.created_at,
    questions,
    answering_models: config.answering_models.map((m) => stampRunDefaults(m, config)),
    parsing_models: config.parsing_models.map((m) => stampRunDefaults(m, config)),
    replicate_count: config.replicate_count,
    settings: {
      ...pipelineSettings(config),
      ...rubricSettings(config, benchmark.rubric ?? null, [...questions, ...scenarioQuestions(scenarios)]),
    },
    ...(body.prices ? { prices: body.prices } : {}),
    ...(body.budget_usd !== undefined ? { budget_usd: body.budget_usd } : {}),
    ...(body.cache?.enabled ? { cache: body.cache } : {}),
    ...(body.limits ? { limits: body.limits } : {}),
    ...(scenarios.length ? { scenarios, scenario_turn_limit: config.scenario_turn_limit } : {}),
  };
  return { ok: true, spec, jobIds: jobIds(spec), warnings: [...warnings, ...inertSettingWarnings(config)] };
}

/**
 * What stops the config's models (answering, parsing, embedding, and `more`: the rubric traits'
 * models) from being called: a temperature, a key destination or an MCP server refused (`issues`),
 * and key secrets not set (`unset`: a refusal for a run, a warning for a dry run). A trigger checks
 * its stored config's models with it when it is created.
 */
export function configModelIssues(
  config: VerificationConfig,
  more: readonly { path: string; model: ModelConfig }[],
  ring: KeyRing,
  advice: (name: string) => string,
): { issues: FieldIssue[]; unset: FieldIssue[] } {
  const issues: FieldIssue[] = [];
  const unset: FieldIssue[] = [];
  const models = [
    ...config.answering_models.map((model, i) => ({ path: `config.answering_models[${i}]`, model })),
    ...config.parsing_models.map((model, i) => ({ path: `config.parsing_models[${i}]`, model })),
    ...more,
    ...(config.embedding_check_enabled && config.embedding_check_provider
      ? [{ path: "config.embedding_check_provider", model: config.embedding_check_provider }]
      : []),
  ];
  if (config.embedding_check_enabled) issues.push(...embeddingIssues(config));
  config.answering_models.forEach((model, i) => issues.push(...mcpServerIssues(model, `config.answering_models[${i}]`, ring)));
  for (const { path, model } of models) {
    issues.push(...temperatureIssues(model, path));
    const keyIssues = modelKeyIssues(model, { model: path, base_url: `${path}.base_url` }, ring, advice);
    issues.push(...keyIssues.misdirected);
    unset.push(...keyIssues.unset);
  }
  return { issues, unset };
}

/** Every scenario node's question: their rubrics count for the run's evaluation mode too. */
const scenarioQuestions = (scenarios: readonly Scenario[]): Question[] =>
  scenarios.flatMap((s) => Object.values(s.nodes).map((n) => n.question));

/**
 * The rubric part of the settings. Karenina's quirk is not copied: a template_only run whose
 * merged rubric (global or any selected question's) has traits is upgraded to
 * template_and_rubric, and every result's metadata.evaluation_mode records the mode used.
 */
export function rubricSettings(
  config: VerificationConfig,
  global: Rubric | null,
  questions: readonly Question[],
): Partial<PipelineSettings> {
  const hasTraits = [global, ...questions.map((q) => q.rubric ?? null)].some((r) => r !== null && traitNames(r).length > 0);
  const mode = config.evaluation_mode === "template_only" && hasTraits ? "template_and_rubric" : config.evaluation_mode;
  return {
    evaluation_mode: mode,
    global_rubric: global,
    rubric_evaluation_strategy: config.rubric_evaluation_strategy ?? "batch",
    rubric_trait_names: config.rubric_trait_names ?? null,
  };
}

/**
 * The run's request_timeout and retry_policy onto a model that has none of its own, as Karenina's
 * model_stamping does (benchmark/verification/batch_runner.py:184-193): the model's own win.
 */
export function stampRunDefaults(model: ModelConfig, config: Pick<VerificationConfig, "request_timeout" | "retry_policy">): ModelConfig {
  const retry = model.retry_policy ?? config.retry_policy ?? undefined;
  return { ...model, request_timeout: model.request_timeout ?? config.request_timeout, ...(retry ? { retry_policy: retry } : {}) };
}

/** Every judge must have somewhere to get embeddings from (src/llm/embedding-model.ts). */
function embeddingIssues(config: VerificationConfig): FieldIssue[] {
  const settings = { model: config.embedding_check_model, provider: config.embedding_check_provider ?? null };
  for (const judge of config.parsing_models) {
    const r = embeddingModel(settings, judge, { local: false });
    if ("error" in r) return [{ path: "config.embedding_check_model", message: r.error }];
  }
  return [];
}

/** A budget can only bind if every model that is called has a price. */
function budgetIssues(body: CreateRunBody, fromQuota: PlanOptions["budgetFromQuota"]): FieldIssue[] {
  if (body.budget_usd === undefined) return [];
  // The caller may have sent no budget_usd at all: then naming it would send them looking for it.
  const needs = fromQuota
    ? `this tenant's monthly spend quota (limits.monthly_spend_usd, ${fromQuota.monthly_spend_usd} USD) caps the run as a budget, which needs`
    : "budget_usd needs";
  const table = priceTable(body.prices);
  const issues: FieldIssue[] = [];
  for (const [list, models] of [
    ["answering_models", body.config.answering_models],
    ["parsing_models", body.config.parsing_models],
  ] as const) {
    models.forEach((m, i) => {
      if (m.interface === "manual" || priceFor(table, m.interface, m.model_name)) return;
      issues.push({
        path: `config.${list}[${i}]`,
        message: `${needs} a price for model ${JSON.stringify(`${m.interface}:${m.model_name}`)}; add it to prices as {input_per_mtok, output_per_mtok}`,
      });
    });
  }
  return issues;
}

/** The config fields the pipeline reads, under the pipeline's names; nothing else reaches a job. */
export function pipelineSettings(config: VerificationConfig): PipelineSettings {
  return {
    evaluation_mode: config.evaluation_mode,
    replicate_count: config.replicate_count,
    include_extraction_hints: config.include_extraction_hints,
    use_full_trace_for_template: config.use_full_trace_for_template,
    use_full_trace_for_rubric: config.use_full_trace_for_rubric,
    allow_partial_trace_scoring: config.allow_partial_trace_scoring,
    abstention_enabled: config.abstention_enabled,
    sufficiency_enabled: config.sufficiency_enabled,
    embedding_check: {
      enabled: config.embedding_check_enabled,
      model: config.embedding_check_model,
      threshold: config.embedding_check_threshold,
      ...(config.embedding_check_provider ? { provider: config.embedding_check_provider } : {}),
    },
    deep_judgment: {
      mode: config.deep_judgment_mode,
      max_excerpts_per_attribute: config.deep_judgment_max_excerpts_per_attribute,
      fuzzy_match_threshold: config.deep_judgment_fuzzy_match_threshold,
      excerpt_retry_attempts: config.deep_judgment_excerpt_retry_attempts,
      search_enabled: config.deep_judgment_search_enabled,
      search_tool: config.deep_judgment_search_tool,
    },
    few_shot_config: config.few_shot_config ?? null,
    prompt_config: config.prompt_config,
    deep_judgment_rubric: {
      mode: config.deep_judgment_rubric_mode,
      global_excerpts: config.deep_judgment_rubric_global_excerpts,
      max_excerpts_default: config.deep_judgment_rubric_max_excerpts_default,
      fuzzy_match_threshold_default: config.deep_judgment_rubric_fuzzy_match_threshold_default,
      excerpt_retry_attempts_default: config.deep_judgment_rubric_excerpt_retry_attempts_default,
      // Karenina strips deep_judgment_rubric_search_enabled: search is per trait (use_checkpoint, custom).
      search_enabled: false,
      search_tool: config.deep_judgment_rubric_search_tool,
      config: config.deep_judgment_rubric_config ?? null,
    },
    agentic_rubric: { strategy: config.agentic_rubric_strategy, parallel: config.agentic_rubric_parallel ? config.async_max_workers : 1 },
    ...(config.agentic_parsing
      ? {
          agentic_parsing: {
            trigger: config.agentic_parsing_trigger,
            judge_context: config.agentic_judge_context,
            max_turns: config.agentic_parsing_max_turns,
            timeout_s: config.agentic_parsing_timeout,
            materialize_trace: config.agentic_parsing_materialize_trace,
            persist_trace: config.agentic_parsing_persist_trace,
          },
        }
      : {}),
  };
}
