/**
 * Config → a validated DAG of unit instances, before any model call.
 *
 * Steps become layers: `{layer}` as given (a `block` layer repeats a chain of steps), a bare unit as a one-unit layer (its `repeat` kept),
 * `aggregate` as a final pool. A layer's units repeat as a whole (A0 B0 A1 B1 …). Edges:
 * - inner `chain` links each instance to the one after it; the default is `chain` when every unit
 *   of the layer is conversational (a debate takes turns), else `none`.
 * - outer (how layer L feeds L+1, over L's `leaf` selection and L+1's `root` selection):
 *   dense = all to all; broadcast = i → i (equal sizes); cumulative = target j receives sources
 *   0..j; last = only the last source, to every target.
 * Every problem is reported with its config path; the caller turns them into a 400.
 */
import type { JudgeConfig, LayerConfig, PipelineStep, UnitConfig } from "../schemas/judge";
import type { ModelConfig } from "../schemas/model-config";
import { checkNodes, TEXT_ONLY } from "./check";
import type { GraphIssue, JudgeGraph, JudgeNode, Kind, Outer, PoolOp } from "./types";

interface FlatLayer {
  path: string;
  units: { unit: UnitConfig; path: string }[];
  /** A block layer: `units` are chained steps, repeated as a whole. */
  block?: boolean;
  repeat: number;
  inner?: "none" | "chain";
  outer: Outer;
  leaf?: number[];
  root?: number[];
}

const KIND: Record<string, Kind> = {
  judge: "judge",
  likert: "judge",
  "direct-score": "judge",
  categorical: "categorical",
  "categorical-judge": "categorical",
  pairwise: "pairwise",
  "pairwise-judge": "pairwise",
  "best-of-k": "best-of-k",
  ranker: "ranker",
  verify: "verify",
  "debate-for": "conversational",
  "debate-against": "conversational",
  conversational: "conversational",
  cot: "cot",
  "chain-of-thought": "cot",
  map: "map",
};

export const POOL_OP: Record<string, PoolOp> = {
  "max-pool": "max",
  max: "max",
  "mean-pool": "mean",
  mean: "mean",
  "weighted-mean": "weighted-mean",
  "weighted-mean-pool": "weighted-mean",
  "min-pool": "min",
  min: "min",
  "mean-variance": "mean-variance",
  "mean-variance-pool": "mean-variance",
};

export function kindOf(unit: UnitConfig): Kind {
  if (POOL_OP[unit.type]) return "pool";
  const k = KIND[unit.type]!;
  // The spec's debate example ends in `{type: judge, categories: [yes, no]}`: a categorical judge.
  return k === "judge" && unit.categories ? "categorical" : k;
}

function flatten(config: JudgeConfig, shapeIssues: GraphIssue[]): FlatLayer[] {
  const single = (unit: UnitConfig, path: string): FlatLayer => ({
    path,
    units: [{ unit, path }],
    repeat: unit.repeat ?? 1,
    outer: "dense",
  });
  const layers: FlatLayer[] = [];
  if (config.type) {
    const { pipeline: _p, aggregate: _a, seed: _s, ...unit } = config;
    layers.push(single(unit as UnitConfig, "config"));
  } else {
    config.pipeline!.forEach((step: PipelineStep, i) => {
      const path = `pipeline[${i}]`;
      if ("layer" in step) {
        shapeIssues.push(...layerShapeIssues(step.layer, `${path}.layer`));
        layers.push(fromLayer(step.layer, `${path}.layer`));
      } else layers.push(single(step, path));
    });
  }
  if (config.aggregate) {
    const type = config.aggregate === "max" ? "max-pool" : config.aggregate === "mean" ? "mean-pool" : config.aggregate;
    layers.push(single({ type, ...(config.weights ? { weights: config.weights } : {}) } as UnitConfig, "aggregate"));
  }
  return layers;
}

function fromLayer(layer: LayerConfig, path: string): FlatLayer {
  const units = layer.block
    ? layer.block.map((unit, j) => ({ unit, path: `${path}.block[${j}]` }))
    : layer.units
      ? layer.units.map((unit, j) => ({ unit, path: `${path}.units[${j}]` }))
      : layer.unit
        ? [{ unit: layer.unit, path: `${path}.unit` }]
        : [];
  return {
    path,
    units,
    ...(layer.block ? { block: true } : {}),
    repeat: layer.repeat,
    inner: layer.inner,
    outer: layer.outer,
    leaf: layer.leaf,
    root: layer.root,
  };
}

/** A layer gives one of unit, units or block. */
function layerShapeIssues(layer: LayerConfig, path: string): GraphIssue[] {
  const given = (["unit", "units", "block"] as const).filter((k) => layer[k] !== undefined);
  if (given.length > 1) return [{ path: `${path}.${given[1]}`, message: `give one of unit, units or block (got ${given.join(" and ")})` }];
  if (layer.block && layer.inner)
    return [{ path: `${path}.inner`, message: "a block's steps are already chained; inner does not apply to a block" }];
  return [];
}

export function buildGraph(config: JudgeConfig): { graph: JudgeGraph } | { issues: GraphIssue[] } {
  const issues: GraphIssue[] = [];
  const layers = flatten(config, issues);
  if (config.pipeline) issues.push(...pipelineTopLevel(config));
  const defaultModels = modelsOf(config.provider);
  const nodes: JudgeNode[] = [];
  // Per layer: the nodes the previous layer feeds (heads) and the ones that feed the next (tails);
  // the same list except in a block layer (first steps / last steps of each repeat).
  const heads: JudgeNode[][] = [];
  const tails: JudgeNode[][] = [];
  const names = nameUnits(layers, issues);

  layers.forEach((layer, L) => {
    if (layer.units.length === 0) issues.push({ path: layer.path, message: "a layer needs unit, units or block" });
    const instances: JudgeNode[] = [];
    for (let r = 0; r < layer.repeat; r++) {
      for (const { unit, path } of layer.units) {
        const base = names.get(path)!;
        const kind = kindOf(unit);
        const own = modelsOf(unit.provider);
        instances.push({
          id: `${path}#${r}`,
          path,
          name: layer.repeat > 1 ? `${base}[${r}]` : base,
          base,
          type: unit.type,
          kind,
          unit,
          layer: L,
          index: instances.length,
          repeat: r,
          deps: [],
          ...(kind === "pool" ? { pool: POOL_OP[unit.type] } : {}),
          ...(kind === "conversational" ? { role: roleOf(unit) } : {}),
          models: kind === "pool" || kind === "map" ? [] : own.length ? own : defaultModels,
          range: [0, 1],
        });
      }
    }
    const steps = layer.units.length;
    if (layer.block) {
      // Each repeat is its own chain: step s of repeat r reads step s − 1 of repeat r.
      instances.forEach((n, i) => i % steps > 0 && n.deps.push(instances[i - 1]!.id));
      heads.push(instances.filter((_, i) => i % steps === 0));
      tails.push(instances.filter((_, i) => i % steps === steps - 1));
    } else {
      const inner = layer.inner ?? (layer.units.every((u) => kindOf(u.unit) === "conversational") ? "chain" : "none");
      if (inner === "chain") instances.forEach((n, i) => i > 0 && n.deps.push(instances[i - 1]!.id));
      heads.push(instances);
      tails.push(instances);
    }
    const what = layer.block ? "repeats of its block" : "units";
    for (const [key, sel, size] of [
      ["leaf", layer.leaf, tails[L]!.length],
      ["root", layer.root, heads[L]!.length],
    ] as const) {
      const bad = sel?.find((i) => i >= size || i < -size);
      if (bad !== undefined)
        issues.push({
          path: `${layer.path}.${key}`,
          message: `index ${bad} is outside the layer's ${size} ${what} (0..${size - 1}, or -1..-${size})`,
        });
    }
    nodes.push(...instances);
  });

  const before = issues.length;
  for (let L = 0; L + 1 < layers.length; L++) {
    const from = pick(tails[L]!, layers[L]!.leaf);
    const to = pick(heads[L + 1]!, layers[L + 1]!.root);
    const err = connect(from, to, layers[L]!.outer);
    if (err) issues.push({ path: `${layers[L]!.path}.outer`, message: err });
  }
  // Unit checks read the edges; after a connection error they would only repeat it in other words.
  if (issues.length > before) return { issues };
  layers.slice(0, -1).forEach((l) => {
    for (const { unit, path } of l.units) {
      if (unit.threshold !== undefined)
        issues.push({ path: `${path}.threshold`, message: "threshold applies to the last step only (pass ⇔ final score ≥ threshold)" });
    }
  });
  // The last layer's leaf selection picks the roots (the units whose values make the score).
  const last = pick(tails[tails.length - 1] ?? [], layers[layers.length - 1]?.leaf);
  issues.push(...checkNodes(nodes, last));
  const given = config.threshold ?? lastThreshold(last);
  const threshold = given ?? defaultThreshold(last);
  if (!issues.length && given !== undefined) {
    const outside = unreachableThreshold(
      given,
      nodes,
      config.pipeline && config.threshold !== undefined ? "threshold" : `${last[0]!.path}.threshold`,
    );
    if (outside) issues.push(outside);
  }
  if (issues.length) return { issues };
  const metric = config.metric !== undefined ? { metric: config.metric } : {};
  return {
    graph: { nodes, roots: last.map((n) => n.id), threshold, thresholdGiven: given !== undefined, seed: config.seed ?? 0, ...metric },
  };
}

/** Python-style selection (Verdict's `operator.itemgetter(*idx)(self.order)`): −1 is the last. */
function pick(nodes: JudgeNode[], sel?: number[]): JudgeNode[] {
  return sel ? sel.filter((i) => i < nodes.length && i >= -nodes.length).map((i) => nodes.at(i)!) : nodes;
}

/** Adds the edges of one outer pattern; returns an error message when the sizes cannot connect. */
export function connect(from: JudgeNode[], to: JudgeNode[], outer: Outer): string | undefined {
  if (outer === "broadcast" && from.length !== to.length) {
    return `broadcast connects unit i to unit i, so both sides need the same size (here ${from.length} → ${to.length}); use dense, or select with leaf/root`;
  }
  // Target j reads sources 0..j: with fewer targets the last sources would be paid for and never read.
  if (outer === "cumulative" && from.length !== to.length) {
    return `cumulative connects sources 0..j to target j, so both sides need the same size (here ${from.length} → ${to.length}; unequal sizes leave units unread or targets without their own source); use dense, or select with leaf/root`;
  }
  to.forEach((t, j) => {
    const sources =
      outer === "dense" ? from : outer === "broadcast" ? [from[j]!] : outer === "cumulative" ? from.slice(0, j + 1) : from.slice(-1);
    for (const s of sources) if (!t.deps.includes(s.id)) t.deps.push(s.id);
  });
  return undefined;
}

/** Declared names must be unique (so `{{previous.NAME.…}}` is unambiguous); defaults get a suffix. */
function nameUnits(layers: FlatLayer[], issues: GraphIssue[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const l of layers) {
    for (const { unit, path } of l.units) {
      if (!unit.name) continue;
      if (taken.has(unit.name))
        issues.push({ path: `${path}.name`, message: `unit name "${unit.name}" is used twice; names must be unique` });
      taken.add(unit.name);
      names.set(path, unit.name);
    }
  }
  for (const l of layers) {
    for (const { unit, path } of l.units) {
      if (names.has(path)) continue;
      let name: string = unit.type;
      for (let k = 2; taken.has(name); k++) name = `${unit.type}_${k}`;
      taken.add(name);
      names.set(path, name);
    }
  }
  return names;
}

function modelsOf(ref: ModelConfig | ModelConfig[] | undefined): ModelConfig[] {
  return ref === undefined ? [] : Array.isArray(ref) ? ref : [ref];
}

function lastThreshold(last: JudgeNode[]): number | undefined {
  return last.length === 1 ? last[0]!.unit.threshold : undefined;
}

/**
 * A threshold outside every value the graph's scoring units can take decides every output alike
 * (threshold 5 on a 0..1 scale failed them all, silently). The score is a pool, map or mean of
 * these units' values, so it stays within the hull of their ranges; the ends themselves can be met.
 */
function unreachableThreshold(threshold: number, nodes: JudgeNode[], path: string): GraphIssue | undefined {
  const scoring = nodes.filter((n) => !TEXT_ONLY.includes(n.kind));
  if (!scoring.length) return undefined;
  const lo = Math.min(...scoring.map((n) => n.range[0]));
  const hi = Math.max(...scoring.map((n) => n.range[1]));
  if (threshold > hi)
    return { path, message: `threshold ${threshold} is above every score this judge can give (${lo}..${hi}): every output would fail` };
  if (threshold < lo)
    return { path, message: `threshold ${threshold} is below every score this judge can give (${lo}..${hi}): every output would pass` };
  return undefined;
}

/** The midpoint of the root's value range: 0.5 for labels and choices, (min+max)/2 for scores. */
function defaultThreshold(last: JudgeNode[]): number {
  const r = last[0]?.range ?? [0, 1];
  return (r[0] + r[1]) / 2;
}

function roleOf(unit: UnitConfig): string {
  if (unit.type === "debate-for") return unit.role ?? "argue that the response is good";
  if (unit.type === "debate-against") return unit.role ?? "argue that the response is bad";
  return unit.role ?? "participant";
}

/** With `pipeline`, the top level holds only what applies to the whole graph. */
const PIPELINE_TOP = ["pipeline", "provider", "threshold", "aggregate", "seed", "metric", "weights"];

function pipelineTopLevel(config: JudgeConfig): GraphIssue[] {
  const out: GraphIssue[] = [];
  for (const [k, v] of Object.entries(config)) {
    if (v !== undefined && !PIPELINE_TOP.includes(k))
      out.push({ path: k, message: `${k} describes a single unit; with pipeline, set it on the unit` });
  }
  if (config.weights && config.aggregate !== "weighted-mean")
    out.push({ path: "weights", message: "top-level weights go with aggregate: weighted-mean" });
  return out;
}

/** Upper bound of model calls one run makes (retries and fallbacks aside): swap and post-hoc double a unit. */
export function estimateCalls(graph: JudgeGraph): number {
  return graph.nodes.reduce((s, n) => {
    if (n.kind === "pool" || n.kind === "map") return s;
    return s + (n.unit.swap ? 2 : 1) * (n.unit.extractor?.type === "post-hoc" ? 2 : 1);
  }, 0);
}
