import { describe, expect, it } from "vitest";
import { exportCheckpoint } from "../../../src/karenina/export";
import { Checkpoint, importCheckpoint } from "../../../src/karenina/import";
import { kareninaQuestionId } from "../../../src/karenina/question-id";
import { md5Hex } from "../../../src/lib/md5";
import { evaluateRegexTrait } from "../../../src/rubric/regex";
import { Benchmark } from "../../../src/schemas/benchmark";

const prop = (name: string, value: unknown) => ({ "@type": "PropertyValue", name, value });

/** A checkpoint exercising what the fixtures do not: few-shot, custom metadata, literal and template traits, scenarios. */
const RICH = {
  "@context": { "@version": 1.1 },
  "@type": "DataFeed",
  "@id": "urn:uuid:karenina-checkpoint-1",
  name: "rich",
  description: "everything",
  version: "1.0.0",
  creator: { "@type": "Person", name: "Curator" },
  dateCreated: "2026-01-12T00:00:00",
  dateModified: "2026-01-12T00:00:00",
  rating: [
    {
      "@type": "Rating",
      name: "mechanism_level",
      bestRating: 2,
      worstRating: 0,
      additionalType: "karenina:GlobalLLMRubricTrait",
      additionalProperty: [
        prop("kind", "literal"),
        prop("classes", JSON.stringify({ none: "no", partial: "some", full: "all" })),
        prop("include_ground_truth", true),
      ],
    },
    {
      "@type": "Rating",
      name: "structured",
      bestRating: 0,
      worstRating: 0,
      additionalType: "karenina:GlobalLLMRubricTrait",
      additionalProperty: [prop("kind", { type: "template", schema: { type: "object", properties: { x: { type: "string" } } } })],
    },
    {
      "@type": "Rating",
      name: "recall",
      bestRating: 1,
      worstRating: 0,
      additionalType: "karenina:GlobalMetricRubricTrait",
      additionalProperty: [prop("metrics", ["recall"]), prop("tp_instructions", ["mentions BCL2"]), prop("evaluation_mode", "tp_only")],
    },
    // Dynamic traits as Karenina writes them (utils/checkpoint_trait_converters.py:687-706): the per-kind rating
    // re-tagged DynamicRubricTrait, with dynamic_trait_type and summary properties.
    {
      "@type": "Rating",
      name: "dyn",
      description: "Does it discuss side effects?",
      bestRating: 1,
      worstRating: 0,
      additionalType: "karenina:GlobalDynamicRubricTrait",
      additionalProperty: [prop("kind", "boolean"), prop("dynamic_trait_type", "llm"), prop("summary", "side effects")],
    },
    {
      "@type": "Rating",
      name: "dyn_regex",
      bestRating: 1,
      worstRating: 0,
      additionalType: "karenina:GlobalDynamicRubricTrait",
      additionalProperty: [prop("pattern", "BCL-?2"), prop("dynamic_trait_type", "regex"), prop("summary", "the BCL2 target")],
    },
    { "@type": "Rating", name: "dyn_bare", additionalType: "karenina:GlobalDynamicRubricTrait" },
  ],
  dataFeedElement: [
    {
      "@type": "DataFeedItem",
      dateCreated: "2026-01-12T00:00:00",
      dateModified: "2026-01-13T00:00:00",
      item: {
        "@type": "Question",
        text: "What is the capital of France?",
        acceptedAnswer: { "@type": "Answer", text: "Paris" },
        hasPart: {
          "@type": "SoftwareSourceCode",
          name: "t",
          programmingLanguage: "Python",
          text: "class Answer(BaseAnswer):\n    capital: str = VerifiedField(description='The capital', ground_truth='Paris', verify_with=ExactMatch())\n",
        },
        additionalProperty: [
          prop("finished", true),
          prop("author", '{"name": "Curator"}'),
          prop("custom_difficulty", "easy"),
          prop("few_shot_examples", JSON.stringify([{ question: "Capital of Italy?", answer: "Rome" }])),
        ],
        keywords: ["geo"],
      },
    },
  ],
  hasPart: [{ "@type": "karenina:Scenario", name: "s1", nodes: {}, edges: [] }],
  additionalProperty: [prop("benchmark_format_version", "3.0.0-jsonld"), prop("project", "x")],
};

describe("checkpoint details", () => {
  it("gives a question without @id Karenina's generate_question_id", () => {
    expect(md5Hex("")).toBe("d41d8cd98f00b204e9800998ecf8427e");
    expect(md5Hex("abc")).toBe("900150983cd24fb0d6963f7d28e17f72");
    expect(md5Hex("héllo wörld ü".repeat(10))).toBe("77fe67b9d1ced7b1f46e851e82d3ccd7");
    expect(kareninaQuestionId("What is the capital of France?")).toBe("urn:uuid:question-what-is-the-capital-of-france-cb0b4aaf");
    const { benchmark } = importCheckpoint(Checkpoint.parse(RICH));
    expect(benchmark.questions[0]!.id).toBe("urn:uuid:question-what-is-the-capital-of-france-cb0b4aaf");
  });

  it("maps few-shot examples, custom metadata, keywords, a VerifiedField template and every kept trait", () => {
    const { benchmark, warnings, errors } = importCheckpoint(Checkpoint.parse(RICH));
    // The scenario has no entry node: kept as data (exported back), not run.
    expect(errors).toEqual([
      {
        path: "hasPart[0].entryNode",
        message:
          'scenario "s1" not imported (kept as data, not run): entry_node is required: the node the scenario starts at (got nothing)',
      },
    ]);
    const b = Benchmark.parse(benchmark);
    const q = b.questions[0]!;
    expect(q).toMatchObject({
      raw_answer: "Paris",
      keywords: ["geo"],
      custom_metadata: { difficulty: "easy" },
      few_shot_examples: [{ question: "Capital of Italy?", answer: "Rome" }],
    });
    expect(q.template).toMatchObject({ fields: [{ name: "capital", ground_truth: "Paris", verify_with: { type: "ExactMatch" } }] });
    expect(q.template!.custom_verify).toBeUndefined();
    expect(b.rubric!.llm_traits).toMatchObject([
      { name: "mechanism_level", kind: "literal", classes: { none: "no", partial: "some", full: "all" }, include_ground_truth: true },
      { name: "structured", kind: { type: "template" } },
    ]);
    expect(b.rubric!.metric_traits).toMatchObject([{ name: "recall", tp_instructions: ["mentions BCL2"] }]);
    expect(b.rubric!.dynamic).toMatchObject({
      llm_traits: [{ name: "dyn", kind: "boolean", summary: "side effects", description: "Does it discuss side effects?" }],
      regex_traits: [{ name: "dyn_regex", pattern: "BCL-?2", summary: "the BCL2 target" }],
    });
    expect(warnings.map((w) => w.message)).toEqual([
      'dynamic trait "dyn_bare" has neither summary nor description, so there is no concept to check for; not imported',
    ]);
    expect(b.karenina).toMatchObject({
      description: "everything",
      scenarios: [{ name: "s1" }],
      additional_properties: [{ name: "project", value: "x" }],
    });
  });

  it("round-trips it: include_ground_truth, scenarios and question properties survive export", () => {
    const first = Benchmark.parse(importCheckpoint(Checkpoint.parse(RICH)).benchmark);
    const { checkpoint } = exportCheckpoint(first, "b1", "2026-02-01T00:00:00Z");
    const text = JSON.stringify(checkpoint);
    expect(text).toContain('"include_ground_truth"');
    expect(text).toContain("VerifiedField(");
    const again = Benchmark.parse(importCheckpoint(Checkpoint.parse(JSON.parse(text))).benchmark);
    expect(again).toEqual(first);
  });

  it("exports dynamic traits as Karenina does (re-tagged, with dynamic_trait_type) and reads them back", () => {
    const first = Benchmark.parse(importCheckpoint(Checkpoint.parse(RICH)).benchmark);
    const { checkpoint } = exportCheckpoint(first, "b1", "2026-02-01T00:00:00Z");
    const ratings = (
      checkpoint.rating as { name: string; additionalType: string; additionalProperty: { name: string; value: unknown }[] }[]
    ).filter((r) => r.name.startsWith("dyn"));
    expect(
      ratings.map((r) => [r.name, r.additionalType, r.additionalProperty.find((p) => p.name === "dynamic_trait_type")?.value]),
    ).toEqual([
      ["dyn", "karenina:GlobalDynamicRubricTrait", "llm"],
      ["dyn_regex", "karenina:GlobalDynamicRubricTrait", "regex"],
    ]);
    expect(Benchmark.parse(importCheckpoint(Checkpoint.parse(JSON.parse(JSON.stringify(checkpoint)))).benchmark).rubric!.dynamic).toEqual(
      first.rubric!.dynamic,
    );
  });

  it("a compound trait (no Karenina form) is named in an export warning instead of vanishing", () => {
    const b = Benchmark.parse({
      name: "c",
      rubric: {
        compound_traits: [
          { name: "jury", config: { type: "likert", provider: { id: "j", interface: "openai", model_name: "gpt-4o-mini" } } },
        ],
      },
      questions: [
        {
          id: "q1",
          question: "Q?",
          rubric: {
            dynamic: {
              compound_traits: [
                {
                  name: "dyn_jury",
                  summary: "x",
                  config: { type: "likert", provider: { id: "j", interface: "openai", model_name: "gpt-4o-mini" } },
                },
              ],
            },
          },
        },
      ],
    });
    const { checkpoint, warnings } = exportCheckpoint(b, "b1", "2026-02-01T00:00:00Z");
    expect(warnings).toEqual([
      'the global rubric: compound trait "jury" has no Karenina checkpoint form (Karenina has no compound judges); not exported',
      'question q1: dynamic compound trait "dyn_jury" has no Karenina checkpoint form (Karenina has no compound judges); not exported',
    ]);
    expect(checkpoint.rating).toBeUndefined();
  });

  // Karenina's _convert_rating_to_regex_trait (utils/checkpoint_trait_converters.py:413) starts from pattern = "".
  it("a regex trait without a pattern imports with the empty pattern, which matches every answer, as Karenina loads it", () => {
    const cp = {
      ...structuredClone(RICH),
      rating: [
        {
          "@type": "Rating",
          name: "any",
          bestRating: 1,
          worstRating: 0,
          additionalType: "karenina:GlobalRegexTrait",
          additionalProperty: [prop("case_sensitive", false)],
        },
      ],
    };
    const { benchmark, warnings } = importCheckpoint(Checkpoint.parse(cp));
    expect(warnings.filter((w) => w.message.includes("any"))).toEqual([]);
    const trait = Benchmark.parse(benchmark).rubric!.regex_traits[0]!;
    expect(trait).toMatchObject({ name: "any", pattern: "", case_sensitive: false });
    expect(evaluateRegexTrait(trait, "anything at all")).toBe(true);
    expect(evaluateRegexTrait(trait, "")).toBe(true);
  });

  it("accepts a question's hasPart written as a one-element array", () => {
    const cp = structuredClone(RICH) as unknown as { dataFeedElement: { item: { hasPart: unknown } }[] };
    cp.dataFeedElement[0]!.item.hasPart = [cp.dataFeedElement[0]!.item.hasPart];
    const { benchmark, errors } = importCheckpoint(Checkpoint.parse(cp));
    expect(errors.map((e) => e.path)).toEqual(["hasPart[0].entryNode"]);
    expect(benchmark.questions[0]!.template).toBeDefined();
  });
});
