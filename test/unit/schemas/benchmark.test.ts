import { describe, expect, it } from "vitest";
import { Benchmark, missingTemplateReason, questionsWithoutTemplate } from "../../../src/schemas/benchmark";
import { Rubric } from "../../../src/schemas/rubric";
import { expectIssue, parseOk } from "./issues";

const template = {
  fields: [
    {
      name: "target",
      type: "bool",
      description: "True if BCL2 is named as the target",
      ground_truth: true,
      verify_with: { type: "BooleanMatch" },
    },
  ],
};
const q = (id: string, over: Record<string, unknown> = {}) => ({ id, question: `Question ${id}?`, template, ...over });

describe("Benchmark", () => {
  it("accepts questions with every optional part, null template/rubric reading as absent", () => {
    const b = parseOk(Benchmark, {
      name: "drug targets",
      questions: [
        q("q1", {
          raw_answer: "BCL2",
          keywords: ["oncology"],
          few_shot_examples: [{ question: "Q?", answer: "A" }],
          custom_metadata: { difficulty: "easy" },
        }),
        q("q2", { template: null, rubric: null }),
      ],
    });
    expect(b.questions[1]!.template).toBeUndefined();
  });
  it("stores a question without a template and names it for the pipeline", () => {
    const b = parseOk(Benchmark, { name: "b", questions: [q("q1"), { id: "q2", question: "No template?" }] });
    expect(questionsWithoutTemplate(b)).toEqual(["q2"]);
    expect(missingTemplateReason(b.questions[1]!)).toBe('question "q2" has no answer template; template_only evaluation needs one');
    expect(missingTemplateReason(b.questions[0]!)).toBeNull();
  });
  it("rejects an empty question list", () => {
    expectIssue(Benchmark, { name: "b", questions: [] }, "questions", /at least one question/);
  });
  it("rejects a duplicate question id at the second occurrence, naming the id", () => {
    expectIssue(
      Benchmark,
      { name: "b", questions: [q("q1"), q("q2"), q("q1")] },
      "questions[2].id",
      /duplicate question id "q1" \(first used by questions\[0\]\)/,
    );
  });
  it("reports a duplicate id even when another question is malformed", () => {
    expectIssue(
      Benchmark,
      { name: "b", questions: [q("q1"), q("q1", { template: { fields: [] } })] },
      "questions[1].id",
      /duplicate question id "q1"/,
    );
  });
  it("rejects unknown keys on a question and a few-shot example", () => {
    expectIssue(Benchmark, { name: "b", questions: [q("q1", { author: "me" })] }, "questions[0]", /Unrecognized key: "author"/);
    expectIssue(
      Benchmark,
      { name: "b", questions: [q("q1", { few_shot_examples: [{ question: "Q", answer: "A", score: 1 }] })] },
      "questions[0].few_shot_examples[0]",
      /Unrecognized key: "score"/,
    );
  });
  it("reports template problems under the question", () => {
    expectIssue(
      Benchmark,
      { name: "b", questions: [q("q1", { template: { fields: [] } })] },
      "questions[0].template.fields",
      /at least one field or one regex check/,
    );
  });
  it("rejects wrong types with what is expected", () => {
    expectIssue(
      Benchmark,
      { name: "b", questions: [q("q1", { keywords: "oncology" })] },
      "questions[0].keywords",
      /keywords must be a list of strings/,
    );
    expectIssue(Benchmark, { name: "", questions: [q("q1")] }, "name", /name must not be empty/);
  });
  it("rejects a question trait that clashes with the benchmark rubric (Karenina cannot merge them)", () => {
    const trait = { name: "clarity", description: "Clear?", kind: "boolean" };
    expectIssue(
      Benchmark,
      {
        name: "b",
        rubric: { llm_traits: [trait] },
        questions: [q("q1", { rubric: { regex_traits: [{ name: "clarity", pattern: "x" }] } })],
      },
      "questions[0].rubric.regex_traits[0].name",
      /already defined in the benchmark rubric/,
    );
  });
});

describe("Rubric", () => {
  it("fills every trait list with [] and keeps Karenina trait fields it does not model", () => {
    const r = parseOk(Rubric, {
      llm_traits: [{ name: "clarity", description: "Clear?", kind: "boolean", higher_is_better: true, deep_judgment_max_excerpts: 3 }],
    });
    expect(r.regex_traits).toEqual([]);
    expect(r.llm_traits[0]).toMatchObject({ deep_judgment_max_excerpts: 3 });
  });
  it("accepts each trait kind with Karenina's main fields", () => {
    parseOk(Rubric, {
      llm_traits: [
        { name: "depth", kind: "score", min_score: 1, max_score: 5 },
        { name: "level", kind: "literal", classes: { none: "no mechanism", full: "mechanism" } },
        { name: "facts", kind: { type: "template", schema: { type: "object" } }, higher_is_better: null },
      ],
      regex_traits: [{ name: "cites", pattern: "\\[\\d+\\]", case_sensitive: true, invert_result: false }],
      callable_traits: [{ name: "short", kind: "boolean", callable_code: "gASV" }],
      metric_traits: [
        { name: "coverage", evaluation_mode: "tp_only", metrics: ["precision", "recall"], tp_instructions: ["mentions BCL2"] },
      ],
      agentic_traits: [{ name: "runs", description: "Does the code run?", kind: "boolean", higher_is_better: true }],
    });
  });
  // Karenina's AgenticRubricTrait raises for this pair (schemas/entities/rubric.py:860): there is no trace to materialize.
  it("refuses an agentic trait with materialize_trace and context_mode workspace_only", () => {
    const t = { name: "runs", description: "Does the code run?", kind: "boolean" };
    expectIssue(
      Rubric,
      { agentic_traits: [{ ...t, materialize_trace: true, context_mode: "workspace_only" }] },
      "agentic_traits[0].materialize_trace",
      /context_mode "workspace_only" gives the agent no trace/,
    );
    expect(
      parseOk(Rubric, { agentic_traits: [{ ...t, materialize_trace: true, context_mode: "trace_and_workspace" }] }).agentic_traits[0],
    ).toMatchObject({ materialize_trace: true, persist_trace: false });
  });
  it("rejects duplicate names across trait kinds", () => {
    expectIssue(
      Rubric,
      { llm_traits: [{ name: "x", kind: "boolean" }], regex_traits: [{ name: "x", pattern: "a" }] },
      "regex_traits[0].name",
      /duplicate trait name "x" \(also at llm_traits\[0\]\)/,
    );
  });
  it("rejects dots in trait names, a literal without classes and an unknown list", () => {
    expectIssue(Rubric, { llm_traits: [{ name: "a.b", kind: "boolean" }] }, "llm_traits[0].name", /must not contain '\.'/);
    expectIssue(Rubric, { llm_traits: [{ name: "lvl", kind: "literal" }] }, "llm_traits[0].classes", /needs classes/);
    expectIssue(Rubric, { dynamic_traits: [] }, "", /Unrecognized key: "dynamic_traits"/);
  });
  it("checks regex trait patterns at submit time", () => {
    expectIssue(Rubric, { regex_traits: [{ name: "r", pattern: "a++" }] }, "regex_traits[0].pattern", /possessive/);
  });
});
