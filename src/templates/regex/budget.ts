/**
 * The counted cost of one regex check. Every engine step (an instruction tried by the
 * backtracker, a thread step or empty transition in the Pike VM) spends one unit; running out
 * throws RegexBudgetExceeded, which callers turn into an error result — never a hang, and never
 * "the answer does not match".
 */

/** Steps one check may take (a findall, a search, a sub…). about 0.3–0.6 s of CPU on this machine (`node bench/regex.mjs`). */
export const CHECK_STEP_BUDGET = 10_000_000;
/** The backtracker's choice-point stack, in entries (bounds its memory: 3 numbers an entry). */
export const MAX_BACKTRACK_STACK = 1_000_000;
/** Texts a pattern may scan, in UTF-16 units (longer answers are an error result, not a truncated scan). */
export const MAX_SUBJECT_LENGTH = 1_000_000;

export interface Budget {
  left: number;
  readonly limit: number;
}

export class RegexBudgetExceeded extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RegexBudgetExceeded";
  }
}

export function newBudget(limit = CHECK_STEP_BUDGET): Budget {
  return { left: limit, limit };
}

export function spend(budget: Budget, steps: number): void {
  budget.left -= steps;
  if (budget.left < 0) {
    throw new RegexBudgetExceeded(
      `regex stopped after ${budget.limit.toLocaleString("en-US")} steps (edgeval's per-check budget; catastrophic backtracking?)`,
    );
  }
}
