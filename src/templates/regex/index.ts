/**
 * Python `re` with a guarantee: patterns compiled with Python's rules, matching with a counted
 * step budget. See README.md for the contract and caps.
 */
import { backtrackSearch } from "./backtrack";
import { type Budget, MAX_SUBJECT_LENGTH, newBudget, RegexBudgetExceeded } from "./budget";
import { toCodePoints } from "./chars";
import { compileProgram, type Program } from "./compile";
import { parsePattern } from "./parse";
import { pikeSearch } from "./pike";
import { type Parsed, PatternError } from "./syntax-tree";

export { CHECK_STEP_BUDGET, MAX_BACKTRACK_STACK, MAX_SUBJECT_LENGTH, newBudget, RegexBudgetExceeded, type Budget } from "./budget";
export { MAX_PATTERN_LENGTH } from "./parse";
export { MAX_NESTING } from "./parse-groups";
export { MAX_PROGRAM } from "./compile";

/** A text prepared for matching (code points), checked against the length cap once. */
export class Subject {
  readonly cps: Uint32Array;
  private readonly offsets: Uint32Array | null;
  constructor(readonly text: string) {
    if (text.length > MAX_SUBJECT_LENGTH) {
      throw new RegexBudgetExceeded(
        `the text is ${text.length} characters long; regex checks scan at most ${MAX_SUBJECT_LENGTH} (edgeval's cap)`,
      );
    }
    const { cps, offsets } = toCodePoints(text);
    this.cps = cps;
    this.offsets = offsets;
  }
  get length(): number {
    return this.cps.length;
  }
  slice(from: number, to: number): string {
    return this.offsets ? this.text.slice(this.offsets[from], this.offsets[to]) : this.text.slice(from, to);
  }
}

/** One match: capture slots over a subject (positions in code points, as Python counts). */
export class RegexMatchResult {
  constructor(
    readonly subject: Subject,
    readonly caps: Int32Array,
    readonly names: ReadonlyMap<string, number>,
  ) {}
  get start(): number {
    return this.caps[0]!;
  }
  get end(): number {
    return this.caps[1]!;
  }
  /** Group `g`'s text, or null when it did not take part. */
  group(g: number): string | null {
    const s = this.caps[2 * g]!;
    const e = this.caps[2 * g + 1]!;
    return s < 0 || e < 0 ? null : this.subject.slice(s, e);
  }
  groups(): (string | null)[] {
    const out: (string | null)[] = [];
    for (let g = 1; 2 * g < this.caps.length; g++) out.push(this.group(g));
    return out;
  }
}

export type FindallItem = string | string[];

export class CompiledRegex {
  readonly groupCount: number;
  readonly names: ReadonlyMap<string, number>;
  /** "linear" (Pike VM) or "backtracking" (backreferences or lookaround, step-budgeted). */
  readonly engine: "linear" | "backtracking";
  private readonly program: Program;
  private fullProgram: Program | null = null;

  constructor(private readonly parsed: Parsed) {
    this.groupCount = parsed.groupCount;
    this.names = parsed.names;
    this.engine = parsed.needsBacktracking ? "backtracking" : "linear";
    this.program = compileProgram(parsed.node, parsed.groupCount);
  }

  private run(prog: Program, s: Subject, pos: number, anchored: boolean, mustAdvance: boolean, budget: Budget): RegexMatchResult | null {
    const search = this.engine === "linear" ? pikeSearch : backtrackSearch;
    const caps = search(prog, s.cps, s.length, pos, anchored, mustAdvance, budget);
    return caps ? new RegexMatchResult(s, caps, this.names) : null;
  }

  /** `re.search` from `pos`. */
  search(s: Subject, budget: Budget = newBudget(), pos = 0): RegexMatchResult | null {
    return this.run(this.program, s, pos, false, false, budget);
  }

  /** `re.match`: at position 0 only. */
  match(s: Subject, budget: Budget = newBudget()): RegexMatchResult | null {
    return this.run(this.program, s, 0, true, false, budget);
  }

  /** `re.fullmatch`. */
  fullmatch(s: Subject, budget: Budget = newBudget()): RegexMatchResult | null {
    this.fullProgram ??= compileProgram(this.parsed.node, this.parsed.groupCount, true);
    return this.run(this.fullProgram, s, 0, true, false, budget);
  }

  /** `re.finditer` (Python 3.7+: after an empty match the next may start there if not empty). */
  *finditer(s: Subject, budget: Budget = newBudget()): Generator<RegexMatchResult> {
    let pos = 0;
    let mustAdvance = false;
    while (pos <= s.length) {
      const m = this.run(this.program, s, pos, false, mustAdvance, budget);
      if (!m) return;
      yield m;
      mustAdvance = m.end === m.start;
      pos = m.end;
    }
  }

  /** `re.findall`: whole matches, the one group, or the list of groups ("" for a group that did not take part). */
  findall(s: Subject, budget: Budget = newBudget()): FindallItem[] {
    const out: FindallItem[] = [];
    for (const m of this.finditer(s, budget)) {
      if (this.groupCount === 0) out.push(m.group(0)!);
      else if (this.groupCount === 1) out.push(m.group(1) ?? "");
      else out.push(m.groups().map((g) => g ?? ""));
    }
    return out;
  }

  /** The number of findall matches, stopping once `atLeast` is reached. */
  countAtLeast(s: Subject, atLeast: number, budget: Budget = newBudget()): boolean {
    let n = 0;
    if (n >= atLeast) return true;
    for (const _ of this.finditer(s, budget)) if (++n >= atLeast) return true;
    return false;
  }
}

export type CompiledPattern = { ok: true; regex: CompiledRegex } | { ok: false; error: string };

/** Python's rules: refused patterns come back with Python's message (or edgeval's cap); never throws. */
export function compilePattern(pattern: string): CompiledPattern {
  try {
    return { ok: true, regex: new CompiledRegex(parsePattern(pattern)) };
  } catch (e) {
    if (e instanceof PatternError) return { ok: false, error: e.message };
    throw e;
  }
}
