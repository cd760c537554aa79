import { untrusted } from "../../../src/lib/untrusted";
import { plainMessages } from "../../support/plain-prompt";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { StructuredRequest } from "../../../src/llm/port";
import { evaluateRubric, type RubricEvalInput } from "../../../src/rubric/evaluate";
import { BATCH_SCORES_SCHEMA } from "../../../src/rubric/llm-traits";
import { mergeRubrics, RubricMergeError } from "../../../src/rubric/merge";
import { batchScoresMessages } from "../../../src/rubric/prompts";
import { LLMRubricTrait, Rubric } from "../../../src/schemas/rubric";
import { ModelConfig } from "../../../src/schemas/model-config";
import { scriptedPort } from "../../support/scripted-port";

const parsing = ModelConfig.parse({ id: "judge", interface: "openai_compatible", model_name: "m", base_url: "http://x/v1" });

/** What the scripted judge thinks of the answer, per trait. */
const VERDICT: Record<string, unknown> = {
  clear: true,
  concise: false,
  depth: 4,
  tone: "Formal",
  correct: true,
  style: "casual",
  odd: "Sarcastic",
};

/** Answers any rubric call from VERDICT, whatever the strategy, by reading the trait names in the prompt. */
function oracleJudge() {
  return scriptedPort({
    structured: (req: StructuredRequest<unknown>) => {
      const text = req.messages.map((m) => m.content).join("\n");
      const named = Object.keys(VERDICT).filter((n) => text.includes(`**${n}**`) || text.includes(`**TRAIT:** ${n}\n`));
      switch (req.schemaName) {
        case "BatchRubricScores":
          return { scores: Object.fromEntries(named.map((n) => [n, VERDICT[n]])) };
        case "BatchLiteralClassifications":
          return { classifications: named.map((n) => ({ trait_name: n, class_name: VERDICT[n] })) };
        case "SingleBooleanScore":
          return { result: VERDICT[named[0]!] };
        case "SingleNumericScore":
          return { score: VERDICT[named[0]!] };
        case "SingleLiteralClassification":
          return { classification: VERDICT[named[0]!] };
        case "Quality":
          return { accuracy: 3, verdict: "ok", cites: true };
        case "ConceptPresenceResult":
          return {
            results: [
              { trait_name: "safety", present: true },
              { trait_name: "humour", present: false },
            ],
          };
        default:
          throw new Error(`unexpected ${req.schemaName}`);
      }
    },
  });
}

const rubric = Rubric.parse({
  llm_traits: [
    { name: "clear", kind: "boolean", description: "is clear" },
    { name: "concise", kind: "boolean", description: "is concise" },
    { name: "depth", kind: "score", min_score: 0, max_score: 3, description: "depth" },
    { name: "tone", kind: "literal", classes: { Casual: "c", Formal: "f" } },
    { name: "odd", kind: "literal", classes: { Plain: "p", Dry: "d" } },
    { name: "correct", kind: "boolean", description: "matches the reference", include_ground_truth: true },
    {
      name: "quality",
      kind: {
        type: "template",
        schema: {
          title: "Quality",
          type: "object",
          properties: { accuracy: { type: "integer" }, verdict: { type: "string" }, cites: { type: "boolean" } },
        },
      },
    },
  ],
  regex_traits: [{ name: "cites", pattern: "\\[\\d+\\]" }],
});

function input(over: Partial<RubricEvalInput> = {}): RubricEvalInput {
  return {
    merged: mergeRubrics(rubric, null),
    question_id: "q1",
    question: "Q?",
    response: "Answer [1].",
    reference: "the reference",
    strategy: "batch",
    trait_names: null,
    parsing,
    ...over,
  };
}

describe("rubric evaluation", () => {
  it("gives the same scores in batch and sequential under a scripted judge", async () => {
    const batch = await evaluateRubric(input(), { judge: oracleJudge() });
    const seq = await evaluateRubric(input({ strategy: "sequential" }), { judge: oracleJudge() });
    expect(batch.section.llm_trait_scores).toEqual(seq.section.llm_trait_scores);
    expect(batch.section.llm_trait_labels).toEqual(seq.section.llm_trait_labels);
    expect(batch.section.llm_trait_scores).toMatchObject({
      clear: true,
      concise: false,
      depth: 3,
      tone: 1,
      odd: -1,
      correct: true,
      "quality.accuracy": 3,
      "quality.cites": true,
    });
    expect(batch.section.llm_trait_labels).toEqual({ tone: "Formal", odd: "Sarcastic", "quality.verdict": "ok" });
    expect(batch.section.rubric_evaluation_strategy).toBe("batch");
    expect(seq.section.rubric_evaluation_strategy).toBe("sequential");
  });

  it("batch makes one boolean/score call, one literal call, one call for traits seeing the reference, one per template trait", async () => {
    const judge = oracleJudge();
    await evaluateRubric(input(), { judge });
    expect(judge.calls).toHaveLength(4);
    const withRef = judge.calls.filter((c) => c.messages.some((m) => m.content.includes("**REFERENCE ANSWER:**\nthe reference")));
    expect(withRef).toHaveLength(1);
    expect(withRef[0]!.messages[1]!.content).toContain("**correct**");
    expect(withRef[0]!.messages[1]!.content).not.toContain("**clear**");
  });

  it("sequential makes one call per LLM trait", async () => {
    const judge = oracleJudge();
    await evaluateRubric(input({ strategy: "sequential" }), { judge });
    expect(judge.calls).toHaveLength(7);
  });

  it("evaluates only the traits named in rubric_trait_names", async () => {
    const out = await evaluateRubric(input({ trait_names: ["depth", "cites"] }), { judge: oracleJudge() });
    expect(out.section.llm_trait_scores).toEqual({ depth: 3 });
    expect(out.section.regex_trait_scores).toEqual({ cites: true });
    expect(out.section.trait_provenance).toEqual({ depth: "global", cites: "global" });
  });

  it("records a failed judge call as null scores and a warning, never as false", async () => {
    const judge = scriptedPort({ structured: () => ({ kind: "server_error", message: "down" }) });
    const out = await evaluateRubric(input({ trait_names: ["clear", "cites"] }), { judge });
    expect(out.section.llm_trait_scores).toEqual({ clear: null });
    expect(out.section.regex_trait_scores).toEqual({ cites: true });
    expect(out.warnings.join()).toMatch(/server_error/);
    expect(out.transient?.kind).toBe("server_error");
  });

  it("promotes present dynamic traits and skips absent ones with the reason, in one presence call", async () => {
    const r = Rubric.parse({
      regex_traits: [{ name: "cites", pattern: "\\[" }],
      dynamic: {
        llm_traits: [{ name: "safety", kind: "boolean", summary: "discusses safety" }],
        regex_traits: [{ name: "humour", pattern: "ha", summary: "jokes" }],
      },
    });
    const judge = oracleJudge();
    const out = await evaluateRubric(input({ merged: mergeRubrics(null, r) }), { judge });
    expect(judge.calls.filter((c) => c.messages[0]!.content.includes("concept presence detector"))).toHaveLength(1);
    expect(out.section.dynamic_rubric_promoted_traits).toEqual(["safety"]);
    expect(out.section.dynamic_rubric_skipped_traits).toEqual({ humour: "concept not present in response" });
    expect(out.section.trait_provenance).toEqual({ cites: "question_specific", safety: "dynamic" });
    expect(out.usage.dynamic_rubric_presence_check).toBeDefined();
  });

  it("skips dynamic traits left out by rubric_trait_names without checking them", async () => {
    const r = Rubric.parse({ dynamic: { llm_traits: [{ name: "safety", kind: "boolean", summary: "s" }] } });
    const judge = oracleJudge();
    const out = await evaluateRubric(input({ merged: mergeRubrics(null, r), trait_names: [] }), { judge });
    expect(judge.calls).toHaveLength(0);
    expect(out.section.dynamic_rubric_skipped_traits).toEqual({ safety: "not selected by rubric_trait_names" });
  });
});

describe("rubric merge", () => {
  it("merges global and question traits with their provenance", () => {
    const m = mergeRubrics(
      Rubric.parse({ regex_traits: [{ name: "a", pattern: "x" }] }),
      Rubric.parse({ llm_traits: [{ name: "b", kind: "boolean" }] }),
    );
    expect(m.provenance).toEqual({ a: "global", b: "question_specific" });
    expect(m.rubric.regex_traits).toHaveLength(1);
    expect(m.rubric.llm_traits).toHaveLength(1);
  });
  it("refuses a trait name defined in both", () => {
    const g = Rubric.parse({ regex_traits: [{ name: "a", pattern: "x" }] });
    expect(() => mergeRubrics(g, Rubric.parse({ llm_traits: [{ name: "a", kind: "boolean" }] }))).toThrow(RubricMergeError);
  });
  it("refuses dotted names and duplicates within a rubric", () => {
    expect(Rubric.safeParse({ llm_traits: [{ name: "a.b", kind: "boolean" }] }).success).toBe(false);
    expect(Rubric.safeParse({ llm_traits: [{ name: "a", kind: "boolean" }], regex_traits: [{ name: "a", pattern: "x" }] }).success).toBe(
      false,
    );
  });
  it("refuses a literal trait with fewer than 2 or more than 20 classes", () => {
    expect(LLMRubricTrait.safeParse({ name: "l", kind: "literal", classes: { a: "" } }).success).toBe(false);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`c${i}`, ""]));
    expect(LLMRubricTrait.safeParse({ name: "l", kind: "literal", classes: many }).success).toBe(false);
  });
});

describe("the recorded Karenina batch call", () => {
  const fixture = JSON.parse(readFileSync("/work/shared/reference/karenina-data/llm_fixture_rubric_batch_ab0e36bb.json", "utf8")) as {
    request: { messages: { content: string }[] };
  };
  it("is the prompt edgeval sends for the same traits", () => {
    const traits = [
      LLMRubricTrait.parse({ name: "clarity", kind: "boolean", description: "The response is clear and easy to understand" }),
      LLMRubricTrait.parse({
        name: "helpfulness",
        kind: "score",
        min_score: 1,
        max_score: 5,
        description: "The response is helpful and addresses the user's need",
      }),
    ];
    const answer =
      "Photosynthesis is the process by which plants convert sunlight, water, and carbon dioxide into glucose and oxygen. Think of it as plants making their own food using sunlight as energy.";
    const marked = batchScoresMessages(
      traits,
      { question: "Explain what photosynthesis is in simple terms.", answer },
      BATCH_SCORES_SCHEMA,
    );
    // With answer delimiting off (src/lib/untrusted.ts), Karenina's words exactly; the answer alone is marked as data.
    const messages = plainMessages(marked);
    expect(messages[0]!.content).toBe(fixture.request.messages[0]!.content);
    expect(messages[1]!.content).toBe(fixture.request.messages[1]!.content);
    expect(marked[1]!.content).toBe(fixture.request.messages[1]!.content.replace(answer, untrusted(answer)));
  });
});
