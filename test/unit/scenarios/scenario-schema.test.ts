import { describe, expect, it } from "vitest";
import { z } from "zod";
import { WIRE_PARSE, wireIssues } from "../../../src/lib/wire-issues";
import { scenarioNodeSchema, scenarioSchema } from "../../../src/scenarios/scenario-schema";

const Scenario = scenarioSchema(scenarioNodeSchema(z.strictObject({ question: z.string() })));

const q = (text: string) => ({ question: { question: text } });
const base = {
  name: "s",
  entry_node: "a",
  nodes: { a: q("A"), b: q("B") },
  edges: [{ source: "a", target: "b" }],
};

/** The wire's issues as "path: message". */
function issues(input: unknown): string[] {
  const r = Scenario.safeParse(input, WIRE_PARSE);
  if (r.success) return [];
  return r.error.issues.flatMap((i) => wireIssues(i)).map((i) => `${i.path.join(".")}: ${i.message}`);
}

describe("scenario wire schema and graph checks", () => {
  it("accepts a valid graph with defaults filled", () => {
    const s = Scenario.parse(base);
    expect(s).toMatchObject({ description: "", outcome_criteria: [], metadata: {} });
  });

  it("refuses an edge to an unknown node, naming the field and the known nodes", () => {
    expect(issues({ ...base, edges: [{ source: "a", target: "c" }] })).toEqual([
      'edges.0.target: edge target names no node (nor "__end__"); the nodes are "a", "b" (got "c")',
    ]);
    expect(issues({ ...base, edges: [{ source: "x", target: "b" }] })[0]).toMatch(/^edges\.0\.source: edge source names no node/);
  });

  it("refuses an unknown entry node and an unreachable node", () => {
    expect(issues({ ...base, entry_node: "z" })[0]).toMatch(/^entry_node: entry_node names no node; the nodes are "a", "b"/);
    expect(issues({ ...base, edges: [] })).toEqual(['nodes.b: node "b" cannot be reached from entry_node "a" (got "b")']);
  });

  it("refuses a node whose edges are all conditional (no fallback)", () => {
    const cond = { field: "verify_result", expected: true, verify_with: { type: "BooleanMatch" } };
    expect(issues({ ...base, edges: [{ source: "a", target: "b", condition: cond }] })[0]).toMatch(
      /^edges\.0\.condition: node "a" has only conditional edges: add an unconditional edge/,
    );
  });

  it("refuses condition fields the state cannot have, and nodes it does not have", () => {
    const edge = (field: string) => ({
      ...base,
      edges: [
        { source: "a", target: "b", condition: { field, expected: 1, verify_with: { type: "NumericExact" } } },
        { source: "a", target: "b" },
      ],
    });
    expect(issues(edge("node_results.zz.verify_result"))[0]).toMatch(
      /^edges\.0\.condition\.field: node_results\.zz: no node "zz" in this scenario/,
    );
    expect(issues(edge("score"))[0]).toMatch(/^edges\.0\.condition\.field: unknown state path "score"/);
    expect(issues(edge("accumulated.n"))[0]).toMatch(/state_update callables, which edgeval does not run/);
    expect(issues(edge("node_results.a.parsed"))[0]).toMatch(/read verify_result, parsed\.<field> or rubric\.<trait>/);
    expect(issues(edge("node_results.a.parsed.x"))).toEqual([]);
  });

  it("refuses Python sources, transcript_materialize, model overrides and a bad primitive", () => {
    expect(issues({ ...base, edges: [{ source: "a", target: "b", condition_source: "lambda s: True" }] })[0]).toMatch(
      /^edges\.0\.condition_source: condition_source is Python source/,
    );
    expect(issues({ ...base, edges: [{ source: "a", target: "b", handover: "transcript_materialize" }] })[0]).toMatch(
      /^edges\.0\.handover: transcript_materialize writes the transcript to a file/,
    );
    expect(issues({ ...base, nodes: { ...base.nodes, b: { ...q("B"), model_override: { answering_model: {} } } } })[0]).toMatch(
      /^nodes\.b\.model_override: a per-node model_override is not supported yet/,
    );
    const bad = {
      ...base,
      edges: [
        { source: "a", target: "b", condition: { field: "turn", expected: 1, verify_with: { type: "Nope" } } },
        { source: "a", target: "b" },
      ],
    };
    expect(issues(bad)[0]).toMatch(/^edges\.0\.condition\.verify_with\.type: unknown primitive "Nope"/);
  });

  it("reads Karenina's class-name types (checkpoint form) as the literal types", () => {
    const s = Scenario.parse({
      ...base,
      edges: [
        { source: "a", target: "b", condition: { type: "StateCheck", field: "turn", expected: 1, verify_with: { type: "NumericExact" } } },
        { source: "a", target: "b" },
      ],
      outcome_criteria: [
        {
          name: "all",
          description: "d",
          check: {
            type: "AllOf",
            conditions: [
              {
                type: "TurnCheck",
                scope: { type: "AnyTurn", node_id: "b" },
                field: "verify_result",
                expected: true,
                verify_with: { type: "BooleanMatch" },
              },
            ],
          },
        },
      ],
    });
    expect(s.edges[0]!.condition).toMatchObject({ type: "state_check" });
    expect(s.outcome_criteria[0]!.check).toMatchObject({
      type: "all_of",
      conditions: [{ type: "turn_check", scope: { type: "any_turn", node_id: "b" } }],
    });
  });
});
