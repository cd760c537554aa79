/**
 * The linear-time engine: a Pike VM (Thompson NFA simulation with captures, leftmost-first
 * priority like a backtracker). Every position is visited once with at most one thread per
 * instruction, so one search costs O(program × text) steps, whatever the pattern: `(a+)+$` on
 * 100 KB of "a" is as cheap as `a+$`. It runs programs without backreferences or lookaround
 * (compile.ts emits those only for patterns that need the backtracker).
 */
import { type Budget, spend } from "./budget";
import { type Inst, Op, type Program } from "./compile";

interface Thread {
  pc: number;
  caps: Int32Array;
}

/**
 * The leftmost-first match starting at or after `start` (exactly at `start` when anchored), as
 * capture slots; null when none. `mustAdvance` refuses a match that ends at `start` (Python's
 * rule after an empty match: the next one may start there but must not be empty).
 */
export function pikeSearch(
  prog: Program,
  cps: Uint32Array,
  end: number,
  start: number,
  anchored: boolean,
  mustAdvance: boolean,
  budget: Budget,
): Int32Array | null {
  const insts = prog.insts;
  const seen = new Int32Array(insts.length).fill(-1);
  let clist: Thread[] = [];
  let nlist: Thread[] = [];
  let matched: Int32Array | null = null;
  // Shared by every new thread: Save copies before it writes, so no thread ever changes it.
  const noCaps = new Int32Array(prog.slots).fill(-1);
  for (let pos = start; ; pos++) {
    if (clist.length === 0 && matched === null && !anchored && prog.firstCp >= 0) pos = skipTo(prog.firstCp, cps, pos, end, budget);
    if (matched === null && (!anchored || pos === start)) {
      addThread(insts, clist, seen, 0, noCaps, cps, pos, end, budget);
    }
    if (clist.length === 0 && (matched !== null || anchored)) break;
    const cp = pos < end ? cps[pos]! : -1;
    for (const t of clist) {
      spend(budget, 1);
      const inst = insts[t.pc]!;
      if (inst.op === Op.Char) {
        if (cp === inst.cp) addThread(insts, nlist, seen, t.pc + 1, t.caps, cps, pos + 1, end, budget);
      } else if (inst.op === Op.Pred) {
        if (cp >= 0 && inst.test(cp)) addThread(insts, nlist, seen, t.pc + 1, t.caps, cps, pos + 1, end, budget);
      } else if (inst.op === Op.Match) {
        if (mustAdvance && pos === start) continue;
        matched = t.caps;
        break; // lower-priority threads lose to this match
      }
    }
    [clist, nlist] = [nlist, clist];
    nlist.length = 0;
    if (pos >= end) break;
  }
  return matched;
}

/** The next position at or after `pos` holding `cp` (`end` when none); a step per 16 characters skipped. */
export function skipTo(cp: number, cps: Uint32Array, pos: number, end: number, budget: Budget): number {
  let p = pos;
  while (p < end && cps[p] !== cp) p++;
  spend(budget, (p - pos) >> 4);
  return p;
}

/** Follow empty transitions from `pc` in priority order, adding the consuming threads to `list`. */
function addThread(
  insts: Inst[],
  list: Thread[],
  seen: Int32Array,
  pc0: number,
  caps0: Int32Array,
  cps: Uint32Array,
  pos: number,
  end: number,
  budget: Budget,
): void {
  const stack: Thread[] = [{ pc: pc0, caps: caps0 }];
  while (stack.length > 0) {
    const { pc, caps } = stack.pop()!;
    if (seen[pc] === pos) continue;
    seen[pc] = pos;
    spend(budget, 1);
    const inst = insts[pc]!;
    switch (inst.op) {
      case Op.Jmp:
        stack.push({ pc: inst.x, caps });
        break;
      case Op.Split:
        stack.push({ pc: inst.y, caps }, { pc: inst.x, caps });
        break;
      case Op.Save: {
        const next = caps.slice();
        next[inst.slot] = pos;
        stack.push({ pc: pc + 1, caps: next });
        break;
      }
      case Op.Assert:
        if (inst.test(cps, pos, end)) stack.push({ pc: pc + 1, caps });
        break;
      case Op.Mark:
      case Op.Progress:
        stack.push({ pc: pc + 1, caps });
        break;
      case Op.Look:
      case Op.Ref:
        throw new Error("internal: the Pike VM was given a program that needs the backtracker");
      default:
        list.push({ pc, caps });
    }
  }
}
