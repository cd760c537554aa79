/**
 * Which edge a finished turn follows (Karenina `resolve_next_node`): the current node's
 * conditional edges in definition order, the first whose condition holds; else its first
 * unconditional edge; else none (an implicit end). A condition that is a list holds when every
 * check holds.
 *
 * A check is `verify_with.check(state[field], expected)` with the template primitives. A
 * primitive that cannot compare the value (it throws, as Python would raise) makes the check
 * false: Karenina lets that exception end the scenario, edgeval reads it as "does not hold".
 */
import { primitiveFor } from "../templates/primitives/registry";
import { conditionsOf } from "./graph";
import type { ScenarioEdge, StateCheck } from "./scenario-schema";
import { readStatePath, type ScenarioState } from "./state";

export interface FollowedEdge {
  target: string;
  /** Index in the scenario's `edges`. */
  index: number;
}

export function resolveNextEdge(edges: readonly ScenarioEdge[], state: ScenarioState): FollowedEdge | null {
  let fallback: FollowedEdge | null = null;
  for (const [index, edge] of edges.entries()) {
    if (edge.source !== state.current_node) continue;
    if (edge.condition == null) {
      fallback ??= { target: edge.target, index };
      continue;
    }
    if (conditionsOf(edge).every((c) => stateCheckHolds(c, state))) return { target: edge.target, index };
  }
  return fallback;
}

export function stateCheckHolds(check: StateCheck, state: ScenarioState): boolean {
  return primitiveHolds(check.verify_with, readStatePath(check.field, state), check.expected);
}

/** A primitive's check, false when it cannot compare the values. */
export function primitiveHolds(verifyWith: StateCheck["verify_with"], value: unknown, expected: unknown): boolean {
  try {
    return primitiveFor(verifyWith).check(value, expected, verifyWith.params) === true;
  } catch {
    return false;
  }
}
