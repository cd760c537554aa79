/**
 * Python `re` patterns for the grading core: compiled once by `regex/` (Python 3.11's rules and
 * messages, edgeval's caps) and memoised, since templates repeat the same few patterns for every
 * result. Matching goes through the compiled pattern's methods, each with a counted step budget
 * (`regex/README.md`): no pattern runs on the host's backtracking RegExp engine.
 */
import { compilePattern, type CompiledPattern } from "./regex";

export { RegexBudgetExceeded, Subject, type CompiledRegex, type FindallItem } from "./regex";

export function compilePythonRegex(pattern: string): CompiledPattern {
  let t = COMPILED.get(pattern);
  if (t === undefined) {
    if (COMPILED.size >= MAX_COMPILED) COMPILED.clear();
    t = compilePattern(pattern);
    COMPILED.set(pattern, t);
  }
  return t;
}
const COMPILED = new Map<string, CompiledPattern>();
const MAX_COMPILED = 512;

/** `null` when the pattern can be honoured, else what is wrong with it (for submit-time checks). */
export function validateRegexPattern(pattern: string): string | null {
  const t = compilePythonRegex(pattern);
  return t.ok ? null : t.error;
}
