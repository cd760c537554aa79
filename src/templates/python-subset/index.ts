/**
 * The Python subset for classic Karenina templates (see README.md for what it runs).
 * Pure TypeScript: no wasm, no eval; used by the import (static reading) and by the code
 * verifier port (running `verify()`).
 */
import type { CodeVerifyOutcome, CodeVerifyRequest } from "../code-verify";
import { type CompiledTemplate, compileTemplate, runVerify } from "./template";

export { compileTemplate, instantiate, runVerify, staticState, type CompiledTemplate, type CompileResult, type FieldDecl } from "./template";
export { parseModule } from "./parse";
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

/** The `python` branch of the code verifier port: Karenina's verify() on the judge's fields. */
export function verifyPython(req: CodeVerifyRequest, budget?: number): CodeVerifyOutcome {
  const t = compiled(req.source);
  if (typeof t === "string") return { ok: false, error: t };
  const r = runVerify(t, req.parsed, budget);
  if (!r.ok) return r;
  return { ok: true, verify_result: r.verify_result, verify_granular_result: r.verify_granular_result, field_results: null };
}
