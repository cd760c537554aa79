/**
 * The backtracking engine, for patterns with backreferences or lookaround (which no automaton
 * runs in linear time). It tries alternatives in Python's order over an explicit stack (no JS
 * recursion, so long texts cannot overflow the call stack) and spends one budget step per
 * instruction, so exponential patterns stop at the budget instead of hanging. Lookarounds run as
 * atomic sub-matches (as in Python); a positive one keeps the groups it set.
 */
import { type Budget, MAX_BACKTRACK_STACK, RegexBudgetExceeded, spend } from "./budget";
import { lowerCp, upperCp } from "./chars";
import { Op, type Program } from "./compile";
import { skipTo } from "./pike";

const CHOICE = 0;
const UNDO_SLOT = 1;
const UNDO_REG = 2;

/** Same contract as pikeSearch. */
export function backtrackSearch(
  prog: Program,
  cps: Uint32Array,
  end: number,
  start: number,
  anchored: boolean,
  mustAdvance: boolean,
  budget: Budget,
): Int32Array | null {
  const regs = new Int32Array(Math.max(1, prog.regs)).fill(-1);
  // A failed attempt unwinds every write, so one array serves every start position.
  const caps = new Int32Array(prog.slots).fill(-1);
  for (let s = start; s <= end; s++) {
    if (!anchored && prog.firstCp >= 0) s = skipTo(prog.firstCp, cps, s, end, budget);
    if (run(prog, cps, end, s, caps, regs, budget, mustAdvance ? start : -1) >= 0) return caps;
    if (anchored) break;
  }
  return null;
}

function sameChar(a: number, b: number, fold: boolean): boolean {
  return a === b || (fold && (lowerCp(a) === lowerCp(b) || upperCp(a) === upperCp(b)));
}

/** Match `prog` at `pos`; the end position or -1. `caps` holds the groups on success. */
function run(
  prog: Program,
  cps: Uint32Array,
  end: number,
  pos0: number,
  caps: Int32Array,
  regs: Int32Array,
  budget: Budget,
  forbidEndAt: number,
): number {
  const insts = prog.insts;
  const stack: number[] = [];
  let pc = 0;
  let pos = pos0;
  for (;;) {
    spend(budget, 1);
    const inst = insts[pc]!;
    let ok = true;
    switch (inst.op) {
      case Op.Char:
        if (pos < end && cps[pos] === inst.cp) {
          pc++;
          pos++;
        } else ok = false;
        break;
      case Op.Pred:
        if (pos < end && inst.test(cps[pos]!)) {
          pc++;
          pos++;
        } else ok = false;
        break;
      case Op.Split:
        stack.push(CHOICE, inst.y, pos);
        pc = inst.x;
        break;
      case Op.Jmp:
        pc = inst.x;
        break;
      case Op.Save:
        stack.push(UNDO_SLOT, inst.slot, caps[inst.slot]!);
        caps[inst.slot] = pos;
        pc++;
        break;
      case Op.Assert:
        if (inst.test(cps, pos, end)) pc++;
        else ok = false;
        break;
      case Op.Mark:
        stack.push(UNDO_REG, inst.reg, regs[inst.reg]!);
        regs[inst.reg] = pos;
        pc++;
        break;
      case Op.Progress:
        if (regs[inst.reg] === pos) ok = false;
        else pc++;
        break;
      case Op.Ref: {
        const s = caps[2 * inst.group]!;
        const e = caps[2 * inst.group + 1]!;
        if (s < 0 || e < 0 || pos + (e - s) > end) ok = false;
        else {
          spend(budget, e - s);
          for (let k = 0; k < e - s && ok; k++) ok = sameChar(cps[s + k]!, cps[pos + k]!, inst.fold);
          if (ok) {
            pos += e - s;
            pc++;
          }
        }
        break;
      }
      case Op.Look: {
        const from = inst.behind ? pos - inst.width : pos;
        const sub = caps.slice();
        const found = from >= 0 && run(inst.prog, cps, end, from, sub, regs, budget, -1) >= 0;
        if (found === inst.neg) ok = false;
        else {
          if (!inst.neg) {
            for (let k = 0; k < caps.length; k++) {
              if (sub[k] !== caps[k]) {
                stack.push(UNDO_SLOT, k, caps[k]!);
                caps[k] = sub[k]!;
              }
            }
          }
          pc++;
        }
        break;
      }
      case Op.Match:
        if (pos !== forbidEndAt) return pos;
        ok = false;
        break;
    }
    if (ok) {
      if (stack.length > 3 * MAX_BACKTRACK_STACK) {
        throw new RegexBudgetExceeded(
          `regex stopped: more than ${MAX_BACKTRACK_STACK.toLocaleString("en-US")} pending backtracking points (edgeval's cap)`,
        );
      }
      continue;
    }
    // Fail: unwind to the latest choice point, undoing group and loop-register writes.
    for (;;) {
      if (stack.length === 0) return -1;
      const b = stack.pop()!;
      const a = stack.pop()!;
      const kind = stack.pop()!;
      if (kind === CHOICE) {
        pc = a;
        pos = b;
        break;
      }
      if (kind === UNDO_SLOT) caps[a] = b;
      else regs[a] = b;
    }
  }
}
