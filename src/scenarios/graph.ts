/**
 * Graph checks of a scenario (Karenina `validate_scenario_graph`), run when it is submitted so a
 * scenario that could never run as written is a 400 naming the field, not a run that stalls:
 * - `entry_node`, every edge's `source` and `target` name a node (a target may be `__end__`);
 * - every node is reachable from the entry node;
 * - a node with conditional edges also has an unconditional one (the fallback);
 * - an edge condition's `field` is a state path the engine can read (state.ts), and a node it
 *   names (`node_results.<node>…`, `node_visits.<node>`) exists: an unknown one would silently
 *   read null forever.
 * - a conditional ground truth's `source` names a node of the scenario.
 * Several unconditional edges from one node are allowed, as in Karenina (the first one is taken).
 */
import type { ScenarioEdge } from "./scenario-schema";
import { END, statePathProblem } from "./state";

export interface GraphIssue {
  path: PropertyKey[];
  message: string;
  input: unknown;
}

interface Graph {
  entry_node: string;
  nodes: Record<string, unknown>;
  edges: readonly ScenarioEdge[];
}

export function graphIssues(s: Graph): GraphIssue[] {
  const ids = Object.keys(s.nodes);
  const known = new Set(ids);
  const list = ids.map((id) => JSON.stringify(id)).join(", ");
  const issues: GraphIssue[] = [];
  if (!known.has(s.entry_node))
    issues.push({ path: ["entry_node"], message: `entry_node names no node; the nodes are ${list}`, input: s.entry_node });
  s.edges.forEach((e, i) => {
    if (!known.has(e.source))
      issues.push({ path: ["edges", i, "source"], message: `edge source names no node; the nodes are ${list}`, input: e.source });
    if (e.target !== END && !known.has(e.target)) {
      issues.push({
        path: ["edges", i, "target"],
        message: `edge target names no node (nor "${END}"); the nodes are ${list}`,
        input: e.target,
      });
    }
    conditionsOf(e).forEach((c, j) => {
      const problem = statePathProblem(c.field, known);
      if (problem)
        issues.push({
          path: ["edges", i, "condition", ...(Array.isArray(e.condition) ? [j] : []), "field"],
          message: problem,
          input: c.field,
        });
    });
  });
  for (const [id, node] of Object.entries(s.nodes)) {
    const conditional = (node as { conditional_ground_truth?: Record<string, { source: string }> | null }).conditional_ground_truth ?? {};
    for (const [field, c] of Object.entries(conditional)) {
      const problem = c.source.startsWith("node_results.") ? statePathProblem(c.source, known) : null;
      if (problem) issues.push({ path: ["nodes", id, "conditional_ground_truth", field, "source"], message: problem, input: c.source });
    }
  }
  if (issues.length > 0) return issues;
  for (const id of unreachable(s))
    issues.push({ path: ["nodes", id], message: `node "${id}" cannot be reached from entry_node "${s.entry_node}"`, input: id });
  for (const [source, edges] of bySource(s.edges)) {
    const conditional = edges.filter((e) => e.edge.condition != null);
    if (conditional.length > 0 && conditional.length === edges.length) {
      issues.push({
        path: ["edges", conditional[0]!.index, "condition"],
        message: `node "${source}" has only conditional edges: add an unconditional edge from it (the path when no condition holds)`,
        input: conditional[0]!.edge.condition,
      });
    }
  }
  return issues;
}

export function conditionsOf(e: ScenarioEdge) {
  if (e.condition == null) return [];
  return Array.isArray(e.condition) ? e.condition : [e.condition];
}

function unreachable(s: Graph): string[] {
  const seen = new Set<string>([s.entry_node]);
  const queue = [s.entry_node];
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const e of s.edges) {
      if (e.source === at && e.target !== END && !seen.has(e.target)) {
        seen.add(e.target);
        queue.push(e.target);
      }
    }
  }
  return Object.keys(s.nodes).filter((id) => !seen.has(id));
}

function bySource(edges: readonly ScenarioEdge[]): Map<string, { edge: ScenarioEdge; index: number }[]> {
  const out = new Map<string, { edge: ScenarioEdge; index: number }[]>();
  edges.forEach((edge, index) => {
    const list = out.get(edge.source) ?? [];
    list.push({ edge, index });
    out.set(edge.source, list);
  });
  return out;
}
