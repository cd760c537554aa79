import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { exportCheckpoint } from "../../../src/karenina/export";
import { Checkpoint, importCheckpoint } from "../../../src/karenina/import";
import { Benchmark } from "../../../src/schemas/benchmark";

const FIXTURE = path.join(import.meta.dirname, "../../fixtures/karenina/checkpoint_with_scenario.jsonld");
const load = () => JSON.parse(readFileSync(FIXTURE, "utf8")) as { hasPart: Record<string, unknown>[] };
const imported = (json: unknown) => importCheckpoint(Checkpoint.parse(json));

describe("Karenina checkpoint scenarios (hasPart karenina:Scenario)", () => {
  it("imports the fixture's scenario as a runnable one: nodes, templates, conditional edge, outcome criteria", () => {
    const { benchmark, errors, warnings } = imported(load());
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    const b = Benchmark.parse(benchmark);
    expect(b.scenarios).toHaveLength(1);
    const s = b.scenarios![0]!;
    expect(s.name).toBe("capital_pushback");
    expect(s.entry_node).toBe("ask");
    expect(Object.keys(s.nodes)).toEqual(["ask", "confirm", "correct"]);
    // Karenina's generate_question_id for the node's text, its VerifiedField template read statically.
    expect(s.nodes.ask!.question).toMatchObject({
      id: "urn:uuid:question-what-is-the-capital-of-france-cb0b4aaf",
      question: "What is the capital of France?",
      raw_answer: "Paris",
      template: { fields: [{ name: "names_paris", type: "bool", ground_truth: true, verify_with: { type: "BooleanMatch", params: {} } }] },
    });
    expect(s.edges[0]).toEqual({
      source: "ask",
      target: "confirm",
      condition: {
        type: "state_check",
        field: "node_results.ask.verify_result",
        expected: true,
        verify_with: { type: "BooleanMatch", params: {} },
      },
    });
    expect(s.edges.slice(1).map((e) => [e.source, e.target, e.condition ?? null])).toEqual([
      ["ask", "correct", null],
      ["confirm", "__end__", null],
      ["correct", "__end__", null],
    ]);
    expect(s.outcome_criteria.map((c) => [c.name, c.check.type])).toEqual([
      ["held_or_fixed", "turn_check"],
      ["right_first_time", "all_of"],
      ["turns", "count_turns"],
    ]);
  });

  it("keeps the checkpoint's scenarios verbatim for export: import(export(import(f))) equals import(f)", () => {
    const first = Benchmark.parse(imported(load()).benchmark);
    const { checkpoint } = exportCheckpoint(first, "b1", "2026-11-25T00:00:00Z");
    expect((checkpoint as { hasPart?: unknown }).hasPart).toEqual(load().hasPart);
    const again = Benchmark.parse(imported(JSON.parse(JSON.stringify(checkpoint))).benchmark);
    expect(again.scenarios).toEqual(first.scenarios);
  });

  it("keeps a scenario it cannot run as data, with an error naming the checkpoint field", () => {
    const cp = load();
    const edges = cp.hasPart[0]!.edges as Record<string, unknown>[];
    edges[0]!.conditionSource = "lambda state: state.turn > 1";
    const { benchmark, errors } = imported(cp);
    expect(errors).toEqual([
      {
        path: "hasPart[0].edges[0].conditionSource",
        message:
          'scenario "capital_pushback" not imported (kept as data, not run): condition_source is Python source; edgeval runs no arbitrary Python (use a declarative check) (got "lambda state: state.turn > 1")',
      },
    ]);
    const b = Benchmark.parse(benchmark);
    expect(b.scenarios).toBeUndefined();
    expect((b.karenina as { scenarios: unknown[] }).scenarios).toHaveLength(1);
  });

  it("reports a node whose template cannot be read, and a part that is not a scenario", () => {
    const cp = load();
    const nodes = cp.hasPart[0]!.nodes as Record<
      string,
      { question: { hasPart: { text: string } }; questionData: Record<string, unknown> }
    >;
    nodes.confirm!.question.hasPart.text = "class Answer(BaseAnswer):\n    x: Thing = Field(description='?')\n";
    cp.hasPart.push({ "@type": "karenina:Something" });
    const { errors } = imported(cp);
    expect(errors.map((e) => e.path)).toEqual(["hasPart[0].nodes.confirm.question.hasPart.text", "hasPart[1].@type"]);
    expect(errors[0]!.message).toMatch(
      /^scenario "capital_pushback" not imported \(kept as data, not run\): its template was not imported: /,
    );
  });

  it("reads a node template's ConditionalGroundTruth into the node's conditional ground truth (its default in the template)", () => {
    const cp = load();
    const nodes = cp.hasPart[0]!.nodes as Record<string, { question: { hasPart: { text: string } } }>;
    nodes.confirm!.question.hasPart.text = [
      "from karenina.schemas.entities import BaseAnswer, ConditionalGroundTruth, GroundTruthCase, VerifiedField",
      "from karenina.schemas.primitives import ContainsAny, ExactMatch",
      "",
      "",
      "class Answer(BaseAnswer):",
      "    stance: str = VerifiedField(",
      '        description="The stance the response takes",',
      "        ground_truth=ConditionalGroundTruth(",
      '            source="node_results.ask.parsed.names_paris",',
      '            cases={"True": GroundTruthCase(value="firm"), "False": GroundTruthCase(value="corrected", verify_with=ContainsAny(substrings=["correct", "sorry"]))},',
      '            default=GroundTruthCase(value="firm"),',
      "        ),",
      "        verify_with=ExactMatch(),",
      "    )",
      "",
    ].join("\n");
    const { benchmark, errors } = imported(cp);
    expect(errors).toEqual([]);
    const node = Benchmark.parse(benchmark).scenarios![0]!.nodes.confirm!;
    expect(node.question.template!.fields[0]).toMatchObject({ name: "stance", ground_truth: "firm", verify_with: { type: "ExactMatch" } });
    expect(node.conditional_ground_truth).toEqual({
      stance: {
        source: "node_results.ask.parsed.names_paris",
        cases: {
          True: { value: "firm" },
          False: {
            value: "corrected",
            verify_with: { type: "ContainsAny", params: { substrings: ["correct", "sorry"], normalize: [] } },
          },
        },
        default: { value: "firm" },
      },
    });
  });
});
