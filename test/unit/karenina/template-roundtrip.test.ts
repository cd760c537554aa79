import { describe, expect, it } from "vitest";
import { importCheckpoint, Checkpoint } from "../../../src/karenina/import";
import { importTemplate } from "../../../src/karenina/template-import";
import { exportTemplate } from "../../../src/karenina/template-export";
import { AnswerTemplate } from "../../../src/templates/template-schema";
import { Benchmark } from "../../../src/schemas/benchmark";

const KARENINA_STYLE = `from karenina.schemas.entities import BaseAnswer
from karenina.schemas.primitives import BooleanMatch, ContainsAny, NumericTolerance, SetContainment
from typing import Literal, Optional


class Answer(BaseAnswer):
    """mRNA vaccine question."""

    delivery_mechanism: str = VerifiedField(
        description="How the vaccine delivers its instructions",
        ground_truth="mrna",
        verify_with=ContainsAny(substrings=["mrna", "messenger rna"], normalize=["lowercase", SynonymMap(mapping={"m-rna": "mrna"})]),
        weight=2,
    )
    temperature_celsius: Optional[float] = VerifiedField(
        "Storage temperature", -70.0, NumericTolerance(tolerance=0.5, mode="absolute"), extraction_hint="in °C"
    )
    indications: list[str] = VerifiedField(description="Indications", ground_truth=["CLL", "SLL"], verify_with=SetContainment(mode="superset"))
    trial_phase: Literal["I", "II", "III"] = VerifiedField(description="Phase", ground_truth="III", verify_with=LiteralMatch())
    mentions_immune_response: bool = VerifiedField(description="True if it mentions the immune response", ground_truth=True, verify_with=BooleanMatch())

    class VerificationStrategy:
        verify_strategy = AnyOf(conditions=[FieldCheck(field="delivery_mechanism"), AtLeastN(n=2, conditions=[FieldCheck("indications"), FieldCheck(field="trial_phase"), FieldCheck(field="mentions_immune_response")])])

    def model_post_init(self, __context):
        self.regex = {"nct": {"pattern": r"NCT\\d{8}", "expected": 1, "match_type": "count"}}
`;

describe("VerifiedField templates", () => {
  it("parse statically into the native template: fields, primitives, normalizers, strategy, regex", () => {
    const r = importTemplate(KARENINA_STYLE);
    if (!r.ok) throw new Error(r.error);
    const t = AnswerTemplate.parse(r.template);
    expect(t.custom_verify).toBeUndefined();
    expect(t.fields.map((f) => [f.name, f.type, f.ground_truth, f.verify_with!.type, f.weight])).toEqual([
      ["delivery_mechanism", "str", "mrna", "ContainsAny", 2],
      ["temperature_celsius", "float", -70, "NumericTolerance", 1],
      ["indications", "list_str", ["CLL", "SLL"], "SetContainment", 1],
      ["trial_phase", "literal", "III", "LiteralMatch", 1],
      ["mentions_immune_response", "bool", true, "BooleanMatch", 1],
    ]);
    expect(t.fields[0]!.verify_with!.params).toMatchObject({
      substrings: ["mrna", "messenger rna"],
      normalize: ["lowercase", { mapping: { "m-rna": "mrna" } }],
    });
    expect(t.fields[1]).toMatchObject({ extraction_hint: "in °C", verify_with: { params: { tolerance: 0.5, mode: "absolute" } } });
    expect(t.fields[3]!.literal_values).toEqual(["I", "II", "III"]);
    expect(t.verify_strategy).toEqual({
      type: "any_of",
      conditions: [
        { type: "field_check", field_name: "delivery_mechanism", conditions: [] },
        {
          type: "at_least_n",
          n: 2,
          conditions: ["indications", "trial_phase", "mentions_immune_response"].map((f) => ({
            type: "field_check",
            field_name: f,
            conditions: [],
          })),
        },
      ],
    });
    expect(t.regex).toEqual([{ name: "nct", pattern: "NCT\\d{8}", expected: 1, match_type: "count" }]);
  });

  it("export as VerifiedField Python that imports back to the same template", () => {
    const first = importTemplate(KARENINA_STYLE);
    if (!first.ok) throw new Error(first.error);
    const parsed = AnswerTemplate.parse(first.template);
    const source = exportTemplate(parsed)!;
    expect(source).toContain("VerifiedField(");
    const again = importTemplate(source);
    if (!again.ok) throw new Error(again.error);
    expect(AnswerTemplate.parse(again.template)).toEqual(parsed);
  });

  it("round-trips a native template with every strategy kind and regex-only templates", () => {
    for (const input of [
      {
        fields: [
          { name: "n", type: "int", description: "a count", ground_truth: 3, verify_with: { type: "NumericExact" }, weight: 0.5 },
          {
            name: "s",
            type: "str",
            description: 'quote " and \\ backslash\nnewline',
            ground_truth: null,
            verify_with: { type: "ExactMatch", params: { normalize: [] } },
          },
        ],
        verify_strategy: {
          type: "all_of",
          conditions: [
            { type: "field_check", field_name: "n" },
            { type: "any_of", conditions: [{ type: "field_check", field_name: "s" }] },
          ],
        },
      },
      { fields: [], regex: [{ name: "r", pattern: "(?i)yes", expected: ["yes"], match_type: "all" }] },
    ]) {
      const t = AnswerTemplate.parse({ class_name: "Answer", ...input });
      const back = importTemplate(exportTemplate(t)!);
      if (!back.ok) throw new Error(back.error);
      expect(AnswerTemplate.parse(back.template)).toEqual(t);
    }
  });
});

describe("templates outside what can be imported", () => {
  const checkpoint = (text: string) => ({
    "@type": "DataFeed",
    name: "b",
    dataFeedElement: [
      {
        "@id": "q-ok",
        item: {
          text: "ok?",
          hasPart: {
            text: "class Answer(BaseAnswer):\n    ok: bool = Field(description='ok')\n    def verify(self):\n        return self.ok\n",
          },
        },
      },
      { "@id": "q-bad", item: { text: "bad?", hasPart: { text } } },
    ],
  });

  it("are a per-question error naming the line and construct; the question stays without a template", () => {
    const src =
      "import os\nclass Answer(BaseAnswer):\n    x: str = Field(description='x')\n    def verify(self):\n        while True:\n            pass\n";
    const { benchmark, errors } = importCheckpoint(Checkpoint.parse(checkpoint(src)));
    expect(errors).toEqual([
      {
        path: "dataFeedElement[1].item.hasPart.text",
        question_id: "q-bad",
        message: expect.stringMatching(/line 1: import of os is outside the supported Python subset/),
      },
    ]);
    const b = Benchmark.parse(benchmark);
    expect(b.questions.map((q) => q.id)).toEqual(["q-ok", "q-bad"]);
    expect(b.questions[1]!.template).toBeUndefined();
    expect((b.karenina!.questions as Record<string, { template_source: string }>)["q-bad"]!.template_source).toBe(src);
  });

  it.each([
    ["    c: dict[str, int] = Field(description='c')\n    def verify(self):\n        return True\n", /line 2: field type dict\[str, int\]/],
    [
      "    x: str = Field(description='x')\n    def verify(self):\n        with open('f') as f:\n            return True\n",
      /line 4: with statement/,
    ],
    [
      "    x: str = VerifiedField(description='x', ground_truth=ConditionalGroundTruth(source='a', cases={}), verify_with=ExactMatch())\n",
      /ConditionalGroundTruth without default=GroundTruthCase/,
    ],
    ["    x: str = VerifiedField(description='x', ground_truth='a', verify_with=NoSuchPrimitive())\n", /NoSuchPrimitive/],
    [
      "    x: str = Field(description='x')\n    def model_post_init(self, __context):\n        self.correct = ['x']\n    def verify(self):\n        return True\n",
      /reading self.correct: TypeError: .*'self.correct' as a dictionary, not 'list'/,
    ],
    [
      "    x: str = Field(description='x')\n    def model_post_init(self, __context):\n        self.correct = {'x': 1 / 0}\n    def verify(self):\n        return True\n",
      /reading self.correct: ZeroDivisionError: division by zero \(line 4\)/,
    ],
  ])("refuses %#", (body, message) => {
    const r = importTemplate(`class Answer(BaseAnswer):\n${body}`);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(message);
  });
});

describe("VerifiedField templates with methods", () => {
  // Karenina runs a template's own verify_granular() when it has one (benchmark/verification/stages/pipeline/
  // verify_template.py:194-196); edgeval's declarative grading cannot, so the override is refused rather than dropped.
  it("stay declarative when they only add helpers; a verify_granular override is refused, naming its line (never silently dropped)", () => {
    const r = importTemplate(`class Answer(BaseAnswer):
    ok: bool = VerifiedField(description="ok", ground_truth=True, verify_with=BooleanMatch())

    def helper(self):
        return 1

    def verify_granular(self):
        return 0.5
`);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/line 7: verify_granular\(\) override in a VerifiedField template/);
    const helpersOnly = importTemplate(`class Answer(BaseAnswer):
    ok: bool = VerifiedField(description="ok", ground_truth=True, verify_with=BooleanMatch())

    def helper(self):
        return 1
`);
    if (!helpersOnly.ok) throw new Error(helpersOnly.error);
    expect(helpersOnly.template.custom_verify).toBeUndefined();
    expect(helpersOnly.warnings).toEqual([]);
  });
});
