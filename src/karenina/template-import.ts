/**
 * A checkpoint's template source (Python) → edgeval's AnswerTemplate.
 *
 * - `VerifiedField(...)` templates (+ `class VerificationStrategy`, + `self.regex`) are read
 *   statically into the declarative template: fields, primitives, strategy tree, regex checks.
 * - Classic templates (`verify()` code) become `custom_verify: {language: "python", source}`; their
 *   fields come from the class annotations, their ground truths from `self.correct`, both read by
 *   the Python-subset interpreter, which also runs `verify()` at grading time.
 *
 * Anything outside what can be read or run is an error naming the line and the construct.
 */
import { AnswerTemplate, type AnswerTemplateInput, type FieldType } from "../templates/template-schema";
import {
  type CompiledTemplate,
  compileTemplate,
  type Expr,
  type FieldDecl,
  PyError,
  staticState,
  type Stmt,
  UnsupportedConstruct,
} from "../templates/python-subset";
import { exprSource, isCall, plainJson, type StaticCall, staticValue, type StaticValue } from "./static-value";

export type TemplateImport =
  | {
      ok: true;
      template: AnswerTemplateInput;
      warnings: string[];
      /**
       * Fields whose ground truth is a `ConditionalGroundTruth(...)` (scenarios): the template holds
       * each one's default case, this its cases, in the shape of a scenario node's
       * `conditional_ground_truth` (src/scenarios).
       */
      conditional?: Record<string, ConditionalCases>;
    }
  | { ok: false; error: string };

interface GroundTruthCase {
  value: unknown;
  verify_with?: { type: string; params: Record<string, unknown> };
}
export interface ConditionalCases {
  source: string;
  cases: Record<string, GroundTruthCase>;
  default: GroundTruthCase;
}

export function importTemplate(source: string): TemplateImport {
  const compiled = compileTemplate(source);
  if (!compiled.ok) return { ok: false, error: compiled.error };
  const warnings: string[] = [];
  const conditional: Record<string, ConditionalCases> = {};
  let template: AnswerTemplateInput;
  try {
    template = buildTemplate(compiled.template, source, warnings, conditional);
  } catch (e) {
    if (e instanceof UnsupportedConstruct) return { ok: false, error: e.message };
    // ground_truth()/model_post_init() raised while reading self.correct statically.
    if (e instanceof PyError) return { ok: false, error: `reading self.correct: ${e.describe()}` };
    if (e instanceof RangeError) return { ok: false, error: "reading self.correct: RecursionError (the template recursed too deeply)" };
    throw e;
  }
  const checked = AnswerTemplate.safeParse(template);
  if (!checked.success) {
    const issues = checked.error.issues.map((i) => `${i.path.join(".") || "template"}: ${i.message}`);
    return { ok: false, error: `the template does not fit edgeval's template: ${issues.join("; ")}` };
  }
  return { ok: true, template, warnings, ...(Object.keys(conditional).length ? { conditional } : {}) };
}

function buildTemplate(
  t: CompiledTemplate,
  source: string,
  warnings: string[],
  conditional: Record<string, ConditionalCases>,
): AnswerTemplateInput {
  const verified = t.fields.filter((f) => f.value?.k === "call" && calleeName(f.value) === "VerifiedField");
  // Only an own verify() replaces VerifiedField's declarative verdict; helpers do not.
  const hasCode = t.methods.has("verify");
  const state = staticState(t);
  const regex = regexChecks(state.regex, warnings);
  if (verified.length > 0 && !hasCode) {
    if (t.methods.has("verify_granular")) {
      // Refused, not dropped: edgeval's declarative grading has no place to run the override, and
      // silently scoring with the default instead would change verify_granular_result.
      const line = source.split("\n").findIndex((l) => /^\s*def\s+verify_granular\s*\(/.test(l)) + 1;
      throw new UnsupportedConstruct(
        Math.max(line, 1),
        "verify_granular() override in a VerifiedField template",
        "edgeval computes the granular score from the VerifiedFields (Karenina's default); remove the override, or write a classic template with verify() to run your own code",
      );
    }
    if (verified.length !== t.fields.length) {
      const plain = t.fields.find((f) => !verified.includes(f))!;
      throw new UnsupportedConstruct(plain.line, `field ${plain.name} without VerifiedField in a VerifiedField template`);
    }
    return {
      class_name: t.className,
      fields: verified.map((f) => verifiedField(f, conditional)),
      ...(t.strategy ? { verify_strategy: strategyOf(t.strategy) } : {}),
      ...(regex.length ? { regex } : {}),
    };
  }
  if (!t.methods.has("verify")) {
    if (t.fields.length === 0 && regex.length) return { class_name: t.className, fields: [], regex };
    throw new UnsupportedConstruct(1, "classic template without verify()");
  }
  const correct = state.correct ?? {};
  return {
    class_name: t.className,
    fields: t.fields.map((f) => classicField(f, correct)),
    ...(regex.length ? { regex } : {}),
    custom_verify: { language: "python", source },
  };
}

const calleeName = (e: Expr) => (e.k === "call" ? (e.fn.k === "name" ? e.fn.id : e.fn.k === "attr" ? e.fn.name : null) : null);

/** Python annotation → field type (+ literal values). Optional[X] and X | None read as X. */
export function fieldType(ann: Expr, line: number): { type: FieldType; literal_values?: string[] } {
  const simple: Record<string, FieldType> = { int: "int", float: "float", str: "str", bool: "bool", date: "date" };
  if (ann.k === "name" && simple[ann.id]) return { type: simple[ann.id]! };
  if (ann.k === "attr" && ann.name === "date") return { type: "date" };
  if (ann.k === "bin" && ann.op === "|") {
    const parts = [ann.l, ann.r].filter((p) => !(p.k === "const" && p.v === null));
    if (parts.length === 1) return fieldType(parts[0]!, line);
  }
  if (ann.k === "index" && ann.obj.k === "name") {
    const head = ann.obj.id;
    const items = ann.index.k === "tuple" ? ann.index.items : [ann.index];
    if (head === "Optional" && items.length === 1) return fieldType(items[0]!, line);
    if ((head === "list" || head === "List") && items.length === 1 && items[0]!.k === "name" && items[0]!.id === "str")
      return { type: "list_str" };
    if (head === "Literal" && items.every((i) => i.k === "const" && typeof i.v === "string")) {
      return { type: "literal", literal_values: items.map((i) => (i as { v: string }).v) };
    }
  }
  throw new UnsupportedConstruct(
    line,
    `field type ${exprSource(ann)}`,
    "supported: bool, int, float, str, date, list[str], Literal[...], Optional[...]",
  );
}

function kwargsOf(call: StaticCall, positional: string[]): Record<string, StaticValue> {
  const out: Record<string, StaticValue> = { ...call.kwargs };
  call.args.forEach((a, i) => {
    const name = positional[i];
    if (!name) throw new UnsupportedConstruct(call.line, `positional argument ${i + 1} of ${call.call}`);
    out[name] = a;
  });
  return out;
}

const VERIFIED_FIELD_ARGS = ["description", "ground_truth", "verify_with", "weight", "extraction_hint"];

function verifiedField(
  f: FieldDecl,
  conditional: Record<string, ConditionalCases>,
): AnswerTemplateInput["fields"] extends (infer F)[] | undefined ? F : never {
  const call = staticValue(f.value!) as StaticCall;
  const args = kwargsOf(call, VERIFIED_FIELD_ARGS);
  // Pydantic defaults only matter when the judge leaves a field out; edgeval's judge schema
  // makes every field optional anyway, so they carry nothing to keep.
  const extra = Object.keys(args).filter((k) => !VERIFIED_FIELD_ARGS.includes(k) && k !== "default" && k !== "default_factory");
  if (extra.length) throw new UnsupportedConstruct(f.line, `VerifiedField argument ${extra[0]}`);
  const gt = args.ground_truth ?? null;
  const vw = args.verify_with;
  if (!vw || !isCall(vw)) throw new UnsupportedConstruct(f.line, "VerifiedField without verify_with=Primitive(...)");
  if (vw.args.length) throw new UnsupportedConstruct(vw.line, `positional arguments to ${vw.call}`);
  const primitive = { type: vw.call, params: primitiveParams(vw) };
  // Karenina grades a conditional field with its default case outside a scenario: so does the template.
  const cgt = isCall(gt) ? conditionalGroundTruth(gt) : null;
  if (cgt) conditional[f.name] = cgt;
  return {
    name: f.name,
    ...fieldType(f.annotation, f.line),
    description: String(args.description ?? ""),
    ...(args.extraction_hint != null ? { extraction_hint: String(args.extraction_hint) } : {}),
    ground_truth: cgt ? cgt.default.value : plainJson(gt, f.line, "ground_truth"),
    verify_with: cgt?.default.verify_with ?? primitive,
    ...(args.weight != null ? { weight: args.weight as number } : {}),
  };
}

/** `ConditionalGroundTruth(source=..., cases={...: GroundTruthCase(...)}, default=GroundTruthCase(...))`, read statically. */
function conditionalGroundTruth(call: StaticCall): ConditionalCases {
  if (call.call !== "ConditionalGroundTruth") throw new UnsupportedConstruct(call.line, `${call.call}(...) as ground truth`);
  const args = kwargsOf(call, ["source", "cases", "default"]);
  const source = args.source;
  if (typeof source !== "string") throw new UnsupportedConstruct(call.line, "ConditionalGroundTruth without source='node_results...'");
  const cases = args.cases;
  if (!cases || typeof cases !== "object" || Array.isArray(cases) || isCall(cases))
    throw new UnsupportedConstruct(call.line, "ConditionalGroundTruth cases that are not a dict of GroundTruthCase(...)");
  if (!args.default) throw new UnsupportedConstruct(call.line, "ConditionalGroundTruth without default=GroundTruthCase(...)");
  return {
    source,
    cases: Object.fromEntries(Object.entries(cases).map(([k, v]) => [k, groundTruthCase(v, call.line)])),
    default: groundTruthCase(args.default, call.line),
  };
}

function groundTruthCase(v: StaticValue, line: number): GroundTruthCase {
  if (!isCall(v) || v.call !== "GroundTruthCase")
    throw new UnsupportedConstruct(line, "a conditional case that is not GroundTruthCase(value=..., verify_with=...)");
  const args = kwargsOf(v, ["value", "verify_with"]);
  const vw = args.verify_with;
  if (vw != null && !isCall(vw)) throw new UnsupportedConstruct(v.line, "GroundTruthCase verify_with that is not Primitive(...)");
  return {
    value: plainJson(args.value ?? null, v.line, "GroundTruthCase value"),
    ...(vw ? { verify_with: { type: vw.call, params: primitiveParams(vw) } } : {}),
  };
}

/** Primitive params; `SynonymMap(mapping={...})` inside `normalize` becomes `{mapping: {...}}`. */
function primitiveParams(vw: StaticCall): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(vw.kwargs)) {
    if (k === "normalize" && Array.isArray(v)) {
      out[k] = v.map((n) => {
        if (!isCall(n)) return plainJson(n, vw.line, `${vw.call}.normalize`);
        if (n.call !== "SynonymMap") throw new UnsupportedConstruct(n.line, `normalizer ${n.call}`);
        return { mapping: plainJson(kwargsOf(n, ["mapping"]).mapping ?? {}, n.line, "SynonymMap") };
      });
    } else out[k] = plainJson(v, vw.line, `${vw.call} parameters`);
  }
  return out;
}

function classicField(f: FieldDecl, correct: Record<string, unknown>) {
  const { type, literal_values } = fieldType(f.annotation, f.line);
  let description = f.name;
  if (f.value?.k === "call" && (calleeName(f.value) === "Field" || calleeName(f.value) === "VerifiedField")) {
    const d = f.value.kwargs.find(([k]) => k === "description")?.[1];
    if (d?.k === "const" && typeof d.v === "string" && d.v.trim()) description = d.v;
  }
  const gt = correct[f.name];
  return {
    name: f.name,
    type,
    ...(literal_values ? { literal_values } : {}),
    description,
    ground_truth: fits(type, gt, literal_values) ? gt : null,
  };
}

function fits(type: FieldType, v: unknown, literals?: string[]): boolean {
  switch (type) {
    case "bool":
      return typeof v === "boolean";
    case "int":
      return typeof v === "number" && Number.isInteger(v);
    case "float":
      return typeof v === "number";
    case "str":
    case "date":
      return typeof v === "string";
    case "list_str":
      return Array.isArray(v) && v.every((x) => typeof x === "string");
    case "literal":
      return typeof v === "string" && (literals ?? []).includes(v);
  }
}

const STRATEGIES: Record<string, "all_of" | "any_of" | "at_least_n" | "field_check"> = {
  AllOf: "all_of",
  AnyOf: "any_of",
  AtLeastN: "at_least_n",
  FieldCheck: "field_check",
};

function strategyOf(body: Stmt[]) {
  const assign = body.find((s) => s.k === "assign" && s.targets.some((t) => t.k === "name" && t.id === "verify_strategy"));
  if (!assign || assign.k !== "assign")
    throw new UnsupportedConstruct(body[0]?.line ?? 1, "VerificationStrategy without verify_strategy = ...");
  return strategyNode(staticValue(assign.value), assign.line);
}

type StrategyInput = {
  type: "all_of" | "any_of" | "at_least_n" | "field_check";
  n?: number;
  field_name?: string;
  conditions?: StrategyInput[];
};

function strategyNode(v: StaticValue, line: number): StrategyInput {
  if (!isCall(v) || !STRATEGIES[v.call])
    throw new UnsupportedConstruct(line, "verify_strategy node", "expected AllOf, AnyOf, AtLeastN or FieldCheck");
  const type = STRATEGIES[v.call]!;
  if (type === "field_check") return { type, field_name: String(kwargsOf(v, ["field"]).field) };
  const args = kwargsOf(v, type === "at_least_n" ? ["n", "conditions"] : ["conditions"]);
  const conditions = Array.isArray(args.conditions) ? args.conditions.map((c) => strategyNode(c, v.line)) : [];
  return type === "at_least_n" ? { type, n: args.n as number, conditions } : { type, conditions };
}

/** `self.regex = {name: {pattern, expected, match_type}}` → the template's regex checks. */
function regexChecks(regex: Record<string, unknown> | null, warnings: string[]) {
  if (!regex) return [];
  return Object.entries(regex).map(([name, spec]) => {
    const s = (spec ?? {}) as Record<string, unknown>;
    if (s.match_type === undefined) warnings.push(`self.regex ${name}: no match_type, Karenina's default "exact" applies`);
    return { name, pattern: s.pattern as string, expected: s.expected as string, match_type: (s.match_type as "exact") ?? "exact" };
  });
}
