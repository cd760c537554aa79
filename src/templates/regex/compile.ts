/**
 * Syntax tree → a flat program both engines run (Thompson-style instructions).
 *
 * Slots 2g and 2g+1 hold group g's start and end (group 0 is the whole match). Counted repeats
 * are expanded (`x{2,4}` → `xx(?:x(?:x)?)?`, Python's nesting), so the program size is capped
 * (MAX_PROGRAM) to keep a `(x{1000}){1000}` a refusal rather than a million instructions.
 * Unbounded loops whose body can match empty carry a MARK/PROGRESS pair: the backtracker fails
 * an iteration that did not move (Python stops iterating there too); the Pike VM needs no guard,
 * its per-position visited set already stops empty cycles.
 */
import { caseVariants, isDigitA, isDigitU, isSpaceA, isSpaceU, isWordA, isWordU, lowerCp, upperCp } from "./chars";
import { type AssertKind, type ClassName, type Node, PatternError, type SetItem, width } from "./syntax-tree";

export const MAX_PROGRAM = 20_000;

export enum Op {
  Char,
  Pred,
  Split,
  Jmp,
  Save,
  Assert,
  Look,
  Ref,
  Mark,
  Progress,
  Match,
}

export type AssertTest = (cps: Uint32Array, pos: number, end: number) => boolean;

export type Inst =
  | { op: Op.Char; cp: number }
  | { op: Op.Pred; test: (cp: number) => boolean }
  | { op: Op.Split; x: number; y: number }
  | { op: Op.Jmp; x: number }
  | { op: Op.Save; slot: number }
  | { op: Op.Assert; test: AssertTest }
  | { op: Op.Look; prog: Program; behind: boolean; neg: boolean; width: number }
  | { op: Op.Ref; group: number; fold: boolean }
  | { op: Op.Mark; reg: number }
  | { op: Op.Progress; reg: number }
  | { op: Op.Match };

export interface Program {
  insts: Inst[];
  /** Number of capture slots (2 × (groups + 1)). */
  slots: number;
  /** Number of loop registers (MARK/PROGRESS). */
  regs: number;
  /** A code point every match starts with (-1 when none is known): searches skip to it. */
  firstCp: number;
}

interface Counter {
  total: number;
  regs: number;
}

/** The program for `node` wrapped in group 0; `anchorEnd` adds `\Z` (fullmatch). */
export function compileProgram(node: Node, groupCount: number, anchorEnd = false): Program {
  const counter: Counter = { total: 0, regs: 0 };
  const body: Node = anchorEnd ? { t: "cat", items: [node, { t: "at", kind: "end", multiline: false, a: false }] } : node;
  const insts = emitProgram({ t: "group", index: 0, node: body }, counter);
  return { insts, slots: 2 * (groupCount + 1), regs: counter.regs, firstCp: firstLiteral(node) };
}

function firstLiteral(node: Node): number {
  switch (node.t) {
    case "lit":
      return node.i ? -1 : node.cp;
    case "group":
      return firstLiteral(node.node);
    case "cat":
      return node.items.length ? firstLiteral(node.items[0]!) : -1;
    case "rep":
      return node.min >= 1 ? firstLiteral(node.node) : -1;
    default:
      return -1;
  }
}

function emitProgram(node: Node, counter: Counter): Inst[] {
  const insts: Inst[] = [];
  new Emitter(insts, counter).emit(node);
  insts.push({ op: Op.Match });
  return insts;
}

class Emitter {
  constructor(
    private readonly out: Inst[],
    private readonly counter: Counter,
  ) {}

  private push(inst: Inst): number {
    if (++this.counter.total > MAX_PROGRAM) {
      throw new PatternError(`pattern expands to more than ${MAX_PROGRAM} instructions (edgeval's cap; repeat counts multiply)`);
    }
    this.out.push(inst);
    return this.out.length - 1;
  }

  emit(node: Node): void {
    switch (node.t) {
      case "empty":
        return;
      case "lit":
        if (!node.i) return void this.push({ op: Op.Char, cp: node.cp });
        return void this.push({ op: Op.Pred, test: literalFold(node.cp, node.a) });
      case "any":
        return void this.push({ op: Op.Pred, test: node.dotall ? () => true : (cp) => cp !== 10 });
      case "set":
        return void this.push({ op: Op.Pred, test: setTest(node.items, node.neg, node.i, node.a) });
      case "cat":
        for (const n of node.items) this.emit(n);
        return;
      case "alt":
        return this.alt(node.items);
      case "group":
        this.push({ op: Op.Save, slot: 2 * node.index });
        this.emit(node.node);
        return void this.push({ op: Op.Save, slot: 2 * node.index + 1 });
      case "rep":
        return this.rep(node.node, node.min, node.max, node.lazy);
      case "at":
        return void this.push({ op: Op.Assert, test: assertTest(node.kind, node.multiline, node.a) });
      case "look": {
        const sub = emitProgram(node.node, this.counter);
        return void this.push({
          op: Op.Look,
          prog: { insts: sub, slots: 0, regs: 0, firstCp: -1 },
          behind: node.behind,
          neg: node.neg,
          width: node.width,
        });
      }
      case "ref":
        return void this.push({ op: Op.Ref, group: node.index, fold: node.i });
    }
  }

  private alt(items: Node[]): void {
    const jumps: number[] = [];
    for (let k = 0; k < items.length; k++) {
      if (k < items.length - 1) {
        const split = this.push({ op: Op.Split, x: 0, y: 0 });
        (this.out[split] as { x: number }).x = split + 1;
        this.emit(items[k]!);
        jumps.push(this.push({ op: Op.Jmp, x: 0 }));
        (this.out[split] as { y: number }).y = this.out.length;
      } else this.emit(items[k]!);
    }
    for (const j of jumps) (this.out[j] as { x: number }).x = this.out.length;
  }

  private rep(body: Node, min: number, max: number, lazy: boolean): void {
    for (let k = 0; k < min; k++) this.emit(body);
    if (max === Number.POSITIVE_INFINITY) return this.star(body, lazy);
    const exits: number[] = [];
    for (let k = min; k < max; k++) {
      const split = this.push({ op: Op.Split, x: 0, y: 0 });
      this.emit(body);
      this.branch(split, split + 1, -1, lazy);
      exits.push(split);
    }
    for (const s of exits) this.patchExit(s, this.out.length, lazy);
  }

  private star(body: Node, lazy: boolean): void {
    const canBeEmpty = width(body, new Map())[0] === 0;
    const split = this.push({ op: Op.Split, x: 0, y: 0 });
    const reg = canBeEmpty ? this.counter.regs++ : -1;
    if (canBeEmpty) this.push({ op: Op.Mark, reg });
    this.emit(body);
    if (canBeEmpty) this.push({ op: Op.Progress, reg });
    this.push({ op: Op.Jmp, x: split });
    this.branch(split, split + 1, this.out.length, lazy);
  }

  /** Greedy: prefer `into` (x) over `exit` (y); lazy the other way round. exit -1 = patched later. */
  private branch(split: number, into: number, exit: number, lazy: boolean): void {
    const s = this.out[split] as { x: number; y: number };
    if (lazy) {
      s.y = into;
      if (exit >= 0) s.x = exit;
    } else {
      s.x = into;
      if (exit >= 0) s.y = exit;
    }
  }

  private patchExit(split: number, exit: number, lazy: boolean): void {
    const s = this.out[split] as { x: number; y: number };
    if (lazy) s.x = exit;
    else s.y = exit;
  }
}

function literalFold(cp: number, ascii: boolean): (c: number) => boolean {
  const variants = new Set(caseVariants(cp, ascii));
  if (ascii) return (c) => variants.has(c) || (c < 128 && variants.has(lowerCp(c)));
  return (c) => variants.has(c) || variants.has(lowerCp(c)) || variants.has(upperCp(c));
}

function classTest(cls: ClassName, ascii: boolean): (cp: number) => boolean {
  const word = ascii ? isWordA : isWordU;
  const digit = ascii ? isDigitA : isDigitU;
  const space = ascii ? isSpaceA : isSpaceU;
  switch (cls) {
    case "d":
      return digit;
    case "D":
      return (cp) => !digit(cp);
    case "w":
      return word;
    case "W":
      return (cp) => !word(cp);
    case "s":
      return space;
    case "S":
      return (cp) => !space(cp);
  }
}

function setTest(items: SetItem[], neg: boolean, fold: boolean, ascii: boolean): (cp: number) => boolean {
  const ranges = items.filter((x): x is Extract<SetItem, { t: "range" }> => x.t === "range");
  const classes = items.filter((x): x is Extract<SetItem, { t: "class" }> => x.t === "class").map((x) => classTest(x.cls, ascii));
  const member = (cp: number): boolean => {
    for (const r of ranges) if (cp >= r.lo && cp <= r.hi) return true;
    for (const c of classes) if (c(cp)) return true;
    return false;
  };
  const folded = !fold
    ? member
    : ascii
      ? (cp: number) => member(cp) || (cp < 128 && (member(lowerCp(cp)) || member(upperCp(cp))))
      : (cp: number) => member(cp) || member(lowerCp(cp)) || member(upperCp(cp));
  return neg ? (cp) => !folded(cp) : folded;
}

function assertTest(kind: AssertKind, multiline: boolean, ascii: boolean): AssertTest {
  const word = ascii ? isWordA : isWordU;
  const wordAt = (cps: Uint32Array, i: number, end: number) => i >= 0 && i < end && word(cps[i]!);
  switch (kind) {
    case "bol":
      return multiline ? (cps, pos) => pos === 0 || cps[pos - 1] === 10 : (_, pos) => pos === 0;
    case "eol":
      return multiline
        ? (cps, pos, end) => pos === end || cps[pos] === 10
        : (cps, pos, end) => pos === end || (pos === end - 1 && cps[pos] === 10);
    case "start":
      return (_, pos) => pos === 0;
    case "end":
      return (_, pos, end) => pos === end;
    // Python's \b and \B never match in an empty string.
    case "wb":
      return (cps, pos, end) => end > 0 && wordAt(cps, pos - 1, end) !== wordAt(cps, pos, end);
    case "nwb":
      return (cps, pos, end) => end > 0 && wordAt(cps, pos - 1, end) === wordAt(cps, pos, end);
  }
}
