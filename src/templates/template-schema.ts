/**
 * Answer templates (Karenina's declarative `TemplateSpec`: VerifiedFields + composition tree,
 * plus the `self.regex` checks of classic templates, here as data).
 *
 * What is checked at submit time, so a bad template never reaches a judge:
 * field names (identifier-like, unique, not Karenina's reserved `id`/`correct`), ground truth
 * fitting the field type, `literal_values` iff `literal`, the primitive name and its params
 * (through the one primitive registry), the composition tree (`n`, `field_name` naming a real
 * field), regex patterns (Python syntax edgeval can honour) and `expected` per `match_type`.
 */
import { z } from "zod";
import { whenMissing } from "../lib/wire-issues";
import { pythonContractProblem, pythonSubsetProblem } from "./python-subset";
import { PRIMITIVES, isPrimitiveName } from "./primitives/registry";
import type { AnyPrimitive } from "./primitives/types";
import { VerifyWithSchema } from "./primitives/verify-with";
import { validateRegexPattern } from "./python-regex";

export const FIELD_TYPES = ["bool", "int", "float", "str", "list_str", "literal", "date"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Pydantic field names: a Python identifier not starting with `_` (those are private attributes). */
const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_]*$/;
/** `id` is BaseAnswer's inherited field and `correct` holds the ground truth in Karenina. */
const RESERVED_FIELD_NAMES = new Set(["id", "correct"]);

const FieldName = z
  .string({ error: whenMissing("name is required: an identifier like gene_symbol") })
  .regex(IDENTIFIER, { error: "name must be an identifier: a letter, then letters, digits or _" })
  .refine((n) => !RESERVED_FIELD_NAMES.has(n), { error: 'name "id" and "correct" are reserved by Karenina\'s BaseAnswer' });

const JsonValue = z.custom<unknown>((v) => v !== undefined, {
  error: "ground_truth is required: a value of the field's type, or null",
});

export const TemplateField = z
  .strictObject({
    name: FieldName,
    type: z.enum(FIELD_TYPES, { error: `type is one of ${FIELD_TYPES.join(", ")}` }),
    literal_values: z
      .array(z.string({ error: "literal_values holds strings" }))
      .min(1, { error: "literal_values needs at least one value" })
      .nullish(),
    description: z
      .string({ error: whenMissing("description is required: what the judge should extract") })
      .refine((d) => d.trim().length > 0, { error: "description must not be empty (Karenina's VerifiedField refuses it)" }),
    extraction_hint: z.string().nullish(),
    ground_truth: JsonValue,
    /** Required unless the template has `custom_verify` (then forbidden: the code decides). */
    verify_with: VerifyWithSchema.optional(),
    weight: z.number({ error: "weight must be a number > 0" }).positive({ error: "weight must be > 0" }).finite().default(1),
    /** TemplateSpec compatibility: true exactly when `verify_with` is a trace primitive (optional). */
    is_trace: z.boolean({ error: "is_trace must be true or false" }).optional(),
  })
  .superRefine((field, ctx) => {
    const hasValues = field.literal_values != null;
    if (field.type === "literal" && !hasValues) {
      ctx.addIssue({ code: "custom", path: ["literal_values"], message: "a literal field needs literal_values (its allowed values)" });
    }
    if (field.type !== "literal" && hasValues) {
      ctx.addIssue({
        code: "custom",
        path: ["literal_values"],
        message: `literal_values only applies to type "literal", not "${field.type}"`,
      });
    }
    if (hasValues && new Set(field.literal_values).size !== field.literal_values!.length) {
      ctx.addIssue({ code: "custom", path: ["literal_values"], message: "literal_values must not repeat a value" });
    }
    const problem = groundTruthProblem(field.type, field.ground_truth, field.literal_values ?? []);
    if (problem) ctx.addIssue({ code: "custom", path: ["ground_truth"], message: problem });
    traceProblems(field, ctx);
    groundTruthFitsPrimitive(field, ctx);
  });
export type TemplateField = z.output<typeof TemplateField>;

/**
 * Trace primitives (Karenina's TracePrimitive) read the raw answer, so their field is a bool
 * stating whether the condition should hold, and TemplateSpec's `is_trace` must agree.
 */
function traceProblems(field: { type: FieldType; is_trace?: boolean; verify_with?: { type: string } }, ctx: z.RefinementCtx): void {
  if (!field.verify_with || !isPrimitiveName(field.verify_with.type)) return;
  const name = field.verify_with.type;
  const isTrace = PRIMITIVES[name].kind === "trace";
  if (isTrace && field.type !== "bool") {
    ctx.addIssue({
      code: "custom",
      path: ["type"],
      message: `a ${name} field must have type "bool" (whether the raw answer should satisfy it), not "${field.type}"`,
    });
  }
  if (field.is_trace !== undefined && field.is_trace !== isTrace) {
    const message = isTrace
      ? `is_trace must be true (or left out) for the trace primitive ${name}`
      : `is_trace is true but ${name} is not a trace primitive (TraceRegex, TraceContains, TraceLength)`;
    ctx.addIssue({ code: "custom", path: ["is_trace"], message });
  }
}

/** A ground truth the primitive could never compare (e.g. null for NumericTolerance, "soon" for DateMatch). */
function groundTruthFitsPrimitive(
  field: { ground_truth?: unknown; verify_with?: { type: string; params: unknown } },
  ctx: z.RefinementCtx,
): void {
  if (!field.verify_with || !isPrimitiveName(field.verify_with.type)) return;
  const primitive = PRIMITIVES[field.verify_with.type] as unknown as AnyPrimitive;
  const problem = primitive.groundTruthProblem?.(field.ground_truth, field.verify_with.params);
  if (problem) ctx.addIssue({ code: "custom", path: ["ground_truth"], message: problem });
}

function groundTruthProblem(type: FieldType, gt: unknown, literalValues: string[]): string | null {
  if (gt === null) return null;
  const ok: Record<FieldType, boolean> = {
    bool: typeof gt === "boolean",
    int: typeof gt === "number" && Number.isInteger(gt),
    float: typeof gt === "number" && Number.isFinite(gt),
    str: typeof gt === "string",
    date: typeof gt === "string",
    list_str: Array.isArray(gt) && gt.every((x) => typeof x === "string"),
    literal: typeof gt === "string" && literalValues.includes(gt),
  };
  if (ok[type]) return null;
  const expected: Record<FieldType, string> = {
    bool: "true or false",
    int: "an integer",
    float: "a number",
    str: "a string",
    date: "a date string",
    list_str: "a list of strings",
    literal: `one of literal_values (${literalValues.map((v) => JSON.stringify(v)).join(", ")})`,
  };
  return `ground_truth must be ${expected[type]} (or null) for a ${type} field`;
}

export const STRATEGY_TYPES = ["all_of", "any_of", "at_least_n", "field_check"] as const;

export interface VerifyStrategy {
  type: (typeof STRATEGY_TYPES)[number];
  n?: number | null;
  field_name?: string | null;
  conditions: VerifyStrategy[];
}
export interface VerifyStrategyInput {
  type: (typeof STRATEGY_TYPES)[number];
  n?: number | null;
  field_name?: string | null;
  conditions?: VerifyStrategyInput[];
}

/** Karenina's AllOf / AnyOf / AtLeastN(n) / FieldCheck(field), nested to any depth. */
export const VerifyStrategy: z.ZodType<VerifyStrategy, VerifyStrategyInput> = z.lazy(() =>
  z
    .strictObject({
      type: z.enum(STRATEGY_TYPES, { error: `strategy type is one of ${STRATEGY_TYPES.join(", ")}` }),
      n: z.number().int({ error: "n must be an integer ≥ 0" }).min(0, { error: "n must be an integer ≥ 0" }).nullish(),
      field_name: z.string().min(1, { error: "field_name must name a field" }).nullish(),
      conditions: z.array(VerifyStrategy).default([]),
    })
    .superRefine((node, ctx) => {
      const add = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
      if (node.type === "at_least_n" && node.n == null) add("n", "at_least_n needs n: how many conditions must pass");
      if (node.type !== "at_least_n" && node.n != null) add("n", `n only applies to at_least_n, not ${node.type}`);
      if (node.type === "field_check") {
        if (node.field_name == null) add("field_name", "field_check needs field_name: the field it checks");
        if (node.conditions.length > 0) add("conditions", "field_check is a leaf: it takes no conditions");
      } else if (node.field_name != null) {
        add("field_name", `field_name only applies to field_check, not ${node.type}`);
      }
    }),
);

export const MATCH_TYPES = ["exact", "contains", "count", "all"] as const;

/** One `self.regex` entry of a classic Karenina template, run with `re.findall` on the raw answer. */
export const RegexCheck = z
  .strictObject({
    name: z.string({ error: whenMissing("name is required") }).min(1, { error: "name must not be empty" }),
    pattern: z
      .string({ error: whenMissing("pattern is required: a Python regular expression") })
      .min(1, { error: "pattern must not be empty" }),
    expected: z.union([z.string(), z.number(), z.array(z.string())], {
      error: "expected is a string (exact, contains), an integer (count) or a list of strings (all)",
    }),
    match_type: z.enum(MATCH_TYPES, { error: `match_type is one of ${MATCH_TYPES.join(", ")}` }).default("exact"),
  })
  .superRefine((check, ctx) => {
    const problem = validateRegexPattern(check.pattern);
    if (problem) ctx.addIssue({ code: "custom", path: ["pattern"], message: problem });
    const e = check.expected;
    const fits =
      check.match_type === "count"
        ? typeof e === "number" && Number.isInteger(e) && e >= 0
        : check.match_type === "all"
          ? Array.isArray(e) && e.length > 0
          : typeof e === "string";
    if (!fits) {
      const want = { exact: "a string", contains: "a string", count: "an integer ≥ 0", all: "a non-empty list of strings" };
      ctx.addIssue({
        code: "custom",
        path: ["expected"],
        message: `expected must be ${want[check.match_type]} for match_type "${check.match_type}"`,
      });
    }
  });
export type RegexCheck = z.output<typeof RegexCheck>;

/** Karenina's hand-written `verify()`, as source run in a sandbox (JS) or interpreter (Python subset). */
export const CUSTOM_VERIFY_LANGUAGES = ["javascript", "python"] as const;
const CUSTOM_VERIFY_MAX_BYTES = 200 * 1024;

export const CustomVerify = z
  .strictObject({
    language: z.enum(CUSTOM_VERIFY_LANGUAGES, { error: `language is one of ${CUSTOM_VERIFY_LANGUAGES.join(", ")}` }),
    source: z
      .string({ error: whenMissing("source is required: code defining verify(answer, ground_truth, context)") })
      .refine((s) => s.trim().length > 0, { error: "source must not be empty" })
      .refine((s) => new TextEncoder().encode(s).length <= CUSTOM_VERIFY_MAX_BYTES, {
        error: `source must be at most ${CUSTOM_VERIFY_MAX_BYTES / 1024} KB`,
      }),
  })
  .superRefine((custom, ctx) => {
    // The two languages have different contracts; a Python source written to the JavaScript one
    // would fail every job, so it is refused here (src/templates/python-subset/README.md).
    // Python compiles here (pure TS): a syntax error or a construct outside the subset is a 400
    // naming its line. JavaScript needs QuickJS, an edge module: src/sandbox/source-check.ts.
    const problem = custom.language === "python" ? (pythonContractProblem(custom.source) ?? pythonSubsetProblem(custom.source)) : null;
    if (problem) ctx.addIssue({ code: "custom", path: ["source"], message: problem });
  });
export type CustomVerify = z.output<typeof CustomVerify>;

export const AnswerTemplate = z
  .strictObject({
    /** TemplateSpec compatibility; also the judge schema's title. */
    class_name: z.string().regex(IDENTIFIER, { error: "class_name must be an identifier" }).optional(),
    fields: z.array(TemplateField, { error: "fields must be a list of fields" }).default([]),
    verify_strategy: VerifyStrategy.nullish(),
    regex: z.array(RegexCheck, { error: "regex must be a list of checks" }).optional(),
    custom_verify: CustomVerify.optional(),
  })
  .superRefine((template, ctx) => {
    if (template.fields.length === 0 && (template.regex ?? []).length === 0 && !template.custom_verify) {
      ctx.addIssue({
        code: "custom",
        path: ["fields"],
        message: "a template needs at least one field or one regex check (or custom_verify)",
      });
    }
    checkCustomVerifyRules(template, ctx);
    // Each weight is finite, but 1e308 + 1e308 is not: the granular score would become null.
    if (!Number.isFinite(template.fields.reduce((s, f) => s + (f.weight ?? 1), 0))) {
      ctx.addIssue({ code: "custom", path: ["fields"], message: "the fields' weights must sum to a finite number" });
    }
    reportDuplicates(
      template.fields.map((f) => f.name),
      "fields",
      "field",
      ctx,
    );
    reportDuplicates(
      (template.regex ?? []).map((r) => r.name),
      "regex",
      "regex check",
      ctx,
    );
    if (template.verify_strategy) {
      const names = new Set(template.fields.map((f) => f.name));
      checkFieldRefs(template.verify_strategy, ["verify_strategy"], names, ctx);
    }
  });
export type AnswerTemplate = z.output<typeof AnswerTemplate>;
export type AnswerTemplateInput = z.input<typeof AnswerTemplate>;

/** With custom_verify the code gives the field verdicts, so primitives and a strategy would be ignored: refuse them. */
function checkCustomVerifyRules(template: AnswerTemplate, ctx: z.RefinementCtx): void {
  const custom = template.custom_verify !== undefined;
  template.fields.forEach((field, i) => {
    const path = ["fields", i, "verify_with"];
    if (custom && field.verify_with) {
      ctx.addIssue({
        code: "custom",
        path,
        message: "verify_with is not allowed with custom_verify: the custom verify code decides every field",
      });
    }
    if (!custom && !field.verify_with) {
      ctx.addIssue({
        code: "custom",
        path,
        message: "verify_with is required: the primitive that checks this field (or give the template custom_verify)",
      });
    }
  });
  if (custom && template.verify_strategy) {
    ctx.addIssue({
      code: "custom",
      path: ["verify_strategy"],
      message: "verify_strategy is not allowed with custom_verify: the custom verify code decides the verdict",
    });
  }
}

function reportDuplicates(names: string[], list: string, what: string, ctx: z.RefinementCtx): void {
  const first = new Map<string, number>();
  names.forEach((name, i) => {
    if (first.has(name)) {
      ctx.addIssue({
        code: "custom",
        path: [list, i, "name"],
        message: `duplicate ${what} name "${name}" (first used at ${list}[${first.get(name)}])`,
      });
    } else first.set(name, i);
  });
}

function checkFieldRefs(node: VerifyStrategy, path: (string | number)[], names: Set<string>, ctx: z.RefinementCtx): void {
  if (node.type === "field_check" && node.field_name != null && !names.has(node.field_name)) {
    const known = [...names].join(", ") || "none";
    ctx.addIssue({
      code: "custom",
      path: [...path, "field_name"],
      message: `field_check names "${node.field_name}", which is not a field of this template (fields: ${known})`,
    });
  }
  node.conditions.forEach((child, i) => checkFieldRefs(child, [...path, "conditions", i], names, ctx));
}
