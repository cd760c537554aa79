/**
 * The scenario wire shapes (Karenina `schemas/scenario/`): a conversation graph of nodes, edges
 * with declarative conditions and handovers, outcome criteria, and conditional ground truth.
 *
 * One zod schema per shape, types inferred. The node's question is the benchmark's own Question
 * schema, handed in by `scenarioSchema(node)` (src/schemas/benchmark.ts), so this folder does not
 * import src/schemas (which imports it). Karenina writes check and scope types as class names in
 * checkpoints (`"TurnCheck"`, `"LastTurn"`) and as literals in Python (`"turn_check"`): both are
 * accepted and read as the literal.
 *
 * Refused here, with the field named: what Karenina keeps as Python source (`condition_source`,
 * `state_update_source`, `evaluate_source`: edgeval runs no arbitrary Python), a handover edgeval
 * cannot honour (`transcript_materialize` needs an agent that reads files), and per-node model
 * overrides and tool filters (not supported yet). Graph problems are graph.ts.
 */
import { z } from "zod";
import { whenMissing } from "../lib/wire-issues";
import { Normalizer } from "../templates/normalizers";
import { VerifyWithSchema } from "../templates/primitives/verify-with";
import { graphIssues } from "./graph";
import { END } from "./state";

export { END };

/** Class names as Karenina's checkpoint writer stores them → the literal its schemas use. */
const CLASS_TO_TYPE: Record<string, string> = {
  AllOf: "all_of",
  AnyOf: "any_of",
  AtLeastN: "at_least_n",
  TurnCheck: "turn_check",
  ResultCheck: "result_check",
  CrossTurnCheck: "cross_turn_check",
  CountTurns: "count_turns",
  FirstMatchIndex: "first_match_index",
  StateCheck: "state_check",
  LastTurn: "last_turn",
  FirstTurn: "first_turn",
  TurnAt: "turn_at",
  AnyTurn: "any_turn",
  AllTurns: "all_turns",
};

/** An object whose `type` may be a Karenina class name: read as the literal. */
const typed = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const t = (v as { type?: unknown }).type;
      if (typeof t === "string" && Object.hasOwn(CLASS_TO_TYPE, t)) return { ...(v as object), type: CLASS_TO_TYPE[t] };
    }
    return v;
  }, schema);

const NodeIds = z.union([z.string(), z.array(z.string())]).nullish();

const LastTurn = z.strictObject({ type: z.literal("last_turn") });
const FirstTurn = z.strictObject({ type: z.literal("first_turn") });
const TurnAt = z.strictObject({ type: z.literal("turn_at"), index: z.number().int() });
const AnyTurn = z.strictObject({ type: z.literal("any_turn"), node_id: NodeIds });
const AllTurns = z.strictObject({ type: z.literal("all_turns"), node_id: NodeIds });
export const TurnScope = typed(z.discriminatedUnion("type", [LastTurn, FirstTurn, TurnAt, AnyTurn, AllTurns]));
export type TurnScope = z.output<typeof TurnScope>;

/** Any JSON value (a check's `expected`); absent reads as null, as Karenina's default. */
const Expected = z.unknown().transform((v) => (v === undefined ? null : v));

/**
 * An edge condition (Karenina `StateCheck`): the dot-path `field` of the scenario state, compared
 * with `expected` by a primitive: `verify_with.check(state[field], expected)`.
 */
export const StateCheck = typed(
  z.strictObject({
    type: z.literal("state_check").default("state_check"),
    field: z.string({ error: whenMissing("field is required: a dot path such as node_results.ask.parsed.answer") }).min(1),
    expected: Expected,
    verify_with: VerifyWithSchema,
  }),
);
export type StateCheck = z.output<typeof StateCheck>;

export const HANDOVERS = ["transcript_prepend", "transcript_append"] as const;
export type Handover = (typeof HANDOVERS)[number];

const refusedSource = (what: string) =>
  z
    .unknown()
    .refine((v) => v === undefined || v === null, {
      error: `${what} is Python source; edgeval runs no arbitrary Python (use a declarative check)`,
    })
    .optional();

export const ScenarioEdge = z.strictObject({
  source: z.string({ error: whenMissing("source is required: a node id") }).min(1),
  target: z.string({ error: whenMissing(`target is required: a node id or "${END}"`) }).min(1),
  /** One check, or a list that must all hold; absent = unconditional (the fallback). */
  condition: z.union([StateCheck, z.array(StateCheck)]).nullish(),
  condition_source: refusedSource("condition_source"),
  handover: z
    .enum(HANDOVERS, {
      error: (iss) =>
        iss.input === "transcript_materialize"
          ? "transcript_materialize writes the transcript to a file for an agent to read; edgeval supports transcript_prepend and transcript_append"
          : `handover is one of ${HANDOVERS.join(", ")} (or null)`,
    })
    .nullish(),
});
export type ScenarioEdge = z.output<typeof ScenarioEdge>;

const COMPARISONS = ["eq", "neq", "contains", "gt", "gte", "lt", "lte"] as const;

const TurnCheck = z.strictObject({
  type: z.literal("turn_check"),
  scope: TurnScope,
  field: z.string().min(1),
  expected: Expected,
  verify_with: VerifyWithSchema,
});
const ResultCheck = z.strictObject({
  type: z.literal("result_check"),
  field: z.enum(["status", "turn_count", "path", "scenario_id"], { error: "field is one of status, turn_count, path, scenario_id" }),
  expected: Expected,
  verify_with: VerifyWithSchema,
});
const CrossTurnCheck = z.strictObject({
  type: z.literal("cross_turn_check"),
  source_turn: TurnScope,
  source_field: z.string().min(1),
  target_turn: TurnScope,
  target_field: z.string().min(1),
  comparison: z.enum(COMPARISONS),
  normalize: z.array(Normalizer).default([]),
});
export const CountTurns = z.strictObject({ type: z.literal("count_turns"), node_id: NodeIds, verify_result: z.boolean().nullish() });
export const FirstMatchIndex = z.strictObject({
  type: z.literal("first_match_index"),
  node_id: NodeIds,
  verify_result: z.boolean().nullish(),
});

export type OutcomeCheck =
  | z.output<typeof TurnCheck>
  | z.output<typeof ResultCheck>
  | z.output<typeof CrossTurnCheck>
  | { type: "all_of" | "any_of"; conditions: OutcomeCheck[] }
  | { type: "at_least_n"; n: number; conditions: OutcomeCheck[] };

/** Boolean checks and their AllOf / AnyOf / AtLeastN composition, nested to any depth. */
export const OutcomeCheck: z.ZodType<OutcomeCheck> = typed(
  z.discriminatedUnion("type", [
    TurnCheck,
    ResultCheck,
    CrossTurnCheck,
    z.strictObject({ type: z.literal("all_of"), conditions: z.array(z.lazy(() => OutcomeCheck)).default([]) }),
    z.strictObject({ type: z.literal("any_of"), conditions: z.array(z.lazy(() => OutcomeCheck)).default([]) }),
    z.strictObject({
      type: z.literal("at_least_n"),
      n: z.number().int().min(0),
      conditions: z.array(z.lazy(() => OutcomeCheck)).default([]),
    }),
  ]),
) as z.ZodType<OutcomeCheck>;

/** A check (boolean) or an aggregation (CountTurns / FirstMatchIndex: an integer). */
export const OutcomeNode = z.union([OutcomeCheck, typed(z.discriminatedUnion("type", [CountTurns, FirstMatchIndex]))]);
export type OutcomeNode = z.output<typeof OutcomeNode>;

export const OutcomeCriterion = z.strictObject({
  name: z.string({ error: whenMissing("name is required") }).min(1),
  description: z.string().default(""),
  check: OutcomeNode,
  evaluate_source: refusedSource("evaluate_source"),
});
export type OutcomeCriterion = z.output<typeof OutcomeCriterion>;

/** One branch of a conditional ground truth: the value, and optionally another primitive. */
export const GroundTruthCase = z.strictObject({
  value: z.unknown().transform((v) => (v === undefined ? null : v)),
  verify_with: VerifyWithSchema.nullish(),
});
export type GroundTruthCase = z.output<typeof GroundTruthCase>;

/**
 * Karenina's `ConditionalGroundTruth`: the value at `source` (a dot path into the scenario
 * context, e.g. `node_results.ask.parsed.behavior`), as a string, picks a case; `default` when
 * it is absent or matches none. Here keyed by the template field it replaces, on the node.
 */
export const ConditionalGroundTruth = z.strictObject({
  source: z.string({ error: whenMissing("source is required: a dot path such as node_results.ask.parsed.behavior") }).min(1),
  cases: z.record(z.string(), GroundTruthCase),
  default: GroundTruthCase,
});
export type ConditionalGroundTruth = z.output<typeof ConditionalGroundTruth>;

const unsupported = (what: string) =>
  z
    .unknown()
    .refine((v) => v === undefined || v === null, { error: `${what} is not supported yet` })
    .optional();

/** A node around the caller's question schema (the benchmark's Question). */
export const scenarioNodeSchema = <Q extends z.ZodType>(question: Q) =>
  z.strictObject({
    question,
    /** Per template field: its ground truth chosen from the scenario so far. */
    conditional_ground_truth: z.record(z.string(), ConditionalGroundTruth).nullish(),
    /** Who answers at this node (the transcript's speaker label); default the answering model's id. */
    agent_identity: z.string().min(1).nullish(),
    metadata: z.record(z.string(), z.unknown()).nullish(),
    state_update_source: refusedSource("state_update_source"),
    model_override: unsupported("a per-node model_override"),
    tool_filter: unsupported("a per-node tool_filter"),
  });

const NodeId = z
  .string()
  .min(1)
  .refine((id) => id !== END, { error: `"${END}" is the end of the scenario, not a node id` });

/** A scenario (Karenina `ScenarioDefinition`), graph-checked (graph.ts); its `name` is the scenario_id. */
export const scenarioSchema = <N extends z.ZodType<{ question: { question: string } }>>(node: N) =>
  z
    .strictObject({
      name: z.string({ error: whenMissing("name is required: the scenario_id of its results") }).min(1),
      description: z.string().default(""),
      entry_node: z.string({ error: whenMissing("entry_node is required: the node the scenario starts at") }).min(1),
      nodes: z.record(NodeId, node).refine((n) => Object.keys(n).length > 0, { error: "a scenario needs at least one node" }),
      edges: z.array(ScenarioEdge).default([]),
      outcome_criteria: z.array(OutcomeCriterion).default([]),
      metadata: z.record(z.string(), z.unknown()).default({}),
    })
    .superRefine((s, ctx) => {
      for (const issue of graphIssues(s)) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message, input: issue.input });
    });

/** What the engine needs of a scenario, whatever its question shape. */
export interface ScenarioGraph<Q = { question: string }> {
  name: string;
  entry_node: string;
  nodes: Record<
    string,
    { question: Q; conditional_ground_truth?: Record<string, ConditionalGroundTruth> | null; agent_identity?: string | null }
  >;
  edges: ScenarioEdge[];
  outcome_criteria: OutcomeCriterion[];
}
