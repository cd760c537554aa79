import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StructuredRequest } from "../../../src/llm/port";
import { evaluateRubric } from "../../../src/rubric/evaluate";
import { mergeRubrics } from "../../../src/rubric/merge";
import { Rubric } from "../../../src/schemas/rubric";
import { ModelConfig } from "../../../src/schemas/model-config";
import { scriptedPort } from "../../support/scripted-port";

const parsing = ModelConfig.parse({ id: "j", interface: "openai_compatible", model_name: "m", base_url: "http://x/v1" });
const CLASSES = { Low: "l", Mid: "m", High: "h" };

const traitArb = fc.record({
  kind: fc.constantFrom("boolean", "score", "literal"),
  seesReference: fc.boolean(),
  value: fc.oneof(fc.boolean(), fc.integer({ min: -3, max: 12 }), fc.constantFrom("Low", "mid", "HIGH", "Other")),
  min: fc.integer({ min: 0, max: 2 }),
});

/** A judge whose opinion of each trait is fixed, however the traits are grouped into calls. */
function judgeFrom(values: Map<string, unknown>) {
  return scriptedPort({
    structured: (req: StructuredRequest<unknown>) => {
      const text = req.messages.map((m) => m.content).join("\n");
      const named = [...values.keys()].filter((n) => text.includes(`**${n}**`) || text.includes(`**TRAIT:** ${n}\n`));
      const v = (n: string) => values.get(n);
      switch (req.schemaName) {
        case "BatchRubricScores":
          return { scores: Object.fromEntries(named.map((n) => [n, v(n)])) };
        case "BatchLiteralClassifications":
          return { classifications: named.map((n) => ({ trait_name: n, class_name: String(v(n)) })) };
        case "SingleBooleanScore":
          return { result: v(named[0]!) };
        case "SingleNumericScore":
          return { score: v(named[0]!) };
        default:
          return { classification: String(v(named[0]!)) };
      }
    },
  });
}

describe("batch and sequential strategies", () => {
  it("give the same scores and labels for any mix of traits under a consistent judge", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(traitArb, { minLength: 1, maxLength: 8 }), async (specs) => {
        const values = new Map<string, unknown>();
        const llm_traits = specs.map((s, i) => {
          const name = `t${i}`;
          values.set(name, s.value);
          const base = { name, description: `trait ${i}`, include_ground_truth: s.seesReference };
          if (s.kind === "literal") return { ...base, kind: "literal", classes: CLASSES };
          return { ...base, kind: s.kind, ...(s.kind === "score" ? { min_score: s.min, max_score: 5 } : {}) };
        });
        const merged = mergeRubrics(Rubric.parse({ llm_traits }), null);
        const run = (strategy: "batch" | "sequential") =>
          evaluateRubric(
            { merged, question_id: "q", question: "Q", response: "A", reference: "R", strategy, trait_names: null, parsing },
            { judge: judgeFrom(values) },
          );
        const [b, s] = [await run("batch"), await run("sequential")];
        expect(b.section.llm_trait_scores).toEqual(s.section.llm_trait_scores);
        expect(b.section.llm_trait_labels).toEqual(s.section.llm_trait_labels);
      }),
      { numRuns: 200 },
    );
  });
});
