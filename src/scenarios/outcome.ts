/**
 * Outcome criteria (Karenina `scenario/outcome_evaluation.py`), evaluated once a scenario has
 * ended, over its execution (status, path, turn count, history):
 * - TurnCheck: a field of the selected turn(s) — `node_id`, `verify_result`, `raw_response`,
 *   `question_text`, `parsed.<f>` — through a primitive. LastTurn / FirstTurn / TurnAt(index,
 *   negative from the end) select one turn; AnyTurn / AllTurns quantify over the turns at
 *   `node_id` (all turns without it) and are false when no turn matches (no vacuous truth).
 * - ResultCheck: `status`, `turn_count`, `path` or `scenario_id` through a primitive.
 * - CrossTurnCheck: target <comparison> source between two single turns, after normalizers.
 * - AllOf / AnyOf / AtLeastN compose checks (AllOf([]) true, AnyOf([]) false).
 * - CountTurns (an integer) and FirstMatchIndex (an index, -1 when none) aggregate.
 * A criterion whose evaluation throws is false, as in Karenina.
 */
import { evaluateComposition } from "../templates/composition";
import { applyNormalizers } from "../templates/normalizers";
import { pyEquals, pyStr } from "../templates/python";
import { primitiveHolds } from "./edges";
import type { OutcomeCheck, OutcomeCriterion, OutcomeNode, TurnScope } from "./scenario-schema";
import type { TurnRecord } from "./state";

export type ScenarioStatus = "completed" | "limit_reached" | "error" | "timeout";

export interface ScenarioExecution {
  scenario_id: string;
  status: ScenarioStatus;
  path: string[];
  turn_count: number;
  history: TurnRecord[];
}

export function evaluateOutcomes(criteria: readonly OutcomeCriterion[], run: ScenarioExecution): Record<string, boolean | number> {
  const out: Record<string, boolean | number> = {};
  for (const c of criteria) {
    try {
      out[c.name] = evaluateOutcome(c.check, run);
    } catch {
      out[c.name] = false;
    }
  }
  return out;
}

export function evaluateOutcome(node: OutcomeNode, run: ScenarioExecution): boolean | number {
  if (node.type === "count_turns") return run.history.filter((t) => turnMatches(t, node.node_id, node.verify_result)).length;
  if (node.type === "first_match_index") return run.history.findIndex((t) => turnMatches(t, node.node_id, node.verify_result));
  return checkHolds(node, run);
}

function checkHolds(node: OutcomeCheck, run: ScenarioExecution): boolean {
  return evaluateComposition(node, (leaf) => leafHolds(leaf, run));
}

function leafHolds(node: OutcomeCheck, run: ScenarioExecution): boolean {
  switch (node.type) {
    case "result_check":
      return primitiveHolds(node.verify_with, run[node.field], node.expected);
    case "turn_check": {
      const check = (t: TurnRecord) => primitiveHolds(node.verify_with, turnField(node.field, t), node.expected);
      const scope = node.scope;
      if (scope.type === "any_turn" || scope.type === "all_turns") {
        const turns = run.history.filter((t) => turnMatches(t, scope.node_id, null));
        if (turns.length === 0) return false;
        return scope.type === "any_turn" ? turns.some(check) : turns.every(check);
      }
      const turn = singleTurn(node.scope, run.history);
      return turn ? check(turn) : false;
    }
    case "cross_turn_check": {
      const source = singleTurn(node.source_turn, run.history);
      const target = singleTurn(node.target_turn, run.history);
      if (!source || !target) return false;
      let s = turnField(node.source_field, source);
      let t = turnField(node.target_field, target);
      if (node.normalize.length > 0) {
        s = applyNormalizers(node.normalize, pyStr(s));
        t = applyNormalizers(node.normalize, pyStr(t));
      }
      return compare(node.comparison, t, s);
    }
    default:
      // AllOf / AnyOf / AtLeastN are evaluateComposition's; they never reach a leaf.
      return false;
  }
}

/** One turn for LastTurn / FirstTurn / TurnAt; quantifiers select none (Karenina logs and fails). */
function singleTurn(scope: TurnScope, history: readonly TurnRecord[]): TurnRecord | null {
  if (history.length === 0) return null;
  if (scope.type === "last_turn") return history[history.length - 1]!;
  if (scope.type === "first_turn") return history[0]!;
  if (scope.type === "turn_at") return history[scope.index < 0 ? history.length + scope.index : scope.index] ?? null;
  return null;
}

/** A TurnRecord field: `parsed.<f>` reads the parsed fields, other names the record's own (null when absent). */
function turnField(field: string, turn: TurnRecord): unknown {
  if (field.startsWith("parsed.")) {
    const key = field.slice("parsed.".length);
    return Object.hasOwn(turn.parsed_fields, key) ? turn.parsed_fields[key] : null;
  }
  const root = field.split(".")[0]!;
  return Object.hasOwn(turn, root) ? (turn as unknown as Record<string, unknown>)[root] : null;
}

function turnMatches(turn: TurnRecord, nodeId: string | string[] | null | undefined, verifyResult: boolean | null | undefined): boolean {
  if (nodeId != null && (typeof nodeId === "string" ? turn.node_id !== nodeId : !nodeId.includes(turn.node_id))) return false;
  return verifyResult == null || turn.verify_result === verifyResult;
}

/** Python's comparison of two JSON values: ordering only between numbers or between strings (else TypeError: false). */
function compare(op: string, t: unknown, s: unknown): boolean {
  if (op === "eq") return pyEquals(t, s);
  if (op === "neq") return !pyEquals(t, s);
  if (op === "contains") return pyStr(t).includes(pyStr(s));
  const bothNumbers = (typeof t === "number" || typeof t === "boolean") && (typeof s === "number" || typeof s === "boolean");
  const bothStrings = typeof t === "string" && typeof s === "string";
  if (!bothNumbers && !bothStrings) return false;
  const a = t as number | string;
  const b = s as number | string;
  if (op === "gt") return a > b;
  if (op === "gte") return a >= b;
  if (op === "lt") return a < b;
  return a <= b;
}
