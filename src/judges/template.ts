/**
 * Prompt placeholders as the spec writes them: `{{output}}`, `{{input}}`, `{{reference}}`,
 * `{{vars.NAME}}`, `{{previous.FIELD}}` (every direct input's FIELD, joined) and
 * `{{previous.NAME.FIELD}}` (one named ancestor). FIELD is explanation, answer, value, text,
 * chosen or ranking. Anything else is a config error, found before any call.
 */
import type { JudgeSampleInput, UnitOutput } from "./types";

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;
export const PREVIOUS_FIELDS = ["explanation", "answer", "value", "text", "chosen", "ranking"] as const;

export type Ref =
  | { kind: "output" | "input" | "reference" }
  | { kind: "vars"; name: string }
  | { kind: "previous"; unit?: string; field: string };

export function refsOf(template: string): { refs: Ref[]; errors: string[] } {
  const refs: Ref[] = [];
  const errors: string[] = [];
  for (const m of template.matchAll(PLACEHOLDER)) {
    const parts = m[1]!.split(".");
    const [head] = parts;
    if ((head === "output" || head === "input" || head === "reference") && parts.length === 1) refs.push({ kind: head });
    else if (head === "vars" && parts.length === 2) refs.push({ kind: "vars", name: parts[1]! });
    else if (head === "previous" && (parts.length === 2 || parts.length === 3)) {
      const field = parts[parts.length - 1]!;
      if (!(PREVIOUS_FIELDS as readonly string[]).includes(field)) errors.push(`{{${m[1]}}}: previous fields are ${PREVIOUS_FIELDS.join(", ")}`);
      else refs.push({ kind: "previous", field, ...(parts.length === 3 ? { unit: parts[1]! } : {}) });
    } else {
      errors.push(`unknown placeholder {{${m[1]}}}; use {{output}}, {{input}}, {{reference}}, {{vars.NAME}} or {{previous[.UNIT].FIELD}}`);
    }
  }
  return { refs, errors };
}

export function fieldText(out: UnitOutput, field: string): string {
  const v =
    field === "answer" ? out.answer : field === "ranking" ? out.ranking?.join(" > ") : (out as unknown as Record<string, unknown>)[field];
  return v === undefined || v === null ? "" : String(v);
}

export interface RenderContext {
  sample: JudgeSampleInput;
  /** Direct inputs, in dependency order. */
  previous: UnitOutput[];
  /** Every finished ancestor by unit name (instance and base name). */
  named: Map<string, UnitOutput[]>;
}

export function render(template: string, ctx: RenderContext): string {
  return template.replace(PLACEHOLDER, (whole, expr: string) => {
    const parts = expr.split(".");
    const [head] = parts;
    if (head === "output") return ctx.sample.output;
    if (head === "input") return ctx.sample.input;
    if (head === "reference") return ctx.sample.reference ?? "";
    if (head === "vars") return String(ctx.sample.vars[parts[1]!] ?? "");
    if (head === "previous") {
      const field = parts[parts.length - 1]!;
      const outs = parts.length === 3 ? (ctx.named.get(parts[1]!) ?? []) : ctx.previous;
      const texts = outs.map((o) => fieldText(o, field)).filter((t) => t !== "");
      return texts.length <= 1 ? (texts[0] ?? "") : outs.map((o) => `[${o.name}] ${fieldText(o, field)}`).join("\n");
    }
    return whole;
  });
}

/** Sample-dependent problems (a var or the reference the prompts need is missing). */
export function missingInSample(template: string, sample: JudgeSampleInput): string[] {
  const out: string[] = [];
  for (const r of refsOf(template).refs) {
    if (r.kind === "vars" && !(r.name in sample.vars)) out.push(`vars.${r.name}`);
    if (r.kind === "reference" && sample.reference === undefined) out.push("reference");
  }
  return out;
}
