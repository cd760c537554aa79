/** Regex traits: Python `re.search` semantics through the core's budgeted regex engine. */
import type { RegexRubricTrait } from "../schemas/rubric";
import { compilePythonRegex, RegexBudgetExceeded, Subject } from "../templates/python-regex";

/**
 * true/false, or an error string when the pattern cannot be compiled (the schema checks it first)
 * or the search runs out of its step budget: an undecided trait, never a false one.
 */
export function evaluateRegexTrait(t: RegexRubricTrait, text: string): boolean | { error: string } {
  const compiled = compilePythonRegex(t.case_sensitive ? t.pattern : `(?i)${t.pattern}`);
  if (!compiled.ok) return { error: compiled.error };
  let found: boolean;
  try {
    found = compiled.regex.search(new Subject(text)) !== null;
  } catch (e) {
    if (e instanceof RegexBudgetExceeded) return { error: e.message };
    throw e;
  }
  return t.invert_result ? !found : found;
}
