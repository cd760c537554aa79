/**
 * edgeval template → Karenina template source. Declarative templates become `VerifiedField`
 * Python that `template-import.ts` reads back to the same template; Python custom verify keeps
 * its source as written. JavaScript custom verify has no Python form: null (the caller warns).
 */
import type { AnswerTemplate, TemplateField, VerifyStrategy } from "../templates/template-schema";

/** Python's reserved words: a field or class with one of these names cannot be written as Python. */
const PYTHON_KEYWORDS = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(
    " ",
  ),
);

/** Why this template has no Karenina (Python) form, or null when it has one. */
export function templateExportProblem(t: AnswerTemplate): string | null {
  if (t.custom_verify?.language === "javascript") return "its JavaScript custom verify has no Karenina form";
  if (t.custom_verify) return null;
  const names = [t.class_name ?? "Answer", ...t.fields.map((f) => f.name)];
  const keyword = names.find((n) => PYTHON_KEYWORDS.has(n));
  return keyword ? `"${keyword}" is a Python keyword, so it cannot name a field or class in Karenina's Python` : null;
}

export function exportTemplate(t: AnswerTemplate): string | null {
  if (templateExportProblem(t)) return null;
  if (t.custom_verify) return t.custom_verify.source;
  const lines = [...imports(t), "", "", `class ${t.class_name ?? "Answer"}(BaseAnswer):`];
  for (const f of t.fields) lines.push(...fieldLines(f));
  if (t.verify_strategy) {
    lines.push("", "    class VerificationStrategy:", `        verify_strategy = ${strategy(t.verify_strategy)}`);
  }
  if (t.regex?.length) {
    lines.push("", "    def model_post_init(self, __context):", "        self.regex = {");
    for (const r of t.regex) {
      lines.push(
        `            ${py(r.name)}: {"pattern": ${py(r.pattern)}, "expected": ${py(r.expected)}, "match_type": ${py(r.match_type)}},`,
      );
    }
    lines.push("        }");
  }
  if (t.fields.length === 0 && !t.regex?.length) lines.push("    pass");
  return lines.join("\n") + "\n";
}

/** Exactly the names the class uses, from where Karenina exports them. */
function imports(t: AnswerTemplate): string[] {
  const entities = new Set(["BaseAnswer"]);
  if (t.fields.length) entities.add("VerifiedField");
  const walk = (n: VerifyStrategy) => {
    entities.add({ all_of: "AllOf", any_of: "AnyOf", at_least_n: "AtLeastN", field_check: "FieldCheck" }[n.type]);
    n.conditions.forEach(walk);
  };
  if (t.verify_strategy) walk(t.verify_strategy);
  const primitives = new Set(t.fields.map((f) => f.verify_with!.type as string));
  if (JSON.stringify(t.fields.map((f) => f.verify_with)).includes('"mapping"')) primitives.add("SynonymMap");
  const out: string[] = [];
  if (t.fields.some((f) => f.type === "date")) out.push("from datetime import date");
  if (t.fields.some((f) => f.type === "literal")) out.push("from typing import Literal");
  out.push(`from karenina.schemas.entities import ${[...entities].sort().join(", ")}`);
  if (primitives.size) out.push(`from karenina.schemas.primitives import ${[...primitives].sort().join(", ")}`);
  return out;
}

function annotation(f: TemplateField): string {
  switch (f.type) {
    case "list_str":
      return "list[str]";
    case "literal":
      return `Literal[${(f.literal_values ?? []).map(py).join(", ")}]`;
    default:
      return f.type;
  }
}

function fieldLines(f: TemplateField): string[] {
  const vw = f.verify_with!;
  const params = Object.entries(vw.params as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${k === "normalize" && Array.isArray(v) ? normalizers(v) : py(v)}`);
  const out = [
    `    ${f.name}: ${annotation(f)} = VerifiedField(`,
    `        description=${py(f.description)},`,
    `        ground_truth=${py(f.ground_truth)},`,
    `        verify_with=${vw.type}(${params.join(", ")}),`,
  ];
  if (f.weight !== 1) out.push(`        weight=${py(f.weight)},`);
  if (f.extraction_hint != null) out.push(`        extraction_hint=${py(f.extraction_hint)},`);
  out.push("    )");
  return out;
}

function normalizers(list: unknown[]): string {
  return `[${list.map((n) => (typeof n === "object" && n !== null && "mapping" in n ? `SynonymMap(mapping=${py((n as { mapping: unknown }).mapping)})` : py(n))).join(", ")}]`;
}

function strategy(node: VerifyStrategy): string {
  const kids = `conditions=[${node.conditions.map(strategy).join(", ")}]`;
  switch (node.type) {
    case "all_of":
      return `AllOf(${kids})`;
    case "any_of":
      return `AnyOf(${kids})`;
    case "at_least_n":
      return `AtLeastN(n=${node.n}, ${kids})`;
    case "field_check":
      return `FieldCheck(field=${py(node.field_name)})`;
  }
}

/** JSON → a Python literal. JSON string escapes are valid Python escapes. */
export function py(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : v > 0 ? 'float("inf")' : v < 0 ? 'float("-inf")' : 'float("nan")';
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(py).join(", ")}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${JSON.stringify(k)}: ${py(x)}`)
    .join(", ")}}`;
}
