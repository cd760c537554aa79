/** Shared shapes of the compound-judge core: graph nodes, unit outputs, ports. */
import type { ModelPort, Usage } from "../llm/port";
import type { ModelConfig } from "../schemas/model-config";
import type { UnitConfig, UnitType } from "../schemas/judge";
import type { Scale, ScaleValue } from "./scales";

export type Kind = "judge" | "categorical" | "pairwise" | "best-of-k" | "ranker" | "verify" | "conversational" | "cot" | "map" | "pool";
export type PoolOp = "max" | "mean" | "weighted-mean" | "min" | "mean-variance";
export type Outer = "dense" | "broadcast" | "cumulative" | "last";

export interface JudgeNode {
  /** Stable call-site id: the declaring unit's config path + "#" + repeat index. */
  id: string;
  /** Config path of the declaring unit, e.g. `pipeline[0].layer.units[1]`. */
  path: string;
  /** Unique instance name: the declared (or default) name, `[r]` appended when repeated. */
  name: string;
  /** The declared (or default) name shared by every repeat; weights are keyed by it. */
  base: string;
  type: UnitType;
  kind: Kind;
  unit: UnitConfig;
  layer: number;
  /** Position in the expanded layer (after repeat). */
  index: number;
  repeat: number;
  /** Ids of the nodes whose outputs this one reads. */
  deps: string[];
  scale?: Scale;
  passValue?: ScaleValue;
  pool?: PoolOp;
  role?: string;
  options?: string[];
  /** Ordered fallback list; empty for map and pools. */
  models: ModelConfig[];
  /** Range of this node's numeric value, for default thresholds and map ops. */
  range: [number, number];
}

export interface JudgeGraph {
  nodes: JudgeNode[];
  roots: string[];
  threshold: number;
  /** The threshold was set (config or last step); without one a label max-pool passes by its answer. */
  thresholdGiven?: boolean;
  seed: number;
  /** The config's `metric`: a name for the score (spec: `metric: requirement-satisfaction`). */
  metric?: string;
}

export interface GraphIssue {
  /** Path into the judge config, e.g. `pipeline[1].layer.units[0].scale`. */
  path: string;
  message: string;
}

export interface UnitUsage {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  models: string[];
  /** Dollars, when the edge prices calls; null when a call's model has no price. */
  cost_usd: number | null;
  /** Models called here that have no price (why cost_usd is null), as the runs report them. */
  unpriced_models: string[];
}

export interface UnitError {
  kind: string;
  message: string;
}

/** What a unit produced; the HTTP `units` array is a list of these. */
export interface UnitOutput {
  name: string;
  id: string;
  type: UnitType;
  status: "ok" | "error" | "skipped";
  /** The number this unit pools as (null for text-only units and failures). */
  value: number | null;
  /** The scale answer as given (category label, boolean, or number). */
  answer?: ScaleValue;
  pass_value?: ScaleValue;
  explanation?: string;
  /** conversational / cot text. */
  text?: string;
  chosen?: string;
  chosen_swapped?: string;
  disagreement?: boolean;
  ranking?: string[];
  /** mean-variance pool. */
  variance?: number;
  /** max-pool over labels: the majority label; counts per answer. */
  votes?: Record<string, number>;
  /** max-pool: equally frequent answers were split by layer order (the first seen won). */
  tie?: true;
  inputs: string[];
  attempts: number;
  usage: UnitUsage;
  error?: UnitError;
}

export interface JudgeSampleInput {
  input: string;
  output: string;
  reference?: string;
  vars: Record<string, string | number | boolean>;
}

export interface JudgePorts {
  /** The port for a model config (the edge memoises and applies limits / caching). */
  model(config: ModelConfig): ModelPort;
  /** Uniform [0, 1) source for sampling extractors; default a PRNG seeded by config.seed. */
  rng?: () => number;
  /** Dollars for one call's usage, null when the model has no price; without it costs are null. */
  cost?(model: ModelConfig, usage: Usage): number | null;
  /**
   * Prefixed to every call-site id, so separate runs of one config on one sample (calibration
   * repeats) stay separate calls for a response cache keyed on the call site.
   */
  scope?: string;
}

export interface JudgeOutcome {
  /** null when the judge itself failed: never read as "the answer is wrong". */
  pass: boolean | null;
  score: number | null;
  threshold: number;
  metric?: string;
  /** A single max-pool root: the winning answer, and `tie: true` when layer order broke a tie. */
  answer?: ScaleValue;
  tie?: true;
  reason: string;
  units: UnitOutput[];
  error?: UnitError & { unit: string };
  usage: UnitUsage;
}
