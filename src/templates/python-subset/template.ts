/**
 * A Karenina answer-template module, compiled once: the answer class, its annotated fields, its
 * methods (`verify`, `verify_granular`, `ground_truth`, `model_post_init`, helpers) and its
 * `VerificationStrategy`. Running it mirrors Karenina: build the instance from the judge's fields,
 * run `ground_truth()` / `model_post_init()` (which set `self.correct`, maybe `self.regex`), then
 * call `verify()` and, if defined, `verify_granular()`.
 */
import { type Expr, type FunctionDef, type Stmt, UnsupportedConstruct } from "./ast";
import { DEFAULT_STEP_BUDGET, Interpreter } from "./interpret";
import { parseModule } from "./parse";
import { fromJson, PyError, PyObject, type PyValue, toJson, truthy, typeName } from "./values";

export interface FieldDecl {
  name: string;
  annotation: Expr;
  /** `Field(...)` / `VerifiedField(...)` / a default; null for a bare annotation. */
  value: Expr | null;
  line: number;
}

export interface CompiledTemplate {
  className: string;
  fields: FieldDecl[];
  methods: Map<string, FunctionDef>;
  /** The body of the nested `class VerificationStrategy`, if any. */
  strategy: Stmt[] | null;
  /** Module-level assignments and functions, run once per instance to build the globals. */
  moduleCode: Stmt[];
}

export type CompileResult = { ok: true; template: CompiledTemplate } | { ok: false; line: number; construct: string; error: string };

const BASE_CLASSES = new Set(["BaseAnswer"]);
/** Nested classes Pydantic or Karenina read as configuration, not as models. */
const CONFIG_CLASSES = new Set(["Config", "VerificationStrategy"]);

export function compileTemplate(source: string): CompileResult {
  try {
    return { ok: true, template: compile(parseModule(source)) };
  } catch (e) {
    if (e instanceof UnsupportedConstruct) return { ok: false, line: e.line, construct: e.construct, error: e.message };
    // The tree walk recurses: absurd nesting ends here, not in a crashed request.
    if (e instanceof RangeError)
      return { ok: false, line: 1, construct: "deep nesting", error: "the template nests expressions too deeply to read" };
    throw e;
  }
}

function compile(module: Stmt[]): CompiledTemplate {
  const classes = module.filter((s): s is Extract<Stmt, { k: "class" }> => s.k === "class");
  const moduleCode: Stmt[] = [];
  for (const s of module) {
    if (s.k === "def") refuseNestedDefinitions(s.body);
    if (s.k === "assign" || s.k === "def" || s.k === "annassign" || (s.k === "import" && (s.module === "re" || s.module === "math")))
      moduleCode.push(s);
    else if (s.k !== "class" && s.k !== "import" && !(s.k === "expr" && s.e.k === "const")) {
      throw new UnsupportedConstruct(s.line, `module-level ${s.k} statement`);
    }
  }
  // The answer class: derives from BaseAnswer, directly or through another class of the module.
  const answerish = new Set<string>(BASE_CLASSES);
  let grew = true;
  while (grew) {
    grew = false;
    for (const c of classes) {
      if (!answerish.has(c.name) && c.bases.some((b) => b.k === "name" && answerish.has(b.id))) {
        answerish.add(c.name);
        grew = true;
      }
    }
  }
  const answers = classes.filter((c) => answerish.has(c.name));
  const leaves = answers.filter((c) => !answers.some((o) => o.bases.some((b) => b.k === "name" && b.id === c.name)));
  const other = classes.find((c) => !answerish.has(c.name));
  if (other) throw new UnsupportedConstruct(other.line, `class ${other.name} (nested models)`, "only the answer class is supported");
  if (leaves.length > 1) {
    // Usually a nested model deriving from BaseAnswer next to the answer class.
    const extra = leaves.find((c) => c.name !== "Answer") ?? leaves[1]!;
    throw new UnsupportedConstruct(extra.line, `class ${extra.name} (nested models, or a second answer class)`);
  }
  if (leaves.length === 0) throw new UnsupportedConstruct(1, "template without a BaseAnswer class");
  // Fields and methods of every class in the chain, base first, so the leaf overrides.
  const chain: Extract<Stmt, { k: "class" }>[] = [];
  for (let c: (typeof classes)[number] | undefined = leaves[0]; c; ) {
    chain.unshift(c);
    const base = c.bases.find((b) => b.k === "name" && answerish.has(b.id) && !BASE_CLASSES.has(b.id));
    c = base && base.k === "name" ? classes.find((x) => x.name === base.id) : undefined;
  }
  const fields = new Map<string, FieldDecl>();
  const methods = new Map<string, FunctionDef>();
  let strategy: Stmt[] | null = null;
  for (const cls of chain) {
    for (const s of cls.body) {
      if (s.k === "annassign" && s.target.k === "name") {
        fields.set(s.target.id, { name: s.target.id, annotation: s.annotation, value: s.value, line: s.line });
      } else if (s.k === "def") methods.set(s.name, functionOf(s));
      else if (s.k === "class" && CONFIG_CLASSES.has(s.name)) {
        if (s.name === "VerificationStrategy") strategy = s.body;
      } else if (s.k === "class") throw new UnsupportedConstruct(s.line, `nested class ${s.name}`);
      else if (s.k === "assign" && s.targets.every((t) => t.k === "name" && t.id === "model_config")) continue;
      else if (!(s.k === "expr" && s.e.k === "const") && s.k !== "pass") {
        throw new UnsupportedConstruct(s.line, `class-level ${s.k} statement`);
      }
    }
  }
  return { className: leaves[0]!.name, fields: [...fields.values()], methods, strategy, moduleCode };
}

/** A method as the interpreter runs it; nested definitions are refused here, at compile time. */
function functionOf(s: Extract<Stmt, { k: "def" }>): FunctionDef {
  refuseNestedDefinitions(s.body);
  return { params: s.params, defaults: s.defaults, body: s.body };
}

function refuseNestedDefinitions(body: Stmt[]): void {
  for (const s of body) {
    if (s.k === "def" || s.k === "class")
      throw new UnsupportedConstruct(s.line, s.k === "def" ? "nested function definition" : "class inside a function");
    if (s.k === "if") {
      refuseNestedDefinitions(s.body);
      refuseNestedDefinitions(s.orelse);
    } else if (s.k === "for" || s.k === "while") refuseNestedDefinitions(s.body);
    else if (s.k === "try") {
      for (const b of [s.body, s.orelse, s.final, ...s.handlers.map((h) => h.body)]) refuseNestedDefinitions(b);
    }
  }
}

export interface Instance {
  interp: Interpreter;
  self: PyObject;
}

/** Builds `self` as Karenina would after parsing: fields set, `ground_truth`/`model_post_init` run. */
export function instantiate(t: CompiledTemplate, parsed: Record<string, unknown>, budget = DEFAULT_STEP_BUDGET): Instance {
  const globals = new Map<string, PyValue>();
  const interp = new Interpreter(globals, budget);
  for (const s of t.moduleCode) {
    if (s.k === "def") {
      const fn = s;
      globals.set(s.name, { callable: true, name: s.name, call: (args, kwargs) => interp.callFunction(fn, args, kwargs) });
    } else interp.block([s], globals);
  }
  const self = new PyObject(t.className, t.methods);
  self.attrs.set("id", null);
  for (const f of t.fields) self.attrs.set(f.name, fromJson(parsed[f.name]));
  const declared = verifiedGroundTruths(t, interp, globals);
  if (declared) self.attrs.set("correct", declared);
  const gt = t.methods.get("ground_truth");
  if (gt) {
    const returned = interp.callFunction(gt, [self]);
    if (!self.attrs.has("correct") && returned instanceof Map) self.attrs.set("correct", returned);
  }
  const post = t.methods.get("model_post_init");
  if (post) interp.callFunction(post, [self, null]);
  return { interp, self };
}

/**
 * Karenina fills `self.correct` with `{field: ground_truth}` for VerifiedField fields before
 * `model_post_init` runs (conditional ground truths excluded); a classic `verify()` may read it.
 */
function verifiedGroundTruths(t: CompiledTemplate, interp: Interpreter, globals: Map<string, PyValue>): Map<PyValue, PyValue> | null {
  let out: Map<PyValue, PyValue> | null = null;
  for (const f of t.fields) {
    const v = f.value;
    if (v?.k !== "call" || v.fn.k !== "name" || v.fn.id !== "VerifiedField") continue;
    const gt = v.kwargs.find(([k]) => k === "ground_truth")?.[1] ?? v.args[1];
    if (!gt || (gt.k === "call" && gt.fn.k === "name" && gt.fn.id === "ConditionalGroundTruth")) continue;
    (out ??= new Map()).set(f.name, interp.eval(gt, globals));
  }
  return out;
}

/**
 * The placeholder Karenina gives a field when it builds a test instance to read `self.correct`
 * (`create_test_instance_from_answer_class`): 0, "", 0.0, False, [], a Literal's first value,
 * and "" for anything else (Optional[...] included).
 */
function placeholder(annotation: Expr): unknown {
  if (annotation.k === "name") {
    const byName: Record<string, unknown> = { int: 0, float: 0, str: "", bool: false, list: [] };
    return annotation.id in byName ? byName[annotation.id] : "";
  }
  if (annotation.k === "index" && annotation.obj.k === "name") {
    if (annotation.obj.id === "Literal") {
      const first = annotation.index.k === "tuple" ? annotation.index.items[0] : annotation.index;
      return first?.k === "const" ? first.v : "";
    }
    if (annotation.obj.id === "list" || annotation.obj.id === "List") return [];
  }
  return "";
}

/** `self.correct` and `self.regex` as JSON, from a test instance built as Karenina builds it (import time). */
export function staticState(t: CompiledTemplate): { correct: Record<string, unknown> | null; regex: Record<string, unknown> | null } {
  const { self } = instantiate(t, Object.fromEntries(t.fields.map((f) => [f.name, placeholder(f.annotation)])));
  const correct = self.attrs.get("correct");
  // Karenina's template validation refuses the same thing.
  if (correct !== undefined && correct !== null && !(correct instanceof Map)) {
    throw new PyError("TypeError", `ground_truth/model_post_init must assign 'self.correct' as a dictionary, not '${typeName(correct)}'`);
  }
  const json = (name: string) => {
    const v = self.attrs.get(name);
    return v instanceof Map ? (toJson(v) as Record<string, unknown>) : null;
  };
  return { correct: json("correct"), regex: json("regex") };
}

export type RunOutcome = { ok: true; verify_result: boolean; verify_granular_result: number | null } | { ok: false; error: string };

/** Karenina's verify step for a classic template; any Python error is an outcome, never a throw. */
export function runVerify(t: CompiledTemplate, parsed: Record<string, unknown>, budget = DEFAULT_STEP_BUDGET): RunOutcome {
  const verify = t.methods.get("verify");
  if (!verify) return { ok: false, error: "the template defines no verify() method" };
  try {
    const { interp, self } = instantiate(t, parsed, budget);
    const verdict = truthy(interp.callFunction(verify, [self]));
    const granularFn = t.methods.get("verify_granular");
    let granular: number | null = null;
    if (granularFn) {
      const g = interp.callFunction(granularFn, [self]);
      if (typeof g !== "number" && typeof g !== "boolean") {
        return { ok: false, error: `verify_granular() must return a number, it returned '${typeName(g)}'` };
      }
      granular = Math.min(1, Math.max(0, Number(g)));
    }
    return { ok: true, verify_result: verdict, verify_granular_result: granular };
  } catch (e) {
    if (e instanceof PyError) return { ok: false, error: e.describe() };
    if (e instanceof RangeError) return { ok: false, error: "RecursionError: the template recursed too deeply" };
    throw e;
  }
}
