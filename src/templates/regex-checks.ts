/**
 * Template regex checks on the raw answer (Karenina `BaseAnswer.verify_regex`).
 *
 * Each check runs Python-`re.findall` semantics over the raw trace: without groups a match is
 * the whole match, with one group it is that group ("" when it did not take part), with several
 * it is the list of groups. Then, by `match_type`:
 *   exact    — exactly one match and it equals `expected`
 *   contains — `expected` is among the matches
 *   count    — the number of matches equals `expected`
 *   all      — every item of `expected` is among the matches
 * A pattern edgeval cannot honour fails its check with a `failure_reason`; it never throws.
 * A check that runs out of its step budget (or an answer over the scan cap) is not a failed
 * check but an error: it is listed in `errors`, and the stage records no verdict for the result.
 * The messages follow Karenina's wording, with Python reprs of the matches.
 */
import type { RegexCheck } from "./template-schema";
import { pyRepr } from "./python";
import { compilePythonRegex, RegexBudgetExceeded, Subject } from "./python-regex";

export type RegexMatch = string | string[];

export interface RegexCheckDetail {
  pattern: string;
  expected: RegexCheck["expected"];
  match_type: RegexCheck["match_type"];
  matches_found: RegexMatch[];
  match_count: number;
  success_reason?: string;
  failure_reason?: string;
}

export interface RegexChecksResult {
  success: boolean;
  results: Record<string, boolean>;
  details: Record<string, RegexCheckDetail>;
  extraction_results: Record<string, RegexMatch[]>;
  /** Checks that could not be decided (budget or size cap), as "name: message". */
  errors: string[];
}

export function runRegexChecks(checks: readonly RegexCheck[], rawTrace: string): RegexChecksResult {
  const out: RegexChecksResult = { success: true, results: {}, details: {}, extraction_results: {}, errors: [] };
  let subject: Subject | RegexBudgetExceeded;
  try {
    subject = new Subject(rawTrace);
  } catch (e) {
    if (!(e instanceof RegexBudgetExceeded)) throw e;
    subject = e;
  }
  for (const check of checks) {
    const detail = runOne(check, subject);
    if (detail.error) out.errors.push(`${check.name}: ${detail.failure_reason}`);
    delete detail.error;
    const passed = detail.failure_reason === undefined;
    out.results[check.name] = passed;
    out.details[check.name] = detail;
    out.extraction_results[check.name] = detail.matches_found;
    if (!passed) out.success = false;
  }
  return out;
}

/** Python `re.findall` over `text`; throws only for patterns that cannot be translated. */
export function findAll(pattern: string, text: string): RegexMatch[] {
  const t = compilePythonRegex(pattern);
  if (!t.ok) throw new Error(t.error);
  return t.regex.findall(new Subject(text));
}

function runOne(check: RegexCheck, text: Subject | RegexBudgetExceeded): RegexCheckDetail & { error?: true } {
  const base = { pattern: check.pattern, expected: check.expected, match_type: check.match_type };
  const t = compilePythonRegex(check.pattern);
  if (!t.ok) return { ...base, matches_found: [], match_count: 0, failure_reason: `invalid pattern: ${t.error}` };
  let matches: RegexMatch[];
  try {
    if (text instanceof RegexBudgetExceeded) throw text;
    matches = t.regex.findall(text);
  } catch (e) {
    if (!(e instanceof RegexBudgetExceeded)) throw e;
    return { ...base, matches_found: [], match_count: 0, failure_reason: e.message, error: true };
  }
  const detail: RegexCheckDetail = { ...base, matches_found: matches, match_count: matches.length };
  const verdict = judge(check, matches);
  if (verdict.ok) detail.success_reason = verdict.reason;
  else detail.failure_reason = verdict.reason;
  return detail;
}

const key = (m: unknown) => JSON.stringify(m);

function judge(check: RegexCheck, matches: RegexMatch[]): { ok: boolean; reason: string } {
  const { expected } = check;
  const found = pyRepr(matches);
  switch (check.match_type) {
    case "exact":
      return matches.length === 1 && matches[0] === expected
        ? { ok: true, reason: "Single exact match found" }
        : { ok: false, reason: `Expected exactly one match of ${pyRepr(expected)}, got ${matches.length} matches: ${found}` };
    case "contains":
      return matches.some((m) => m === expected)
        ? { ok: true, reason: `Expected pattern ${pyRepr(expected)} found in matches` }
        : { ok: false, reason: `Expected pattern ${pyRepr(expected)} not found in matches: ${found}` };
    case "count":
      return matches.length === expected
        ? { ok: true, reason: `Found exactly ${expected} matches as expected` }
        : { ok: false, reason: `Expected ${expected} matches, got ${matches.length}` };
    case "all": {
      const have = new Set(matches.map(key));
      const missing = (expected as string[]).filter((e) => !have.has(key(e)));
      return missing.length === 0
        ? { ok: true, reason: "All expected items found in matches" }
        : { ok: false, reason: `Missing expected items: ${pyRepr([...new Set(missing)])}` };
    }
  }
}
