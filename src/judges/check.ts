/**
 * Per-unit checks of a built graph: which fields apply to which type, scales and passing labels,
 * extractor fit, pool inputs and weights, placeholders. Also fills each node's scale, pass value
 * and value range (nodes arrive in dependency order, so inputs are resolved first).
 */
import type { UnitConfig } from "../schemas/judge";
import { buildScale, booleanOnly, categories, likert, type Scale } from "./scales";
import { refsOf } from "./template";
import type { GraphIssue, JudgeNode, Kind } from "./types";

const CALL_FIELDS = ["prompt", "provider", "retries", "temperature", "max_tokens", "extractor"] as const;
const COMMON = ["type", "name", "repeat", "metric", "threshold"];
const ALLOWED: Record<Kind, string[]> = {
  judge: [...CALL_FIELDS, "scale", "categories", "pass_value", "explanation"],
  categorical: [...CALL_FIELDS, "scale", "categories", "pass_value", "explanation"],
  verify: [...CALL_FIELDS, "scale", "categories", "pass_value", "explanation"],
  pairwise: [...CALL_FIELDS, "options", "swap", "explanation"],
  "best-of-k": [...CALL_FIELDS, "options", "k", "explanation"],
  ranker: [...CALL_FIELDS, "options", "explanation"],
  conversational: [...CALL_FIELDS, "role"],
  cot: [...CALL_FIELDS],
  map: ["op"],
  pool: ["weights"],
};
const SCALED: Kind[] = ["judge", "categorical", "verify"];
export const TEXT_ONLY: Kind[] = ["conversational", "cot"];

export function checkNodes(nodes: JudgeNode[], roots: JudgeNode[]): GraphIssue[] {
  const issues: GraphIssue[] = [];
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const ancestors = new Map<string, Set<string>>();
  for (const n of nodes) {
    const ids = new Set<string>();
    for (const d of n.deps) {
      ids.add(d);
      for (const a of ancestors.get(d) ?? []) ids.add(a);
    }
    ancestors.set(n.id, ids);
    // How many ancestors answer to each name (instance or base): what {previous.NAME[i]} indexes.
    const names = new Map<string, number>();
    for (const id of ids) {
      const a = byId.get(id)!;
      for (const key of new Set([a.name, a.base])) names.set(key, (names.get(key) ?? 0) + 1);
    }
    const deps = n.deps.map((d) => byId.get(d)!);
    for (const i of checkNode(n, deps, names)) {
      if (!issues.some((x) => x.path === i.path && x.message === i.message)) issues.push(i);
    }
  }
  for (const n of roots) {
    if (TEXT_ONLY.includes(n.kind))
      issues.push({
        path: n.path,
        message: `the pipeline must end with a unit that scores (${n.type} only writes text); add a judge or a pool after it`,
      });
  }
  return issues;
}

function checkNode(n: JudgeNode, deps: JudgeNode[], ancestors: Map<string, number>): GraphIssue[] {
  const out: GraphIssue[] = [];
  const at = (field: string, message: string) => out.push({ path: `${n.path}.${field}`, message });
  const u = n.unit;
  for (const [k, v] of Object.entries(u)) {
    if (v !== undefined && !COMMON.includes(k) && !ALLOWED[n.kind].includes(k)) at(k, `${k} does not apply to a ${u.type} unit`);
  }
  if (n.kind !== "pool" && n.kind !== "map" && n.models.length === 0)
    at("provider", "no model: set config.provider, or provider on this unit");
  // A manual model only replays recorded answers; it has nothing to judge with.
  if (n.models.some((m) => m.interface === "manual")) at("provider", 'a judge needs a model that answers; interface "manual" cannot judge');
  if (SCALED.includes(n.kind)) resolveScale(n, deps, at);
  if (n.kind === "verify" && deps.length === 0)
    out.push({ path: n.path, message: "verify checks the unit before it; it cannot be in the first layer" });
  if (n.kind === "pairwise") {
    n.options = u.options ?? ["{{output}}", "{{reference}}"];
    if (n.options.length !== 2) at("options", "pairwise compares exactly two options (A and B)");
  }
  if (n.kind === "best-of-k" || n.kind === "ranker") {
    if (!u.options) at("options", `${u.type} needs options: the candidates, as prompt templates`);
    else if (u.k !== undefined && u.k !== u.options.length) at("k", `k is ${u.k} but there are ${u.options.length} options`);
    n.options = u.options;
  }
  if (n.kind === "map") checkMap(n, deps, at, out);
  if (n.kind === "pool") checkPool(n, deps, at, out);
  if (n.kind !== "pool" && n.kind !== "map") checkExtractor(n, at);
  for (const [field, text] of [["prompt", u.prompt], ...(u.options ?? []).map((o, i) => [`options[${i}]`, o])] as [
    string,
    string | undefined,
  ][]) {
    if (text === undefined) continue;
    const { refs, errors } = refsOf(text);
    for (const e of errors) at(field, e);
    for (const r of refs) {
      if (r.kind === "previous" && r.unit && !ancestors.has(r.unit)) at(field, `${r.raw}: no unit "${r.unit}" runs before this one`);
      else if (r.kind === "previous" && r.unit && r.index !== undefined) {
        const count = ancestors.get(r.unit)!;
        if (r.index >= count || r.index < -count)
          at(
            field,
            `${r.raw}: "${r.unit}" has ${count} instance${count === 1 ? "" : "s"} before this unit (index 0..${count - 1}, or -1..-${count})`,
          );
      }
      if (r.kind === "previous" && deps.length === 0) at(field, `${r.raw} in the first layer: nothing runs before it`);
      if (r.kind === "unit") checkUnitField(n, r.field, r.raw, (m) => at(field, m));
    }
  }
  return out;
}

type At = (field: string, message: string) => void;

/** `{unit.X}` must name something this unit has (Verdict formats the unit object's own fields). */
function checkUnitField(n: JudgeNode, field: string, raw: string, fail: (message: string) => void): void {
  const has =
    field === "name" || field === "type"
      ? true
      : field === "role" || field === "role_name"
        ? n.role !== undefined
        : field === "k"
          ? n.options !== undefined
          : n.scale !== undefined;
  if (!has) fail(`${raw}: a ${n.unit.type} unit has no ${field}`);
}

function resolveScale(n: JudgeNode, deps: JudgeNode[], at: At): void {
  const u = n.unit;
  if (u.scale && u.categories) return at("categories", "give scale or categories, not both");
  let scale: Scale | { error: string } | undefined;
  if (u.categories) scale = categories(u.categories);
  else if (u.scale) scale = buildScale(u.scale);
  else if (n.kind === "categorical") return at("categories", "a categorical unit needs categories, e.g. [yes, no]");
  else if (n.kind === "verify") {
    const from = deps.find((d) => d.scale);
    scale = from?.scale ?? booleanOnly();
    if (from && u.pass_value === undefined) n.passValue = from.passValue;
  } else scale = likert();
  if ("error" in scale) return at(u.categories ? "categories" : "scale", scale.error);
  n.scale = scale;
  if (u.pass_value !== undefined) {
    if (!scale.isLabel) return at("pass_value", "pass_value applies to labels; a numeric score passes by threshold");
    const v = scale.parse(u.pass_value);
    if (v === undefined) return at("pass_value", `pass_value must be one of the labels (${scale.values.join(", ")})`);
    n.passValue = v;
  } else if (n.passValue === undefined && scale.isLabel) n.passValue = scale.values[0];
  n.range = scale.isLabel ? [0, 1] : [scale.min!, scale.max!];
}

function checkMap(n: JudgeNode, deps: JudgeNode[], at: At, out: GraphIssue[]): void {
  if (!n.unit.op) at("op", "a map unit needs op: invert | normalize");
  if (deps.length !== 1 || TEXT_ONLY.includes(deps[0]!.kind)) {
    out.push({
      path: n.path,
      message: `a map transforms exactly one scoring unit; it has ${deps.length} inputs (connect with broadcast or leaf/root)`,
    });
    return;
  }
  n.range = n.unit.op === "normalize" ? [0, 1] : deps[0]!.range;
}

function checkPool(n: JudgeNode, deps: JudgeNode[], at: At, out: GraphIssue[]): void {
  if (deps.length === 0) return void out.push({ path: n.path, message: "a pool needs units before it" });
  const text = deps.find((d) => TEXT_ONLY.includes(d.kind));
  if (text) out.push({ path: n.path, message: `a pool averages scores; ${text.name} (${text.type}) only writes text` });
  n.range = deps[0]!.range;
  if (n.pool !== "weighted-mean") return;
  const w = n.unit.weights;
  if (!w) return at("weights", "weighted-mean needs weights: {unit name: weight}");
  const bases = new Set(deps.map((d) => d.base));
  for (const b of bases) if (!(b in w)) at("weights", `no weight for unit "${b}"`);
  for (const k of Object.keys(w))
    if (!bases.has(k)) at(`weights.${k}`, `"${k}" is not a unit feeding this pool (${[...bases].join(", ")})`);
  if (Object.values(w).some((x) => x < 0) || Object.values(w).every((x) => x === 0)) at("weights", "weights must be ≥ 0 and not all 0");
  else if (!Number.isFinite(Object.values(w).reduce((s, x) => s + x, 0))) at("weights", "weights must sum to a finite number");
}

function checkExtractor(n: JudgeNode, at: At): void {
  const e = n.unit.extractor;
  if (!e || e.type === "structured" || e.type === "post-hoc") return;
  if (!SCALED.includes(n.kind)) return at("extractor", `${e.type} extraction reads one scale value; a ${n.unit.type} unit has none`);
  if (e.type === "regex" && n.scale?.isLabel)
    at("extractor", "the regex extractor reads a number (first_int / first_float); this scale has labels");
  if (e.type === "token-probability") {
    if (n.scale?.kind === "continuous") at("extractor", "token-probability needs a discrete scale (its values are the tokens scored)");
    if (n.unit.explanation) at("explanation", "token-probability reads the first answer token, so it cannot ask for an explanation first");
    // Verdict's WeightedSummedScoreExtractor takes bool, int or float scales (verdict/extractor.py:494): on a
    // boolean scale the weighted sum is P(yes).
    if (e.mode === "weighted" && n.scale?.isLabel && n.scale.kind !== "boolean")
      at("extractor.mode", "weighted sums numeric values (or gives P(yes) on a boolean scale); use argmax or sample for labels");
  }
}

export type { UnitConfig };
