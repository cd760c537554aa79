/**
 * Conditional ground truth (Karenina `ConditionalGroundTruth`): a node's template field whose
 * ground truth (and optionally primitive) depends on what earlier turns found. The value at
 * `source`, a dot path into `{node_results}`, is turned into a string as Python's `str` does
 * (`True`, `3`, `'a'` → `a`) and picks `cases[value]`; `default` applies when the path reads
 * nothing or no case matches. The node's template is rewritten before the turn runs, so the
 * pipeline grades it like any template.
 *
 * At submit each case is checked as the field it would make (the template's own field rules:
 * type, primitive params, a ground truth the primitive can compare).
 */
import { pyStr } from "../templates/python";
import { type AnswerTemplate, TemplateField } from "../templates/template-schema";
import type { ConditionalGroundTruth, GroundTruthCase } from "./scenario-schema";
import type { NodeResult } from "./state";

export type ConditionalGroundTruths = Record<string, ConditionalGroundTruth>;

/** The template with each conditional field's case for these node results. */
export function resolveGroundTruths(
  template: AnswerTemplate,
  conditional: ConditionalGroundTruths | null | undefined,
  nodeResults: Record<string, NodeResult>,
): AnswerTemplate {
  if (!conditional || Object.keys(conditional).length === 0) return template;
  const fields = template.fields.map((f) => {
    const c = Object.hasOwn(conditional, f.name) ? conditional[f.name]! : undefined;
    return c ? withCase(f, pickCase(c, { node_results: nodeResults })) : f;
  });
  return { ...template, fields };
}

export function pickCase(c: ConditionalGroundTruth, context: Record<string, unknown>): GroundTruthCase {
  const value = readPath(c.source, context);
  if (value === null || value === undefined) return c.default;
  const key = pyStr(value);
  return Object.hasOwn(c.cases, key) ? c.cases[key]! : c.default;
}

function withCase(field: AnswerTemplate["fields"][number], chosen: GroundTruthCase) {
  return { ...field, ground_truth: chosen.value, ...(chosen.verify_with ? { verify_with: chosen.verify_with } : {}) };
}

/** Karenina's `_resolve_dot_path` over nested objects: null as soon as a key is missing. */
function readPath(path: string, context: Record<string, unknown>): unknown {
  let at: unknown = context;
  for (const part of path.split(".")) {
    if (!at || typeof at !== "object" || Array.isArray(at) || !Object.hasOwn(at, part)) return null;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

export interface CaseIssue {
  path: PropertyKey[];
  message: string;
}

/** Fields the template lacks, and cases that would make an invalid field, with their paths. */
export function conditionalGroundTruthIssues(template: AnswerTemplate | undefined, conditional: ConditionalGroundTruths): CaseIssue[] {
  const issues: CaseIssue[] = [];
  for (const [name, c] of Object.entries(conditional)) {
    const field = template?.fields.find((f) => f.name === name);
    if (!field) {
      const names = template ? template.fields.map((f) => f.name).join(", ") : "none: the question has no template";
      issues.push({ path: [name], message: `the question's template has no field "${name}"; its fields: ${names}` });
      continue;
    }
    if (!c.source.startsWith("node_results."))
      issues.push({
        path: [name, "source"],
        message: "source reads the scenario context: node_results.<node>.<verify_result|parsed.<field>|rubric.<trait>>",
      });
    const cases: [PropertyKey[], GroundTruthCase][] = [
      ...Object.entries(c.cases).map(([k, v]) => [["cases", k], v] as [PropertyKey[], GroundTruthCase]),
      [["default"], c.default],
    ];
    for (const [at, chosen] of cases) {
      const parsed = TemplateField.safeParse(withCase(field, chosen));
      if (!parsed.success) {
        for (const i of parsed.error.issues)
          issues.push({ path: [name, ...at, ...(i.path[0] === "ground_truth" ? ["value"] : i.path)], message: i.message });
      }
    }
  }
  return issues;
}
