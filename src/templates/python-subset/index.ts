/**
 * The Python subset for classic Karenina templates (see README.md for what it runs).
 * Pure TypeScript: no wasm, no eval; used by the import (static reading) and by the code
 * verifier port (running `verify()`).
 */
import type { CodeVerifyOutcome, CodeVerifyRequest } from "../code-verify";
import { parseModule } from "./parse";
import { type CompiledTemplate, compileTemplate, runVerify } from "./template";

export {
  compileTemplate,
  instantiate,
  runVerify,
  staticState,
  type CompiledTemplate,
  type CompileResult,
  type FieldDecl,
} from "./template";
export { parseModule };
export { UnsupportedConstruct, type Expr, type Stmt } from "./ast";
export { DEFAULT_STEP_BUDGET } from "./interpret";
export { PyError } from "./values";

/** Compiled templates by source: a run grades the same template many times. */
const cache = new Map<string, CompiledTemplate | string>();
const CACHE_LIMIT = 256;

/** Why this source is outside the subset (first construct, with its line), or null when it compiles. */
export function pythonSubsetProblem(source: string): string | null {
  const c = compiled(source);
  return typeof c === "string" ? c : null;
}

function compiled(source: string): CompiledTemplate | string {
  const hit = cache.get(source);
  if (hit !== undefined) return hit;
  const r = compileTemplate(source);
  const value = r.ok ? r.template : r.error;
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(source, value);
  return value;
}

/**
 * Why this source cannot be a Python custom_verify at all, or null. The Python contract is a
 * Karenina answer class (`class Answer(BaseAnswer)` with `def verify(self)`); a module with no
 * class — typically the JavaScript contract's `def verify(answer, ground_truth, context)` written
 * in Python — is refused when the template is submitted, not on every job. Sources that do not
 * parse, or use constructs outside the subset, are left to the compile step (template_validation).
 */
export function pythonContractProblem(source: string): string | null {
  let module: ReturnType<typeof parseModule>;
  try {
    module = parseModule(source);
  } catch {
    return null;
  }
  const classes = module.filter((s): s is Extract<typeof s, { k: "class" }> => s.k === "class");
  if (classes.some((c) => c.body.some((s) => s.k === "def" && s.name === "verify"))) return null;
  if (classes.length > 0) {
    return `class ${classes[0]!.name} (line ${classes[0]!.line}) defines no verify(self); every job would fail: add def verify(self) returning a bool`;
  }
  const fn = module.find((s) => s.k === "def" && s.name === "verify");
  return (
    (fn ? `a module-level def verify(...) (line ${fn.line}) is the JavaScript contract; ` : "no answer class; ") +
    "Python custom_verify is a Karenina answer class: class Answer(BaseAnswer) with the fields (name: str = Field(...)), " +
    "self.correct set in model_post_init or ground_truth(), and def verify(self) returning a bool " +
    "(src/templates/python-subset/README.md)"
  );
}

/** The `python` branch of the code verifier port: Karenina's verify() on the judge's fields. */
export function verifyPython(req: CodeVerifyRequest, budget?: number): CodeVerifyOutcome {
  const t = compiled(req.source);
  if (typeof t === "string") return { ok: false, error: t };
  const r = runVerify(t, req.parsed, budget);
  if (!r.ok) return r;
  return { ok: true, verify_result: r.verify_result, verify_granular_result: r.verify_granular_result, field_results: null };
}
