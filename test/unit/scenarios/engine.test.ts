import { describe, expect, it } from "vitest";
import { z } from "zod";
import { beginTurn, endTurn, scenarioResult, type TurnOutcome } from "../../../src/scenarios/engine";
import { scenarioNodeSchema, scenarioSchema } from "../../../src/scenarios/scenario-schema";
import { initialState, type ScenarioState } from "../../../src/scenarios/state";

const Scenario = scenarioSchema(scenarioNodeSchema(z.strictObject({ question: z.string() })));
type Scenario = z.output<typeof Scenario>;

/** ask → good when ask passed, else → bad; both end. */
const branching: Scenario = Scenario.parse({
  name: "triage",
  entry_node: "ask",
  nodes: { ask: { question: { question: "Q-ask" } }, good: { question: { question: "Q-good" } }, bad: { question: { question: "Q-bad" } } },
  edges: [
    {
      source: "ask",
      target: "good",
      condition: { field: "node_results.ask.verify_result", expected: true, verify_with: { type: "BooleanMatch" } },
    },
    { source: "ask", target: "bad" },
    { source: "good", target: "__end__" },
    { source: "bad", target: "__end__" },
  ],
  outcome_criteria: [
    {
      name: "ended_good",
      description: "",
      check: { type: "TurnCheck", scope: { type: "LastTurn" }, field: "node_id", expected: "good", verify_with: { type: "ExactMatch" } },
    },
    { name: "turns", check: { type: "count_turns" } },
    { name: "first_fail", check: { type: "first_match_index", verify_result: false } },
  ],
});

const answer = (text: string, verify: boolean | null, failure: TurnOutcome["failure"] = null): TurnOutcome => ({
  produced: [{ role: "assistant", content: text }],
  raw_response: text,
  parsed: { said: text },
  verify_result: verify,
  rubric: {},
  result_id: `r-${text}`,
  failure,
});

const speaker = { answering_id: "gpt", system_prompt: "Be brief." };

/** Runs a scenario to its end with one scripted outcome per turn; returns plans and the end. */
function run(s: Scenario, outcomes: TurnOutcome[], limit = 20) {
  let state: ScenarioState = initialState(s.entry_node);
  const plans = [];
  for (const outcome of outcomes) {
    const begun = beginTurn(s, state, speaker);
    plans.push(begun.plan);
    const end = endTurn(s, begun.state, begun.plan, outcome, limit);
    if (end.kind === "end") return { plans, end, record: scenarioResult(s, end, 1) };
    state = end.state;
  }
  throw new Error("the scenario did not end with the outcomes given");
}

describe("scenario engine", () => {
  it("takes the conditional branch when ask passes: path ask → good, completed", () => {
    const { plans, record } = run(branching, [answer("yes", true), answer("fine", true)]);
    expect(plans.map((p) => [p.node_id, p.turn, p.path])).toEqual([
      ["ask", 0, ["ask"]],
      ["good", 1, ["ask", "good"]],
    ]);
    expect(record).toMatchObject({
      scenario_id: "triage",
      status: "completed",
      path: ["ask", "good"],
      turn_count: 2,
      terminal_failure: null,
      replicate: 1,
    });
    expect(record.outcome_results).toEqual({ ended_good: true, turns: 2, first_fail: -1 });
    expect(record.history.map((h) => [h.node_id, h.question_text, h.verify_result, h.verification_result_id])).toEqual([
      ["ask", "Q-ask", true, "r-yes"],
      ["good", "Q-good", true, "r-fine"],
    ]);
  });

  it("takes the fallback when ask fails on content: path ask → bad", () => {
    const content = { category: "content", stage: "verify_template", reason: "wrong" };
    const { record } = run(branching, [answer("no", false, content), answer("meh", true)]);
    expect(record).toMatchObject({ status: "completed", path: ["ask", "bad"], turn_count: 2 });
    expect(record.outcome_results).toEqual({ ended_good: false, turns: 2, first_fail: 0 });
  });

  it("ends with error at a failure other than content, naming the node", () => {
    const { record } = run(branching, [answer("", null, { category: "parsing", stage: "parse_template", reason: "judge reply not JSON" })]);
    expect(record).toMatchObject({ status: "error", path: ["ask"], turn_count: 1 });
    expect(record.terminal_failure).toEqual({
      node_id: "ask",
      category: "parsing",
      stage: "parse_template",
      reason: "judge reply not JSON",
    });
  });

  it("stops at the turn limit with limit_reached, even on a node that would end", () => {
    const loop = Scenario.parse({
      name: "loop",
      entry_node: "a",
      nodes: { a: { question: { question: "again?" } } },
      edges: [{ source: "a", target: "a" }],
    });
    const { plans, record } = run(loop, [answer("1", true), answer("2", true), answer("3", true), answer("4", true)], 3);
    expect(plans.map((p) => p.turn)).toEqual([0, 1, 2]);
    expect(record).toMatchObject({ status: "limit_reached", path: ["a", "a", "a"], turn_count: 3 });
    // Karenina checks the limit before the edges: a last turn with nowhere to go is still limit_reached.
    expect(run(branching, [answer("yes", true), answer("fine", true)], 2).record.status).toBe("limit_reached");
  });

  it("sends the conversation so far as history, the system prompt once for one speaker", () => {
    const { plans } = run(branching, [answer("yes", true), answer("fine", true)]);
    expect(plans[0]!.history).toEqual([]);
    expect(plans[1]!.history).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Q-ask" },
      { role: "assistant", content: "yes" },
    ]);
    expect(plans[1]!.question_text).toBe("Q-good");
    expect(plans[1]!.agent_id).toBe("gpt");
  });

  it("hands over as a transcript in the question, with an empty history", () => {
    const withHandover = (handover: string) =>
      Scenario.parse({
        name: "h",
        entry_node: "a",
        nodes: { a: { question: { question: "Q1" }, agent_identity: "alice" }, b: { question: { question: "Q2" }, agent_identity: "bob" } },
        edges: [{ source: "a", target: "b", handover }],
      });
    const transcript = "[alice:system:text] Be brief.\n[__user__] Q1\n[alice:assistant:text] A1";
    const prepend = run(withHandover("transcript_prepend"), [answer("A1", true), answer("A2", true)]).plans[1]!;
    expect(prepend.question_text).toBe(`${transcript}\n\n---\n\nQ2`);
    expect(prepend.history).toEqual([]);
    expect(prepend.agent_id).toBe("bob");
    const append = run(withHandover("transcript_append"), [answer("A1", true), answer("A2", true)]).plans[1]!;
    expect(append.question_text).toBe(`Q2\n\n---\n\n${transcript}`);
  });

  it("routes on a parsed field and counts visits (node_visits, parsed)", () => {
    const s = Scenario.parse({
      name: "retry",
      entry_node: "ask",
      nodes: { ask: { question: { question: "Q" } }, done: { question: { question: "D" } } },
      edges: [
        { source: "ask", target: "done", condition: [{ field: "parsed.said", expected: "ok", verify_with: { type: "ExactMatch" } }] },
        { source: "ask", target: "done", condition: { field: "node_visits.ask", expected: 2, verify_with: { type: "NumericMinimum" } } },
        { source: "ask", target: "ask" },
      ],
    });
    expect(run(s, [answer("no", false), answer("OK ", true), answer("x", true)]).record.path).toEqual(["ask", "ask", "done"]);
    expect(run(s, [answer("no", false), answer("no", false), answer("x", true)]).record.path).toEqual(["ask", "ask", "done"]);
  });
});
