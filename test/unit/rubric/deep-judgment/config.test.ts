import { describe, expect, it } from "vitest";
import {
  DEFAULT_DEEP_JUDGMENT_RUBRIC,
  type DeepJudgmentRubricSettings,
  partitionDeepJudgmentTraits,
  resolveTraitConfig,
} from "../../../../src/rubric/deep-judgment";
import { DeepJudgmentRubricCustomConfig } from "../../../../src/schemas/deep-judgment-rubric";

const clarity = { name: "clarity", kind: "score", description: "Is it clear?" };
const safety = { name: "safety", kind: "boolean", description: "Is it safe?" };
const tone = { name: "tone", kind: "literal", classes: { a: "A", b: "B" } };
const settings = (over: Partial<DeepJudgmentRubricSettings>): DeepJudgmentRubricSettings => ({ ...DEFAULT_DEEP_JUDGMENT_RUBRIC, ...over });

describe("deep judgment rubric mode resolution", () => {
  it("disabled deep-judges no trait", () => {
    const { deep, standard } = partitionDeepJudgmentTraits([clarity, safety], "q1", settings({ mode: "disabled" }));
    expect(deep).toEqual([]);
    expect(standard.map((t) => t.name)).toEqual(["clarity", "safety"]);
  });

  it("enable_all deep-judges every boolean and score trait with the global defaults (max 7, 0.80, 2 retries)", () => {
    const { deep, standard } = partitionDeepJudgmentTraits([clarity, safety, tone], "q1", settings({ mode: "enable_all" }));
    expect(deep.map((d) => d.trait.name)).toEqual(["clarity", "safety"]);
    expect(standard.map((t) => t.name)).toEqual(["tone"]);
    expect(deep[0]!.config).toEqual({
      excerpt_enabled: true,
      max_excerpts: 7,
      fuzzy_match_threshold: 0.8,
      excerpt_retry_attempts: 2,
      search_enabled: false,
    });
  });

  it("enable_all with global_excerpts off reasons without excerpts", () => {
    expect(resolveTraitConfig(clarity, "q1", settings({ mode: "enable_all", global_excerpts: false }))?.excerpt_enabled).toBe(false);
  });

  it("use_checkpoint reads the trait's own deep_judgment fields, null falling back to the global default", () => {
    const s = settings({ mode: "use_checkpoint", max_excerpts_default: 4 });
    const on = {
      ...clarity,
      deep_judgment_enabled: true,
      deep_judgment_fuzzy_match_threshold: 0.95,
      deep_judgment_max_excerpts: null,
      deep_judgment_search_enabled: true,
    };
    expect(resolveTraitConfig(on, "q1", s)).toEqual({
      excerpt_enabled: true,
      max_excerpts: 4,
      fuzzy_match_threshold: 0.95,
      excerpt_retry_attempts: 2,
      search_enabled: true,
    });
    expect(resolveTraitConfig({ ...clarity, deep_judgment_enabled: false }, "q1", s)).toBeNull();
    expect(resolveTraitConfig(clarity, "q1", s)).toBeNull();
  });

  it("custom resolves question-specific, then global, then disabled", () => {
    const config = DeepJudgmentRubricCustomConfig.parse({
      global: { safety: { max_excerpts: 5 }, clarity: { excerpt_enabled: false } },
      question_specific: { q1: { safety: { fuzzy_match_threshold: 0.9 } }, q2: { clarity: { enabled: false } } },
    });
    const s = settings({ mode: "custom", config });
    expect(resolveTraitConfig(safety, "q1", s)).toMatchObject({ fuzzy_match_threshold: 0.9, max_excerpts: 7 });
    expect(resolveTraitConfig(safety, "q2", s)).toMatchObject({ fuzzy_match_threshold: 0.8, max_excerpts: 5 });
    expect(resolveTraitConfig(clarity, "q1", s)?.excerpt_enabled).toBe(false);
    expect(resolveTraitConfig(clarity, "q2", s)).toBeNull();
    expect(resolveTraitConfig({ name: "other", kind: "boolean" }, "q1", s)).toBeNull();
  });

  it("custom config entries are checked against Karenina's DeepJudgmentTraitConfig", () => {
    expect(DeepJudgmentRubricCustomConfig.safeParse({ global: { x: { fuzzy_match_threshold: 2 } } }).success).toBe(false);
    expect(DeepJudgmentRubricCustomConfig.safeParse({ global: { x: { nonsense: 1 } } }).success).toBe(false);
  });
});

describe("deep judgment rubric settings from the run config", async () => {
  const { VerificationConfig } = await import("../../../../src/schemas/verification-config");
  const { pipelineSettings } = await import("../../../../src/submit/plan");
  const model = { id: "m", interface: "openai_compatible", model_name: "x", base_url: "http://x/v1" };
  const minimal = { answering_models: [model], parsing_models: [model] };

  it("a config in custom mode carries its per-question and global trait config to the pipeline", () => {
    const config = VerificationConfig.parse({
      ...minimal,
      deep_judgment_rubric_mode: "custom",
      deep_judgment_rubric_max_excerpts_default: 4,
      deep_judgment_rubric_config: {
        global: { safety: { search_enabled: true } },
        question_specific: { q9: { safety: { enabled: false } } },
      },
    });
    const s = pipelineSettings(config).deep_judgment_rubric!;
    expect(s).toMatchObject({
      mode: "custom",
      max_excerpts_default: 4,
      fuzzy_match_threshold_default: 0.8,
      excerpt_retry_attempts_default: 2,
    });
    expect(resolveTraitConfig(safety, "q1", s)).toMatchObject({ search_enabled: true, max_excerpts: 4 });
    expect(resolveTraitConfig(safety, "q9", s)).toBeNull();
  });

  it("an unknown mode or a malformed custom config is refused at submit", () => {
    expect(VerificationConfig.safeParse({ ...minimal, deep_judgment_rubric_mode: "all" }).success).toBe(false);
    expect(VerificationConfig.safeParse({ ...minimal, deep_judgment_rubric_config: { global: { t: { max_excerpts: 0 } } } }).success).toBe(
      false,
    );
  });
});

describe("use_checkpoint with an imported Karenina checkpoint", async () => {
  const { readFileSync } = await import("node:fs");
  const path = await import("node:path");
  const { Checkpoint, importCheckpoint } = await import("../../../../src/karenina/import");
  const { Benchmark } = await import("../../../../src/schemas/benchmark");
  const json = JSON.parse(readFileSync(path.resolve(__dirname, "../../../fixtures/karenina/checkpoint_with_rubrics.jsonld"), "utf8"));

  it("reads the deep_judgment_* properties the checkpoint saved on its traits", () => {
    const b = Benchmark.parse(importCheckpoint(Checkpoint.parse(json)).benchmark);
    const s = settings({ mode: "use_checkpoint" });
    const llm = b.rubric!.llm_traits;
    // The file saves every trait with deep_judgment_enabled false: none is deep-judged.
    expect(llm.map((t) => t.deep_judgment_enabled)).toEqual([false, false, false]);
    expect(partitionDeepJudgmentTraits(llm, "q", s).deep).toEqual([]);
    // Switched on, its saved excerpt setting (false) is honoured.
    const on = { ...llm[0]!, deep_judgment_enabled: true };
    expect(resolveTraitConfig(on, "q", s)).toMatchObject({ excerpt_enabled: false, search_enabled: false, max_excerpts: 7 });
  });
});
