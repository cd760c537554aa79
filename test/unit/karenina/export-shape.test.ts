import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { exportCheckpoint } from "../../../src/karenina/export";
import { Checkpoint, importCheckpoint } from "../../../src/karenina/import";
import { Benchmark } from "../../../src/schemas/benchmark";

/** What Karenina's loader (schemas/checkpoint.py) requires of a checkpoint. */
const PropertyValue = z.object({ name: z.string(), value: z.unknown() });
const KareninaCheckpoint = z.object({
  "@context": z.record(z.string(), z.unknown()),
  "@type": z.literal("DataFeed"),
  name: z.string(),
  dateCreated: z.string(),
  dateModified: z.string(),
  rating: z
    .array(z.object({ "@type": z.literal("Rating"), name: z.string(), additionalType: z.string().startsWith("karenina:") }))
    .optional(),
  dataFeedElement: z.array(
    z.object({
      "@type": z.literal("DataFeedItem"),
      dateCreated: z.string(),
      dateModified: z.string(),
      item: z.object({
        "@type": z.literal("Question"),
        text: z.string(),
        acceptedAnswer: z.object({ text: z.string() }),
        hasPart: z.object({
          "@type": z.literal("SoftwareSourceCode"),
          name: z.string(),
          text: z.string(),
          programmingLanguage: z.literal("Python"),
        }),
        additionalProperty: z.array(PropertyValue).optional(),
        keywords: z.array(z.string()).optional(),
      }),
    }),
  ),
  additionalProperty: z.array(PropertyValue),
});

const DIR = path.join(import.meta.dirname, "../../fixtures/karenina");
const FIXTURES = readdirSync(DIR).filter((f) => f.startsWith("checkpoint_"));

describe("exported checkpoints", () => {
  it.each(FIXTURES)("have every field Karenina's loader requires (%s)", (file) => {
    const b = Benchmark.parse(importCheckpoint(Checkpoint.parse(JSON.parse(readFileSync(path.join(DIR, file), "utf8")))).benchmark);
    const { checkpoint } = exportCheckpoint(b, "b1", "2026-02-01T00:00:00Z");
    expect(() => KareninaCheckpoint.parse(checkpoint)).not.toThrow();
    expect((checkpoint.additionalProperty as { name: string; value: unknown }[])[0]).toEqual({
      "@type": "PropertyValue",
      name: "benchmark_format_version",
      value: "3.0.0-jsonld",
    });
  });

  it("write a native benchmark Karenina can load: templates as VerifiedField, empty template and answer where there are none, JavaScript verify as a warning", () => {
    const b = Benchmark.parse({
      name: "native",
      rubric: { llm_traits: [{ name: "clarity", kind: "score", min_score: 1, max_score: 4 }] },
      questions: [
        {
          id: "q1",
          question: "Capital of France?",
          raw_answer: "Paris",
          template: {
            fields: [{ name: "city", type: "str", description: "the city", ground_truth: "Paris", verify_with: { type: "ExactMatch" } }],
          },
        },
        { id: "q2", question: "No template yet?" },
        {
          id: "q3",
          question: "Code?",
          template: {
            fields: [{ name: "n", type: "int", description: "n", ground_truth: 3 }],
            custom_verify: { language: "javascript", source: "function verify(a) { return a.n === 3; }" },
          },
        },
      ],
    });
    const { checkpoint, warnings } = exportCheckpoint(b, "b2", "2026-02-01T00:00:00Z");
    const k = KareninaCheckpoint.parse(checkpoint);
    expect(k.dataFeedElement.map((e) => [e.item.acceptedAnswer.text, e.item.hasPart.text.includes("VerifiedField(")])).toEqual([
      ["Paris", true],
      ["", false],
      ["", false],
    ]);
    expect(k.rating).toMatchObject([{ name: "clarity", additionalType: "karenina:GlobalRubricTrait" }]);
    expect(warnings).toEqual([expect.stringMatching(/question q3: its JavaScript custom verify has no Karenina form/)]);
    const again = Benchmark.parse(importCheckpoint(Checkpoint.parse(JSON.parse(JSON.stringify(checkpoint)))).benchmark);
    expect(again.questions.map((q) => [q.id, q.raw_answer ?? null, q.template?.fields.map((f) => f.name) ?? null])).toEqual([
      ["q1", "Paris", ["city"]],
      ["q2", null, null],
      ["q3", null, null],
    ]);
    expect(again.rubric).toEqual(b.rubric);
  });
});
