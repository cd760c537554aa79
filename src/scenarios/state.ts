/**
 * A scenario's runtime state (Karenina `ScenarioState` and `TurnRecord`), as plain JSON: it is
 * stored between turns (each turn is its own job) and every step is a pure function of it.
 *
 * `node_results` is filled after each turn (last write wins on a revisit); `accumulated` is
 * Karenina's opt-in state written by `state_update` callables, which edgeval does not run, so it
 * stays empty. Besides Karenina's fields the state carries what the next turn needs: the path,
 * the tagged conversation (for history and handover transcripts), the edge that was followed
 * (its handover applies to the next turn) and who spoke last with which system prompt.
 */

import { z } from "zod";

/** Karenina's terminal edge target (`END`). */
export const END = "__end__";

const Json = z.record(z.string(), z.unknown());

/** A conversation message with the identity of who produced it (`__user__` for the scenario's prompts). */
export const TaggedMessage = z.object({
  agent_id: z.string(),
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string(),
  tool_calls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.unknown() })).optional(),
  tool_call_id: z.string().optional(),
});
export type TaggedMessage = z.output<typeof TaggedMessage>;
export type Role = TaggedMessage["role"];

export const USER_AGENT = "__user__";

/** One executed turn, compact (Karenina `ScenarioTurnRecord`, the export's history entry). */
export const TurnRecord = z.object({
  node_id: z.string(),
  question_text: z.string(),
  raw_response: z.string(),
  parsed_fields: Json,
  verify_result: z.boolean().nullable(),
  verification_result_id: z.string().nullable(),
});
export type TurnRecord = z.output<typeof TurnRecord>;

export const NodeResult = z.object({ verify_result: z.boolean().nullable(), parsed: Json, rubric: Json });
export type NodeResult = z.output<typeof NodeResult>;

/** The state as it is stored between turns; parsed where it is read back (src/jobs/scenario-turn.ts). */
export const ScenarioState = z.object({
  turn: z.number().int().min(0),
  current_node: z.string(),
  verify_result: z.boolean().nullable(),
  parsed: Json,
  node_visits: z.record(z.string(), z.number().int().min(0)),
  history: z.array(TurnRecord),
  accumulated: Json,
  node_results: z.record(z.string(), NodeResult),
  /** Nodes visited so far, the current one last once its turn starts. */
  path: z.array(z.string()),
  messages: z.array(TaggedMessage),
  /** Index of the edge followed into `current_node`; its handover shapes the next turn. */
  pending_edge: z.number().int().min(0).nullable(),
  previous_agent_id: z.string().nullable(),
  previous_system_prompt: z.string().nullable(),
});
export type ScenarioState = z.output<typeof ScenarioState>;

export function initialState(entryNode: string): ScenarioState {
  return {
    turn: 0,
    current_node: entryNode,
    verify_result: null,
    parsed: {},
    node_visits: {},
    history: [],
    accumulated: {},
    node_results: {},
    path: [],
    messages: [],
    pending_edge: null,
    previous_agent_id: null,
    previous_system_prompt: null,
  };
}

const own = (o: Record<string, unknown>, k: string): unknown => (Object.hasOwn(o, k) ? o[k] : undefined);
const orNull = (v: unknown) => (v === undefined ? null : v);

/**
 * Reads a dot path of the state as Karenina's `_resolve_dot_path`: `verify_result`, `turn`,
 * `current_node`, `parsed.<f>`, `accumulated.<f>`, `node_visits.<node>` (0 when never visited),
 * `node_results.<node>[.verify_result | .parsed.<f> | .rubric.<trait>]`. Missing → null.
 */
export function readStatePath(path: string, state: ScenarioState): unknown {
  const dot = path.indexOf(".");
  const root = dot < 0 ? path : path.slice(0, dot);
  const rest = dot < 0 ? null : path.slice(dot + 1);
  if (root === "verify_result") return state.verify_result;
  if (root === "turn") return state.turn;
  if (root === "current_node") return state.current_node;
  if (rest === null) return null;
  if (root === "parsed") return orNull(own(state.parsed, rest));
  if (root === "accumulated") return orNull(own(state.accumulated, rest));
  if (root === "node_visits") return (own(state.node_visits, rest) as number | undefined) ?? 0;
  if (root === "node_results") return readNodeResult(rest, state);
  return null;
}

function readNodeResult(rest: string, state: ScenarioState): unknown {
  const [node, sub] = splitOnce(rest);
  const data = (own(state.node_results, node) as NodeResult | undefined) ?? {};
  if (sub === null) return data;
  const [key, leaf] = splitOnce(sub);
  const value = own(data as Record<string, unknown>, key);
  if (leaf !== null && value && typeof value === "object" && !Array.isArray(value))
    return orNull(own(value as Record<string, unknown>, leaf));
  return orNull(value);
}

function splitOnce(s: string): [string, string | null] {
  const i = s.indexOf(".");
  return i < 0 ? [s, null] : [s.slice(0, i), s.slice(i + 1)];
}

/** Why an edge condition's `field` can never read anything, or null when it can (graph.ts). */
export function statePathProblem(path: string, nodes: ReadonlySet<string>): string | null {
  const [root, rest] = splitOnce(path);
  const known =
    "verify_result, turn, current_node, parsed.<field>, node_visits.<node>, node_results.<node>[.verify_result|.parsed.<field>|.rubric.<trait>]";
  if (root === "verify_result" || root === "turn" || root === "current_node") return rest === null ? null : `${root} has no sub-fields`;
  if (root === "accumulated")
    return "accumulated is written by state_update callables, which edgeval does not run; read parsed or node_results instead";
  if (root === "parsed") return rest ? null : "parsed needs a field: parsed.<field>";
  if (root === "node_visits" || root === "node_results") {
    if (!rest) return `${root} needs a node: ${root}.<node>`;
    const [node, sub] = splitOnce(rest);
    if (!nodes.has(node)) return `${root}.${node}: no node "${node}" in this scenario`;
    if (root === "node_visits") return sub === null ? null : "node_visits.<node> has no sub-fields";
    if (sub === null || sub === "verify_result") return null;
    const [key, leaf] = splitOnce(sub);
    if ((key === "parsed" || key === "rubric") && leaf) return null;
    return `node_results.${node}.${sub}: read verify_result, parsed.<field> or rubric.<trait>`;
  }
  return `unknown state path "${path}"; known: ${known}`;
}
