/**
 * Compound judges (Verdict style): `runCompoundJudge(config, sample, ports)` validates the whole
 * graph, then runs it and pools the roots into `{pass, score, reason, units}`.
 * Models arrive through `ports.model(config)`; the core never builds an adapter.
 * pass ⇔ score ≥ threshold; when a unit fails (after retries and fallbacks) pass and score are
 * null and `error` names the unit: the judge failing is never the answer failing.
 */
import { addUsd } from "../llm/prices";
import type { JudgeConfig } from "../schemas/judge";
import { execute } from "./executor";
import { buildGraph } from "./graph";
import { missingInSample } from "./template";
import type { GraphIssue, JudgeGraph, JudgeOutcome, JudgePorts, JudgeSampleInput, UnitOutput } from "./types";
import { emptyUsage } from "./units";

export type * from "./types";
export { buildGraph, estimateCalls } from "./graph";

export class JudgeConfigError extends Error {
  constructor(readonly issues: GraphIssue[]) {
    super(issues.map((i) => `${i.path}: ${i.message}`).join("; "));
  }
}

/** Every problem with a config (and, when given, the sample it would run on), before any call. */
export function validateJudge(config: JudgeConfig, sample?: JudgeSampleInput): { graph: JudgeGraph } | { issues: GraphIssue[] } {
  const built = buildGraph(config);
  if ("issues" in built || !sample) return built;
  const issues: GraphIssue[] = [];
  for (const n of built.graph.nodes) {
    const texts: [string, string | undefined][] = [
      ["prompt", n.unit.prompt],
      ...(n.options ?? []).map((o, i) => [`options[${i}]`, o] as [string, string]),
    ];
    for (const [field, text] of texts) {
      for (const m of text ? missingInSample(text, sample) : []) {
        const defaulted = field.startsWith("options") && !n.unit.options;
        const path = defaulted ? n.path : `${n.path}.${field}`;
        const message = defaulted
          ? "pairwise compares the output with {{reference}} unless options are given, and this request has no reference"
          : `uses ${m}, which this request does not give`;
        if (!issues.some((x) => x.path === path && x.message === message)) issues.push({ path, message });
      }
    }
  }
  return issues.length ? { issues } : built;
}

export async function runCompoundJudge(config: JudgeConfig, sample: JudgeSampleInput, ports: JudgePorts): Promise<JudgeOutcome> {
  const v = validateJudge(config, sample);
  if ("issues" in v) throw new JudgeConfigError(v.issues);
  return runGraph(v.graph, sample, ports);
}

export async function runGraph(graph: JudgeGraph, sample: JudgeSampleInput, ports: JudgePorts): Promise<JudgeOutcome> {
  const units = await execute(graph, sample, ports);
  const usage = emptyUsage();
  for (const u of units) {
    usage.calls += u.usage.calls;
    usage.input_tokens += u.usage.input_tokens;
    usage.output_tokens += u.usage.output_tokens;
    usage.total_tokens += u.usage.total_tokens;
    usage.cost_usd = addUsd(usage.cost_usd, u.usage.cost_usd);
    for (const m of u.usage.models) if (!usage.models.includes(m)) usage.models.push(m);
    for (const m of u.usage.unpriced_models) if (!usage.unpriced_models.includes(m)) usage.unpriced_models.push(m);
  }
  const roots = units.filter((u) => graph.roots.includes(u.id));
  const failed = units.find((u) => u.status === "error");
  if (failed || roots.some((r) => r.value === null)) {
    const f = failed ?? roots.find((r) => r.value === null)!;
    const error = { unit: f.name, kind: f.error?.kind ?? "no_value", message: f.error?.message ?? "no score" };
    return {
      pass: null,
      score: null,
      threshold: graph.threshold,
      reason: `the judge failed at unit ${f.name}: ${error.message}`,
      units,
      error,
      usage,
    };
  }
  // Several root units (no final pool) are averaged.
  const score = roots.reduce((s, r) => s + r.value!, 0) / roots.length;
  const vote = roots.length === 1 && roots[0]!.votes ? roots[0]! : undefined;
  // A label vote with no threshold set passes by its answer, as Verdict reads MaxPool's mode.
  const byAnswer = vote?.pass_value !== undefined && !graph.thresholdGiven;
  const pass = byAnswer ? vote!.answer === vote!.pass_value : score >= graph.threshold;
  const metric = graph.metric !== undefined ? { metric: graph.metric } : {};
  const pooled = vote ? { answer: vote.answer!, ...(vote.tie ? { tie: true as const } : {}) } : {};
  const head = byAnswer
    ? `pooled answer ${String(vote!.answer)} ${pass ? "is" : "is not"} the passing answer ${String(vote!.pass_value)}${vote!.tie ? " (a tie, broken by layer order)" : ""}`
    : `score ${round(score)} ${pass ? "≥" : "<"} threshold ${round(graph.threshold)}`;
  return { pass, score, threshold: graph.threshold, ...metric, ...pooled, reason: reasonOf(head, roots, units), units, usage };
}

function reasonOf(head: string, roots: UnitOutput[], units: UnitOutput[]): string {
  const root = roots.length === 1 ? roots[0]! : undefined;
  const what = root?.votes
    ? `${root.name}: votes ${Object.entries(root.votes)
        .map(([k, n]) => `${k}×${n}`)
        .join(", ")}`
    : roots.map((r) => `${r.name}: ${r.answer ?? r.chosen ?? round(r.value!)}`).join(", ");
  const why = [...units].reverse().find((u) => u.explanation)?.explanation;
  return `${head} (${what})${why ? `. ${why}` : ""}`;
}

const round = (x: number) => Math.round(x * 1000) / 1000;
