import { describe, expect, it } from "vitest";
import { evaluateOutcome, evaluateOutcomes, type ScenarioExecution } from "../../../src/scenarios/outcome";
import { OutcomeNode } from "../../../src/scenarios/scenario-schema";

const turn = (node_id: string, verify_result: boolean | null, parsed: Record<string, unknown> = {}, raw = "") => ({
  node_id,
  question_text: `Q-${node_id}`,
  raw_response: raw,
  parsed_fields: parsed,
  verify_result,
  verification_result_id: null,
});

/** ask (fail) → ask (pass) → push (pass), completed. */
const run: ScenarioExecution = {
  scenario_id: "s",
  status: "completed",
  path: ["ask", "ask", "push"],
  turn_count: 3,
  history: [turn("ask", false, { n: 3 }, "three"), turn("ask", true, { n: 5 }, "five"), turn("push", true, { n: 5 }, "I stand by five")],
};

const check = (node: unknown) => evaluateOutcome(OutcomeNode.parse(node), run);
const bool = { type: "BooleanMatch" };

describe("outcome criteria", () => {
  it("turn checks select turns by scope, with no vacuous truth", () => {
    expect(check({ type: "turn_check", scope: { type: "first_turn" }, field: "verify_result", expected: false, verify_with: bool })).toBe(
      true,
    );
    expect(
      check({
        type: "turn_check",
        scope: { type: "turn_at", index: -2 },
        field: "parsed.n",
        expected: 5,
        verify_with: { type: "NumericExact" },
      }),
    ).toBe(true);
    expect(
      check({ type: "turn_check", scope: { type: "any_turn", node_id: "ask" }, field: "verify_result", expected: true, verify_with: bool }),
    ).toBe(true);
    expect(
      check({
        type: "turn_check",
        scope: { type: "all_turns", node_id: "ask" },
        field: "verify_result",
        expected: true,
        verify_with: bool,
      }),
    ).toBe(false);
    expect(
      check({
        type: "turn_check",
        scope: { type: "all_turns", node_id: "nowhere" },
        field: "verify_result",
        expected: true,
        verify_with: bool,
      }),
    ).toBe(false);
    expect(
      check({ type: "turn_check", scope: { type: "turn_at", index: 9 }, field: "verify_result", expected: null, verify_with: bool }),
    ).toBe(false);
  });

  it("result checks read status, turn_count and path", () => {
    expect(check({ type: "result_check", field: "status", expected: "completed", verify_with: { type: "ExactMatch" } })).toBe(true);
    expect(check({ type: "result_check", field: "turn_count", expected: 3, verify_with: { type: "NumericMaximum" } })).toBe(true);
    expect(
      check({ type: "result_check", field: "path", expected: ["ask", "push"], verify_with: { type: "SetContainment", mode: "exact" } }),
    ).toBe(true);
  });

  it("cross-turn checks compare target with source, after normalizers", () => {
    const cross = (comparison: string, target_field = "parsed.n", normalize: unknown[] = []) =>
      check({
        type: "cross_turn_check",
        source_turn: { type: "first_turn" },
        source_field: "parsed.n",
        target_turn: { type: "last_turn" },
        target_field,
        comparison,
        normalize,
      });
    expect(cross("gt")).toBe(true);
    expect(cross("lte")).toBe(false);
    expect(cross("neq")).toBe(true);
    expect(cross("contains", "raw_response")).toBe(false);
    // After a normalizer both sides are str(): "5" vs "3".
    expect(cross("eq", "parsed.n", ["strip"])).toBe(false);
    // A comparison Python refuses (str > int) is false, not an exception.
    expect(cross("gt", "raw_response")).toBe(false);
  });

  it("composes, counts and finds", () => {
    const pass = { type: "turn_check", scope: { type: "last_turn" }, field: "verify_result", expected: true, verify_with: bool };
    const fail = { ...pass, expected: false };
    expect(check({ type: "all_of", conditions: [] })).toBe(true);
    expect(check({ type: "any_of", conditions: [] })).toBe(false);
    expect(check({ type: "at_least_n", n: 1, conditions: [fail, pass] })).toBe(true);
    expect(check({ type: "at_least_n", n: 2, conditions: [fail, pass] })).toBe(false);
    expect(check({ type: "count_turns", node_id: "ask" })).toBe(2);
    expect(check({ type: "count_turns", verify_result: true })).toBe(2);
    expect(check({ type: "first_match_index", node_id: ["push"] })).toBe(2);
    expect(check({ type: "first_match_index", node_id: "nowhere" })).toBe(-1);
  });

  it("a criterion that throws is false", () => {
    // SemanticMatch is decided by the embedding check: its check throws.
    const results = evaluateOutcomes(
      [
        {
          name: "sem",
          description: "",
          check: OutcomeNode.parse({ type: "result_check", field: "status", expected: "x", verify_with: { type: "SemanticMatch" } }),
        },
      ],
      run,
    );
    expect(results).toEqual({ sem: false });
  });
});
