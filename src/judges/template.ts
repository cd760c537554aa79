/**
 * Prompt placeholders. Two spellings are read:
 * - the spec's double braces: `{{output}}`, `{{input}}`, `{{reference}}`, `{{vars.NAME}}`,
 *   `{{previous.FIELD}}` (every direct input's FIELD, joined), `{{previous.NAME.FIELD}}` (one named
 *   ancestor, every repeat) and `{{previous.NAME[i].FIELD}}` (its i-th instance; i < 0 counts from
 *   the end, as in Python);
 * - Verdict's single braces (verdict/prompt.py:253, `(?<!\{)\{([^{}]+?)\}(?!\})` evaluated against
 *   `source`, `input`, `previous`, `unit`): `{source.X}` and `{input.X}` (X = output, input,
 *   reference, or a var), `{previous…}` as above, `{unit.X}` (name, type, role / role_name, scale /
 *   categories, k). Either spelling works with either head (`{{source.x}}` too).
 * FIELD is explanation, answer, value, text, chosen, ranking, or Verdict's names for them: score,
 * choice (answer), thinking, response (text).
 * Text that looks like a Verdict placeholder (`\{\{?(source|input|previous|unit)(\.[\w\[\]-]+)+\}\}?`)
 * but resolves to nothing is a config error, found before any call, so it is never sent literally.
 * Other braces (JSON in a prompt, `{x}`) stay literal.
 */
import { untrusted } from "../lib/untrusted";
import type { JudgeNode, JudgeSampleInput, UnitOutput } from "./types";

/** `{{ expr }}`, or a single-brace Verdict expression not inside double braces. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.[\]-]*)\s*\}\}|(?<!\{)\{((?:source|input|previous|unit)(?:\.[\w[\]-]+)+)\}(?!\})/g;
/** What the issue calls a Verdict-looking placeholder; any left after parsing is malformed. */
const VERDICT_LIKE = /\{\{?(source|input|previous|unit)(\.[\w[\]-]+)+\}\}?/g;
export const PREVIOUS_FIELDS = ["explanation", "answer", "value", "text", "chosen", "ranking"] as const;
/** Verdict's output field names (JudgeUnit.score, CategoricalJudgeUnit.choice, CoTUnit.thinking, ConversationalUnit.response). */
const FIELD_ALIASES: Record<string, string> = { score: "answer", choice: "choice", thinking: "text", response: "text" };
const UNIT_FIELDS = ["name", "type", "role", "role_name", "scale", "categories", "k"] as const;
const SAMPLE_FIELDS = ["output", "input", "reference"] as const;

export type Ref = { raw: string } & (
  | { kind: "output" | "input" | "reference" }
  | { kind: "vars"; name: string }
  | { kind: "previous"; unit?: string; index?: number; field: string }
  | { kind: "unit"; field: (typeof UNIT_FIELDS)[number] }
);

interface Parsed {
  ref?: Ref;
  error?: string;
}

function parseExpr(expr: string, raw: string): Parsed {
  const parts = expr.split(".");
  const [head, ...rest] = parts;
  const single = !raw.startsWith("{{");
  if (!single && (head === "output" || head === "input" || head === "reference") && rest.length === 0) return { ref: { raw, kind: head } };
  if (!single && head === "vars" && rest.length === 1) return { ref: { raw, kind: "vars", name: rest[0]! } };
  if ((head === "source" || head === "input") && rest.length === 1) {
    const f = rest[0]!;
    return { ref: (SAMPLE_FIELDS as readonly string[]).includes(f) ? { raw, kind: f as "output" } : { raw, kind: "vars", name: f } };
  }
  if (head === "unit" && rest.length === 1) {
    const f = rest[0]!;
    if ((UNIT_FIELDS as readonly string[]).includes(f)) return { ref: { raw, kind: "unit", field: f as (typeof UNIT_FIELDS)[number] } };
    return { error: `${raw}: unit fields are ${UNIT_FIELDS.join(", ")}` };
  }
  if (head === "previous" && (rest.length === 1 || rest.length === 2)) {
    const field = rest[rest.length - 1]!;
    const canonical = FIELD_ALIASES[field] ?? field;
    if (canonical !== "choice" && !(PREVIOUS_FIELDS as readonly string[]).includes(canonical)) {
      return { error: `${raw}: previous fields are ${PREVIOUS_FIELDS.join(", ")} (or Verdict's score, choice, thinking, response)` };
    }
    if (rest.length === 1) return { ref: { raw, kind: "previous", field: canonical } };
    const m = /^([A-Za-z_][\w-]*?)(?:\[(-?\d+)\])?$/.exec(rest[0]!);
    if (!m) return { error: `${raw}: name a unit as NAME or NAME[i]` };
    return { ref: { raw, kind: "previous", unit: m[1]!, field: canonical, ...(m[2] !== undefined ? { index: Number(m[2]) } : {}) } };
  }
  return {
    error: single
      ? `${raw} is not a placeholder edgeval can fill; use {source.FIELD}, {previous[.UNIT[i]].FIELD} or {unit.FIELD}`
      : `unknown placeholder ${raw}; use {{output}}, {{input}}, {{reference}}, {{vars.NAME}} or {{previous[.UNIT].FIELD}}`,
  };
}

export function refsOf(template: string): { refs: Ref[]; errors: string[] } {
  const refs: Ref[] = [];
  const errors: string[] = [];
  for (const m of template.matchAll(PLACEHOLDER)) {
    const p = parseExpr(m[1] ?? m[2]!, m[0]);
    if (p.ref) refs.push(p.ref);
    if (p.error) errors.push(p.error);
  }
  // Whatever still looks like a Verdict placeholder was not read as one (e.g. `{{source.x}`).
  for (const m of template.replace(PLACEHOLDER, "").matchAll(VERDICT_LIKE)) {
    errors.push(`${m[0]} looks like a placeholder but is not one (unbalanced braces); write {{…}} or {…}`);
  }
  return { refs, errors };
}

export function fieldText(out: UnitOutput, field: string): string {
  const v =
    field === "answer"
      ? out.answer
      : field === "choice"
        ? (out.answer ?? out.chosen)
        : field === "ranking"
          ? out.ranking?.join(" > ")
          : (out as unknown as Record<string, unknown>)[field];
  return v === undefined || v === null ? "" : String(v);
}

export interface RenderContext {
  sample: JudgeSampleInput;
  /** Direct inputs, in dependency order. */
  previous: UnitOutput[];
  /** Every finished ancestor by unit name (instance and base name), in run order. */
  named: Map<string, UnitOutput[]>;
}

/** The outputs a previous reference reads: direct inputs, a named ancestor's, or one instance of it. */
export function previousOutputs(ref: Ref & { kind: "previous" }, ctx: Pick<RenderContext, "previous" | "named">): UnitOutput[] {
  if (!ref.unit) return ctx.previous;
  const outs = ctx.named.get(ref.unit) ?? [];
  if (ref.index === undefined) return outs;
  const o = outs.at(ref.index);
  return o ? [o] : [];
}

/** Text a `{unit.X}` placeholder stands for (validated by check.ts, so present here). */
export function unitField(n: JudgeNode, field: string): string {
  if (field === "name") return n.name;
  if (field === "type") return n.type;
  if (field === "role" || field === "role_name") return n.role ?? "";
  if (field === "k") return String(n.options?.length ?? "");
  return n.scale ? n.scale.values.map(String).join(", ") : "";
}

export function render(template: string, ctx: RenderContext, node?: JudgeNode): string {
  return template.replace(PLACEHOLDER, (whole, a: string | undefined, b: string | undefined) => {
    const { ref } = parseExpr(a ?? b!, whole);
    if (!ref) return whole;
    switch (ref.kind) {
      case "output":
        return untrusted(ctx.sample.output);
      case "input":
        return ctx.sample.input;
      case "reference":
        return ctx.sample.reference ?? "";
      case "vars":
        return Object.hasOwn(ctx.sample.vars, ref.name) ? String(ctx.sample.vars[ref.name] ?? "") : "";
      case "unit":
        return node ? unitField(node, ref.field) : whole;
      case "previous": {
        const outs = previousOutputs(ref, ctx);
        const texts = outs.map((o) => fieldText(o, ref.field)).filter((t) => t !== "");
        return texts.length <= 1 ? (texts[0] ?? "") : outs.map((o) => `[${o.name}] ${fieldText(o, ref.field)}`).join("\n");
      }
    }
  });
}

/** Sample-dependent problems: the placeholders (as written) whose var or reference this request lacks. */
export function missingInSample(template: string, sample: JudgeSampleInput): string[] {
  const out: string[] = [];
  for (const r of refsOf(template).refs) {
    // Own keys only: `in` also found Object.prototype's members, so {{vars.constructor}} passed unset.
    if (r.kind === "vars" && !Object.hasOwn(sample.vars, r.name)) out.push(r.raw);
    if (r.kind === "reference" && sample.reference === undefined) out.push(r.raw);
  }
  return out;
}
