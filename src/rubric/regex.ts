/** Regex traits: Python `re.search` semantics through the Python-regex translator. */
import type { RegexRubricTrait } from "../schemas/rubric";
import { compilePythonRegex } from "../templates/python-regex";

/** true/false, or an error string when the pattern cannot be compiled (the schema checks it first). */
export function evaluateRegexTrait(t: RegexRubricTrait, text: string): boolean | { error: string } {
  const compiled = compilePythonRegex(t.case_sensitive ? t.pattern : `(?i)${t.pattern}`);
  if (!compiled.ok) return { error: compiled.error };
  compiled.regex.lastIndex = 0;
  const found = compiled.regex.test(text);
  return t.invert_result ? !found : found;
}
