/**
 * The scenario step functions (Karenina `ScenarioManager.run`, one loop iteration split in two so
 * that each turn can be its own job): `beginTurn` before the turn's pipeline runs, `endTurn`
 * after, both pure over the JSON state (state.ts). The caller stores the state between turns.
 *
 * beginTurn: the current node joins the path; its speaker is the node's `agent_identity`, else the
 *   entry node's, else the answering model's id; the question is the node's, rewritten by the
 *   handover of the edge followed into it (then the chat history is empty), else the whole tagged
 *   conversation is the history; when the speaker or its system prompt changed, the system prompt
 *   joins the conversation (so later turns see who spoke under which prompt); the question joins
 *   it as `__user__`.
 * endTurn: the turn's answer joins the conversation; the turn is recorded (history, node_results,
 *   visits, verify_result, parsed); then, in Karenina's order: a failure other than `content`
 *   ends the scenario with `error`; reaching `scenario_turn_limit` ends it with `limit_reached`
 *   (even if the node had no way on); else the next edge (edges.ts), none or `__end__` ending it
 *   `completed`. A content failure is ordinary state: edges may route on `verify_result=false`.
 */
import { resolveNextEdge } from "./edges";
import { applyHandover } from "./handover";
import { evaluateOutcomes, type ScenarioExecution, type ScenarioStatus } from "./outcome";
import type { ScenarioGraph } from "./scenario-schema";
import { END, type ScenarioState, type TaggedMessage, type TurnRecord, USER_AGENT } from "./state";

export interface TurnPlan {
  node_id: string;
  /** scenario_turn: 0 for the first turn. */
  turn: number;
  /** scenario_path: the nodes visited, this one last. */
  path: string[];
  /** The question as sent (after a handover). */
  question_text: string;
  /** Chat history before the question, oldest first. */
  history: Omit<TaggedMessage, "agent_id">[];
  agent_id: string;
}

export interface Speaker {
  /** The answering model's id: the speaker when no node names one. */
  answering_id: string;
  system_prompt: string | null;
}

export function beginTurn(s: ScenarioGraph, state: ScenarioState, speaker: Speaker): { plan: TurnPlan; state: ScenarioState } {
  const node = s.nodes[state.current_node]!;
  const agent_id = node.agent_identity ?? s.nodes[s.entry_node]!.agent_identity ?? speaker.answering_id;
  const path = [...state.path, state.current_node];
  const handover = state.pending_edge === null ? null : s.edges[state.pending_edge]?.handover;
  const asked = handover
    ? applyHandover(handover, state.messages, node.question.question)
    : { question_text: node.question.question, history: state.messages };
  const messages = [...state.messages];
  // Karenina adds the system prompt when the speaker or its prompt changes (always on the first turn).
  const changed = state.previous_agent_id !== agent_id || speaker.system_prompt !== state.previous_system_prompt;
  if (changed && speaker.system_prompt) messages.push({ agent_id, role: "system", content: speaker.system_prompt });
  messages.push({ agent_id: USER_AGENT, role: "user", content: asked.question_text });
  const plan: TurnPlan = {
    node_id: state.current_node,
    turn: state.turn,
    path,
    question_text: asked.question_text,
    history: asked.history.map(({ agent_id: _, ...m }) => m),
    agent_id,
  };
  // Karenina compares the next speaker with this one: kept now, so endTurn need not know the prompt.
  return { plan, state: { ...state, path, messages, previous_agent_id: agent_id, previous_system_prompt: speaker.system_prompt } };
}

/** What the turn's pipeline produced, as the scenario reads it. */
export interface TurnOutcome {
  /** Messages the answering model produced this turn (its answer, or an agent's trace after the question). */
  produced: Omit<TaggedMessage, "agent_id">[];
  raw_response: string;
  parsed: Record<string, unknown>;
  verify_result: boolean | null;
  rubric: Record<string, unknown>;
  result_id: string | null;
  /** The turn's failure category, if any (Karenina's taxonomy). */
  failure: { category: string; stage: string; reason: string } | null;
}

export interface TerminalFailure {
  node_id: string;
  category: string;
  stage: string;
  reason: string;
}

export type TurnEnd =
  | { kind: "next"; state: ScenarioState; next_node: string }
  | { kind: "end"; state: ScenarioState; status: Exclude<ScenarioStatus, "timeout">; terminal_failure: TerminalFailure | null };

export function endTurn(s: ScenarioGraph, begun: ScenarioState, plan: TurnPlan, outcome: TurnOutcome, turnLimit: number): TurnEnd {
  const node = s.nodes[plan.node_id]!;
  const record: TurnRecord = {
    node_id: plan.node_id,
    question_text: node.question.question,
    raw_response: outcome.raw_response,
    parsed_fields: outcome.parsed,
    verify_result: outcome.verify_result,
    verification_result_id: outcome.result_id,
  };
  const state: ScenarioState = {
    ...begun,
    messages: [...begun.messages, ...outcome.produced.map((m) => ({ ...m, agent_id: plan.agent_id }))],
    node_results: {
      ...begun.node_results,
      [plan.node_id]: { verify_result: outcome.verify_result, parsed: outcome.parsed, rubric: outcome.rubric },
    },
    turn: begun.turn + 1,
    node_visits: { ...begun.node_visits, [plan.node_id]: (begun.node_visits[plan.node_id] ?? 0) + 1 },
    history: [...begun.history, record],
    verify_result: outcome.verify_result,
    parsed: outcome.parsed,
  };
  if (outcome.failure && outcome.failure.category !== "content") {
    return { kind: "end", state, status: "error", terminal_failure: { node_id: plan.node_id, ...outcome.failure } };
  }
  if (state.turn >= turnLimit) return { kind: "end", state, status: "limit_reached", terminal_failure: null };
  const next = resolveNextEdge(s.edges, state);
  if (!next || next.target === END) return { kind: "end", state, status: "completed", terminal_failure: null };
  return {
    kind: "next",
    next_node: next.target,
    state: { ...state, current_node: next.target, pending_edge: next.index },
  };
}

/** Karenina's `ScenarioResultRecord`: the export's `scenario_results` entry for one ended scenario. */
export interface ScenarioResultRecord {
  scenario_id: string;
  status: ScenarioStatus;
  path: string[];
  turn_count: number;
  history: TurnRecord[];
  outcome_results: Record<string, boolean | number>;
  terminal_failure: TerminalFailure | null;
  replicate: number | null;
}

/** The ended scenario's record, its outcome criteria evaluated. */
export function scenarioResult(s: ScenarioGraph, end: Extract<TurnEnd, { kind: "end" }>, replicate: number | null): ScenarioResultRecord {
  const run: ScenarioExecution = {
    scenario_id: s.name,
    status: end.status,
    path: end.state.path,
    turn_count: end.state.turn,
    history: end.state.history,
  };
  return { ...run, outcome_results: evaluateOutcomes(s.outcome_criteria, run), terminal_failure: end.terminal_failure, replicate };
}
