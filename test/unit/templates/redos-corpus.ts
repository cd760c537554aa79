/**
 * Patterns known for catastrophic backtracking on a host RegExp engine (nested quantifiers,
 * overlapping alternations, backreferences, lookaround), each with a hostile answer of ~100 KB
 * and whether Python's `re.search` finds a match in it (worked out by hand: Python itself would
 * take years on most of these). `engine` says which of edgeval's engines must run it:
 * "linear" patterns must be decided; "backtracking" ones may stop at the step budget instead.
 * Shared by the ReDoS tests of the four regex paths and bench/regex.
 */
export interface RedosCase {
  pattern: string;
  answer: string;
  /** re.search finds something (null: refused at submit, as Python refuses it). */
  matches: boolean | null;
  engine: "linear" | "backtracking" | "refused";
}

const N = 100_000;
const as = "a".repeat(N);

export const REDOS_CORPUS: RedosCase[] = [
  { pattern: "(a+)+$", answer: `${as}!`, matches: false, engine: "linear" },
  { pattern: "(a|a)*$", answer: `${as}!`, matches: true, engine: "linear" }, // empty match at the end
  { pattern: "^(a|aa)+$", answer: `${as}!`, matches: false, engine: "linear" },
  { pattern: "^(a*)*b", answer: as, matches: false, engine: "linear" },
  { pattern: "(x+x+)+y", answer: "x".repeat(N), matches: false, engine: "linear" },
  { pattern: "^(\\w+\\s?)*$", answer: `${"word ".repeat(N / 5)}!`, matches: false, engine: "linear" },
  { pattern: "^(\\d+)*\\.$", answer: `${"1".repeat(N)}x`, matches: false, engine: "linear" },
  {
    pattern: "^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$",
    answer: `${as}!`,
    matches: false,
    engine: "linear",
  },
  { pattern: "(.*a){12}", answer: as, matches: true, engine: "linear" },
  { pattern: "\\s*$x", answer: `a${" ".repeat(N)}a`, matches: false, engine: "linear" },
  { pattern: "(?i)(?:[a-z]+)+\\d", answer: `${"AbC".repeat(N / 3)}!`, matches: false, engine: "linear" },
  { pattern: "^(([a-z])+.)+[A-Z]([a-z])+$", answer: `${as}!`, matches: false, engine: "linear" },
  { pattern: "(\\w+)\\1+$", answer: `${"ab".repeat(N / 2)}!`, matches: false, engine: "backtracking" },
  { pattern: "^(a+)\\1*$", answer: `${as}!`, matches: false, engine: "backtracking" },
  { pattern: "(?=(a+))\\1b", answer: as, matches: false, engine: "backtracking" },
  { pattern: "(?!x)(a|a)+!", answer: as, matches: false, engine: "backtracking" },
  { pattern: "(?<=a)(a|aa)+$", answer: `${as}!`, matches: false, engine: "backtracking" },
  { pattern: "(?P<w>\\w+) (?P=w)", answer: `${"the the ".repeat(10)}${as}`, matches: true, engine: "backtracking" },
  { pattern: "(?<=a+)b", answer: `${as}b`, matches: null, engine: "refused" },
];
