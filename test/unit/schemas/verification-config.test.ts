import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_ANSWERING_SYSTEM_PROMPT, VerificationConfig } from "../../../src/schemas/verification-config";
import { pipelineSettings } from "../../../src/submit/plan";
import { expectIssue, parseOk } from "./issues";

const preset = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../../fixtures/karenina/preset_full.json"), "utf8")) as {
  config: Record<string, unknown>;
};
const answerer = { id: "gpt", interface: "openai", model_name: "gpt-4o" };
const judge = { id: "judge", interface: "anthropic", model_name: "claude-haiku-4-5" };
const minimal = { answering_models: [answerer], parsing_models: [judge] };

describe("Karenina's preset_full.json", () => {
  const shared = path.resolve(__dirname, "../../../../shared/reference/karenina-data/preset_full.json");
  it.skipIf(!fs.existsSync(shared))("the fixture is an unchanged copy of shared/reference/karenina-data/preset_full.json", () => {
    expect(JSON.parse(fs.readFileSync(shared, "utf8"))).toEqual(preset);
  });

  const config = parseOk(VerificationConfig, preset.config);
  it("validates and normalises its langchain + anthropic models to anthropic", () => {
    expect(config.answering_models[0]).toEqual({
      id: "answerer",
      interface: "anthropic",
      model_name: "claude-sonnet-4-6",
      temperature: 0.1,
      max_tokens: 16384,
      system_prompt: "You are an expert assistant. Answer the question accurately and concisely.",
    });
    expect(config.parsing_models[0]).toMatchObject({ id: "judge", interface: "anthropic", model_name: "claude-haiku-4-5", temperature: 0 });
  });
  it("keeps its settings under Karenina's names", () => {
    expect(config).toMatchObject({
      replicate_count: 1,
      evaluation_mode: "template_only",
      include_extraction_hints: true,
      request_timeout: 120,
      deep_judgment_mode: "disabled",
    });
  });
});

describe("defaults", () => {
  const config = parseOk(VerificationConfig, minimal);
  it("applies Karenina's defaults", () => {
    expect(config).toMatchObject({
      replicate_count: 1,
      evaluation_mode: "template_only",
      parsing_only: false,
      abstention_enabled: false,
      include_extraction_hints: true,
      embedding_check_threshold: 0.85,
      async_max_workers: 2,
      rubric_evaluation_strategy: "batch",
      use_full_trace_for_template: false,
      request_timeout: 120,
    });
    expect(config.question_ids).toBeUndefined();
  });
  it("gives answering models without a system prompt Karenina's default, and parsing models none", () => {
    expect(config.answering_models[0]!.system_prompt).toBe(DEFAULT_ANSWERING_SYSTEM_PROMPT);
    expect(config.parsing_models[0]!.system_prompt).toBeUndefined();
  });
  it("accepts and drops the legacy keys Karenina strips", () => {
    const c = parseOk(VerificationConfig, {
      ...minimal,
      rubric_enabled: true,
      deep_judgment_rubric_search_enabled: false,
      generation_instructions: null,
    });
    expect(c).not.toHaveProperty("rubric_enabled");
    expect(c).not.toHaveProperty("generation_instructions");
  });
  it("switches on the checks and folds instruction shortcuts into prompt_config", () => {
    const c = parseOk(VerificationConfig, {
      ...minimal,
      abstention_enabled: true,
      sufficiency_enabled: true,
      embedding_check_enabled: true,
      deep_judgment_mode: "full",
      few_shot_config: {
        global_mode: "k-shot",
        global_k: 2,
        question_configs: { q1: { mode: "custom", selected_examples: [0, "0123456789abcdef0123456789abcdef"] } },
      },
      prompt_config: { generation: "Be brief." },
      parsing_instructions: "Be strict.",
    });
    expect(c).toMatchObject({
      abstention_enabled: true,
      sufficiency_enabled: true,
      embedding_check_enabled: true,
      deep_judgment_mode: "full",
    });
    expect(c.prompt_config).toEqual({ generation: "Be brief.", parsing: "Be strict." });
    expect(c.few_shot_config).toMatchObject({ global_mode: "k-shot", global_k: 2, question_configs: { q1: { mode: "custom" } } });
    // Karenina's current shape (karenina schemas/config/models.py:260-272) is accepted as written.
    const current = parseOk(VerificationConfig, {
      ...minimal,
      few_shot_config: { source: "question_pool", pool_mode: "k-shot", pool_k: 2, global_examples: [{ question: "G?", answer: "g" }] },
    });
    expect(current.few_shot_config).toEqual({
      source: "question_pool",
      pool_mode: "k-shot",
      pool_k: 2,
      global_examples: [{ question: "G?", answer: "g" }],
    });
    expect(c).not.toHaveProperty("parsing_instructions");
    expect(parseOk(VerificationConfig, minimal).prompt_config).toBeNull();
  });
  it("allow_partial_trace_scoring: Karenina's default true, and either value reaches the pipeline", () => {
    expect(config.allow_partial_trace_scoring).toBe(true);
    expect(pipelineSettings(config).allow_partial_trace_scoring).toBe(true);
    expect(
      pipelineSettings(parseOk(VerificationConfig, { ...minimal, allow_partial_trace_scoring: false })).allow_partial_trace_scoring,
    ).toBe(false);
  });
  it("accepts execution knobs at any valid value", () => {
    parseOk(VerificationConfig, {
      ...minimal,
      async_enabled: false,
      async_max_workers: 8,
      task_ordering: "random",
      answerer_concurrency_limits: { gpt: 2 },
      batch_timeout_seconds: 60,
      retry_policy: { rate_limit: { max_attempts: 3 } },
    });
  });
});

describe("VerificationConfig rejects, at the exact path", () => {
  it.each<[string, Record<string, unknown>, string, RegExp]>([
    [
      "a manual parsing model",
      { ...minimal, parsing_models: [{ interface: "manual", manual_answers: { q1: "x" } }] },
      "parsing_models[0].interface",
      /manual model cannot judge/,
    ],
    ["no parsing models", { answering_models: [answerer] }, "parsing_models", /parsing_models is required/],
    ["an empty parsing model list", { ...minimal, parsing_models: [] }, "parsing_models", /at least one model/],
    ["no answering models", { parsing_models: [judge] }, "answering_models", /at least one model/],
    ["a duplicate model id", { ...minimal, answering_models: [answerer, answerer] }, "answering_models[1].id", /duplicate model id "gpt"/],
    ["a replicate_count of 0", { ...minimal, replicate_count: 0 }, "replicate_count", /integer ≥ 1/],
    [
      "an unknown evaluation mode",
      { ...minimal, evaluation_mode: "fast" },
      "evaluation_mode",
      /template_only, template_and_rubric, rubric_only/,
    ],
    [
      "deep-judgment search with reasoning_only",
      { ...minimal, deep_judgment_mode: "reasoning_only", deep_judgment_search_enabled: true },
      "deep_judgment_search_enabled",
      /cannot be used with deep_judgment_mode "reasoning_only"/,
    ],
    [
      "a search tool other than tavily",
      { ...minimal, deep_judgment_mode: "full", deep_judgment_search_enabled: true, deep_judgment_search_tool: "bing" },
      "deep_judgment_search_tool",
      /only "tavily"/,
    ],
    ["an unknown deep judgment mode", { ...minimal, deep_judgment_mode: "deep" }, "deep_judgment_mode", /disabled, reasoning_only, full/],
    [
      "a few-shot config mixing the two shapes",
      { ...minimal, few_shot_config: { source: "global", global_mode: "all" } },
      "few_shot_config.global_mode",
      /use one shape/,
    ],
    [
      "a few-shot source Karenina does not have",
      { ...minimal, few_shot_config: { source: "pool" } },
      "few_shot_config.source",
      /disabled, question_pool, global, both/,
    ],
    [
      "a few-shot pool_k of 0",
      { ...minimal, few_shot_config: { pool_mode: "k-shot", pool_k: 0 } },
      "few_shot_config.pool_k",
      /integer ≥ 1/,
    ],
    [
      "a few-shot k of 0",
      { ...minimal, few_shot_config: { global_mode: "k-shot", global_k: 0 } },
      "few_shot_config.global_k",
      /integer ≥ 1/,
    ],
    ["an unknown prompt task", { ...minimal, prompt_config: { answering: "Be brief" } }, "prompt_config", /Unrecognized key: "answering"/],
    [
      "a shortcut and prompt_config naming one task",
      { ...minimal, parsing_instructions: "a", prompt_config: { parsing: "b" } },
      "parsing_instructions",
      /both set the parsing instructions/,
    ],
    // Karenina raises the same (schemas/verification/config.py:388-389, and its CLI at cli/verify_config.py:250).
    [
      "deep_judgment_rubric_mode custom without its config",
      { ...minimal, deep_judgment_rubric_mode: "custom" },
      "deep_judgment_rubric_config",
      /"custom" needs deep_judgment_rubric_config/,
    ],
    // Karenina checks deep_judgment_search_tool when the config is built (schemas/verification/config.py:592-597) but
    // deep_judgment_rubric_search_tool (:231) only when a trait searches (verification/utils/search_provider.py:129-130).
    [
      "an unknown deep_judgment_rubric_search_tool",
      { ...minimal, deep_judgment_rubric_search_tool: "bing" },
      "deep_judgment_rubric_search_tool",
      /only "tavily"/,
    ],
    ["a db config", { ...minimal, db_config: { url: "sqlite://" } }, "db_config", /not supported yet/],
    [
      "agentic parsing in rubric_only mode",
      { ...minimal, agentic_parsing: true, evaluation_mode: "rubric_only" },
      "agentic_parsing",
      /cannot be used with evaluation_mode "rubric_only"/,
    ],
    [
      "a dynamic trigger without agentic parsing",
      { ...minimal, agentic_parsing_trigger: "dynamic" },
      "agentic_parsing_trigger",
      /requires agentic_parsing: true/,
    ],
    [
      "a materialized trace the agent cannot see",
      { ...minimal, agentic_parsing: true, agentic_parsing_materialize_trace: true },
      "agentic_parsing_materialize_trace",
      /needs agentic_judge_context/,
    ],
    ["parsing_only", { ...minimal, parsing_only: true }, "parsing_only", /not supported yet/],
    ["an unknown key", { ...minimal, temperature: 0 }, "", /Unrecognized key: "temperature"/],
    [
      "an unknown key inside a model",
      { ...minimal, answering_models: [{ ...answerer, provider: "openai" }] },
      "answering_models[0]",
      /Unrecognized key: "provider"/,
    ],
    [
      "a non-null unsupported model field",
      { ...minimal, answering_models: [{ ...answerer, max_context_tokens: 30 }] },
      "answering_models[0].max_context_tokens",
      /max_context_tokens is not supported/,
    ],
    [
      "MCP servers on a parsing model",
      { ...minimal, parsing_models: [{ ...answerer, id: "j", mcp_urls_dict: { s: "https://mcp.example" } }] },
      "parsing_models[0].mcp_urls_dict",
      /for answering models/,
    ],
    [
      "openai_compatible without base_url",
      { ...minimal, answering_models: [{ ...answerer, interface: "openai_compatible" }] },
      "answering_models[0].base_url",
      /needs base_url/,
    ],
    ["an empty question_ids", { ...minimal, question_ids: [] }, "question_ids", /must not be empty/],
    ["an embedding threshold above 1", { ...minimal, embedding_check_threshold: 1.5 }, "embedding_check_threshold", /between 0 and 1/],
  ])("%s", (_what, input, path, message) => {
    expectIssue(VerificationConfig, input, path, message);
  });
});

describe("VerificationConfig rubric settings", () => {
  it("accepts every evaluation mode with the rubric strategy, trait filter and trace switch", () => {
    for (const mode of ["template_only", "template_and_rubric", "rubric_only"] as const) {
      const c = parseOk(VerificationConfig, {
        ...minimal,
        evaluation_mode: mode,
        rubric_evaluation_strategy: "sequential",
        rubric_trait_names: ["clarity"],
        use_full_trace_for_rubric: false,
      });
      expect(c).toMatchObject({
        evaluation_mode: mode,
        rubric_evaluation_strategy: "sequential",
        rubric_trait_names: ["clarity"],
        use_full_trace_for_rubric: false,
      });
    }
  });
});
