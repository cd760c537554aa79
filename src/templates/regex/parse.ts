/**
 * Python `re` syntax (3.11, str patterns) → a syntax tree, refusing what Python refuses with
 * Python's message and position (`nothing to repeat at position 0`, `look-behind requires
 * fixed-width pattern`, `invalid group reference 2 at position 1`, …).
 *
 * A few constructs Python accepts are refused here too, each by name: atomic groups, possessive
 * quantifiers, conditionals, scoped flags `(?i:…)` and `\N{…}`. Caps (see README): pattern length,
 * group nesting depth and repeat counts, so a hostile pattern is a refusal, not a stack overflow.
 * Flags are global (Python accepts inline flags only at the very start) and are stored on the
 * nodes that read them, so matching never consults a flag table.
 */

export const MAX_PATTERN_LENGTH = 4096;
export const MAX_NESTING = 100;
/** Python refuses repeats ≥ 4294967295; expansion caps (compile.ts) bound smaller ones further. */
const MAXREPEAT = 4294967295;

export type ClassName = "d" | "D" | "w" | "W" | "s" | "S";
export type SetItem = { t: "range"; lo: number; hi: number } | { t: "class"; cls: ClassName };
export type AssertKind = "bol" | "eol" | "start" | "end" | "wb" | "nwb";

export type Node =
  | { t: "empty" }
  | { t: "lit"; cp: number; i: boolean; a: boolean }
  | { t: "any"; dotall: boolean }
  | { t: "set"; neg: boolean; items: SetItem[]; i: boolean; a: boolean }
  | { t: "cat"; items: Node[] }
  | { t: "alt"; items: Node[] }
  | { t: "group"; index: number; node: Node }
  | { t: "rep"; node: Node; min: number; max: number; lazy: boolean }
  | { t: "at"; kind: AssertKind; multiline: boolean; a: boolean }
  | { t: "look"; behind: boolean; neg: boolean; node: Node; width: number }
  | { t: "ref"; index: number; i: boolean };

export interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
  a: boolean;
}

export interface Parsed {
  node: Node;
  groupCount: number;
  names: Map<string, number>;
  /** true when the tree needs the backtracking engine (backreferences or lookaround). */
  needsBacktracking: boolean;
}

export class PatternError extends Error {}

const MAX_WIDTH = Number.POSITIVE_INFINITY;
const SPECIAL = new Set([..."|)"]);
const REPEAT_CHARS = new Set([..."*+?{"]);

export function parsePattern(pattern: string): Parsed {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new PatternError(`pattern is ${pattern.length} characters long; the cap is ${MAX_PATTERN_LENGTH}`);
  }
  return new Parser(pattern).parse();
}

class Parser {
  private i = 0;
  private flags: Flags = { i: false, m: false, s: false, x: false, a: false };
  private groupCount = 0;
  private readonly names = new Map<string, number>();
  private readonly open = new Set<number>();
  private readonly widths = new Map<number, [number, number]>();
  /** Groups opened inside the lookbehind being parsed (Python refuses references to them). */
  private lookbehindGroups: Set<number> | null = null;
  private depth = 0;
  private backtracking = false;

  constructor(private readonly p: string) {}

  private err(message: string, at = this.i): never {
    throw new PatternError(`${message} at position ${at}`);
  }

  parse(): Parsed {
    this.leadingFlags();
    const node = this.alternation();
    if (this.i < this.p.length) this.err("unbalanced parenthesis");
    return { node, groupCount: this.groupCount, names: this.names, needsBacktracking: this.backtracking };
  }

  /** Python accepts global inline flag groups only at the very start: `(?i)`, `(?im)(?s)…`. */
  private leadingFlags(): void {
    let unicode = false;
    for (let m = /^\(\?([a-zA-Z]+)\)/.exec(this.p.slice(this.i)); m; m = /^\(\?([a-zA-Z]+)\)/.exec(this.p.slice(this.i))) {
      for (const f of m[1]!) {
        if (f === "i" || f === "m" || f === "s" || f === "x" || f === "a") this.flags[f] = true;
        else if (f === "u") unicode = true;
        else if (f === "L") this.err("bad inline flags: cannot use 'L' flag with a str pattern", this.i + 2);
        else this.err(`unknown flag`, this.i + 2 + m[1]!.indexOf(f));
      }
      if (unicode && this.flags.a)
        this.err("bad inline flags: flags 'a' (ASCII) and 'u' (UNICODE) are incompatible", this.i + m[0].length - 1);
      this.i += m[0].length;
      this.skipVerbose();
    }
  }

  private skipVerbose(): void {
    if (!this.flags.x) return;
    for (;;) {
      const c = this.p[this.i];
      if (c !== undefined && /\s/.test(c)) this.i++;
      else if (c === "#") {
        while (this.i < this.p.length && this.p[this.i] !== "\n") this.i++;
      } else return;
    }
  }

  private alternation(): Node {
    const items = [this.sequence()];
    while (this.p[this.i] === "|") {
      this.i++;
      items.push(this.sequence());
    }
    return items.length === 1 ? items[0]! : { t: "alt", items };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (;;) {
      this.skipVerbose();
      const c = this.p[this.i];
      if (c === undefined || SPECIAL.has(c)) break;
      if (REPEAT_CHARS.has(c) && this.repeatAhead()) this.err("nothing to repeat");
      let atom = this.atom();
      if (atom === null) continue;
      this.skipVerbose();
      atom = this.quantified(atom);
      items.push(atom);
    }
    if (items.length === 0) return { t: "empty" };
    return items.length === 1 ? items[0]! : { t: "cat", items };
  }

  /** Whether a quantifier starts at `this.i` (`{` is a quantifier only in the forms Python reads as one). */
  private repeatAhead(): boolean {
    const c = this.p[this.i];
    if (c !== "{") return c === "*" || c === "+" || c === "?";
    const m = /^\{(\d*)(,\d*)?\}/.exec(this.p.slice(this.i));
    return m !== null && !(m[1] === "" && m[2] === undefined);
  }

  private quantified(atom: Node): Node {
    let node = atom;
    let quantifiers = 0;
    for (;;) {
      const at = this.i;
      const c = this.p[this.i];
      let min: number;
      let max: number;
      if (c === "*" || c === "+" || c === "?") {
        this.i++;
        [min, max] = c === "*" ? [0, MAX_WIDTH] : c === "+" ? [1, MAX_WIDTH] : [0, 1];
      } else if (c === "{") {
        const m = /^\{(\d*)(?:(,)(\d*))?\}/.exec(this.p.slice(this.i));
        if (!m || (m[1] === "" && m[2] === undefined)) return node;
        this.i += m[0].length;
        min = m[1] === "" ? 0 : Number(m[1]);
        max = m[2] === undefined ? min : m[3] === "" ? MAX_WIDTH : Number(m[3]);
        if (min >= MAXREPEAT || (max !== MAX_WIDTH && max >= MAXREPEAT)) this.err("the repetition number is too large", at);
        if (max < min) this.err("min repeat greater than max repeat", at + 1);
      } else return node;
      if (quantifiers > 0) this.err("multiple repeat", at);
      if (node.t === "at") this.err("nothing to repeat", at);
      quantifiers++;
      let lazy = false;
      if (this.p[this.i] === "?") {
        lazy = true;
        this.i++;
      } else if (this.p[this.i] === "+") {
        this.err(`possessive quantifier "${c}+" is not supported by edgeval's regex engine (write the pattern without it)`, at);
      }
      node = { t: "rep", node, min, max, lazy };
      this.skipVerbose();
    }
  }

  /** One atom; null for a comment group that produces nothing. */
  private atom(): Node | null {
    const c = this.p[this.i]!;
    const { i: ci, a, s, m } = this.flags;
    this.i++;
    switch (c) {
      case "\\":
        return this.escape();
      case "[":
        return this.set(this.i - 1);
      case "(":
        return this.group(this.i - 1);
      case ".":
        return { t: "any", dotall: s };
      case "^":
        return { t: "at", kind: "bol", multiline: m, a };
      case "$":
        return { t: "at", kind: "eol", multiline: m, a };
      default: {
        const cp = this.p.codePointAt(this.i - 1)!;
        if (cp > 0xffff) this.i++;
        return { t: "lit", cp, i: ci, a };
      }
    }
  }

  private group(start: number): Node | null {
    if (this.p[this.i] !== "?") return this.capturing(start, null);
    this.i++;
    const c = this.p[this.i];
    if (c === undefined) this.err("unexpected end of pattern");
    if (c === "P") {
      this.i++;
      const k = this.p[this.i];
      if (k === "<") {
        this.i++;
        return this.capturing(start, this.groupName(">"));
      }
      if (k === "=") {
        this.i++;
        const nameAt = this.i;
        const name = this.groupName(")");
        const index = this.names.get(name);
        if (index === undefined) this.err(`unknown group name '${name}'`, nameAt);
        return this.reference(index, nameAt);
      }
      if (k === undefined) this.err("unexpected end of pattern");
      this.err(`unknown extension ?P${k}`, this.i - 1);
    }
    if (c === "#") {
      const end = this.p.indexOf(")", this.i);
      if (end < 0) this.err("missing ), unterminated comment", start);
      this.i = end + 1;
      return null;
    }
    if (c === ":") {
      this.i++;
      return this.closeGroup(this.nested(), start);
    }
    if (c === "=" || c === "!") {
      this.i++;
      return this.look(start, false, c === "!");
    }
    if (c === "<") {
      this.i++;
      const k = this.p[this.i];
      if (k === "=" || k === "!") {
        this.i++;
        return this.look(start, true, k === "!");
      }
      if (k === undefined) this.err("unexpected end of pattern");
      this.err(`unknown extension ?<${k} (write (?P<name>...) for a named group)`, this.i - 2);
    }
    if (c === ">") this.err(`atomic group "(?>" is not supported by edgeval's regex engine`, start);
    if (c === "(") this.err(`conditional group "(?(" is not supported by edgeval's regex engine`, start);
    if (/^[a-zA-Z-]+:/.test(this.p.slice(this.i))) {
      this.err(
        `scoped inline flags "(?${/^[a-zA-Z-]+/.exec(this.p.slice(this.i))![0]}:" are not supported; put a global flag like (?i) at the start of the pattern`,
        start,
      );
    }
    if (/^[a-zA-Z]+\)/.test(this.p.slice(this.i))) this.err("global flags not at the start of the expression", start);
    this.err(`unknown extension ?${c}`, this.i);
  }

  private groupName(terminator: string): string {
    const at = this.i;
    const end = this.p.indexOf(terminator, this.i);
    if (end < 0) {
      if (this.i >= this.p.length) this.err("missing group name");
      this.err(`missing ${terminator}, unterminated name`);
    }
    const name = this.p.slice(this.i, end);
    if (name === "") this.err("missing group name");
    if (!/^[\p{L}_][\p{L}\p{N}_]*$/u.test(name)) this.err(`bad character in group name '${name}'`, at);
    this.i = end + 1;
    return name;
  }

  private nested(): Node {
    if (++this.depth > MAX_NESTING) this.err(`groups nested more than ${MAX_NESTING} deep (edgeval's cap)`);
    const node = this.alternation();
    this.depth--;
    return node;
  }

  private closeGroup(node: Node, start: number): Node {
    if (this.p[this.i] !== ")") this.err("missing ), unterminated subpattern", start);
    this.i++;
    return node;
  }

  private capturing(start: number, name: string | null): Node {
    const index = ++this.groupCount;
    if (name !== null) {
      const had = this.names.get(name);
      if (had !== undefined) this.err(`redefinition of group name '${name}' as group ${index}; was group ${had}`, this.i - name.length - 1);
      this.names.set(name, index);
    }
    this.open.add(index);
    this.lookbehindGroups?.add(index);
    const node = this.closeGroup(this.nested(), start);
    this.open.delete(index);
    this.widths.set(index, width(node, this.widths));
    return { t: "group", index, node };
  }

  private look(start: number, behind: boolean, neg: boolean): Node {
    this.backtracking = true;
    const outer = this.lookbehindGroups;
    if (behind) this.lookbehindGroups = new Set();
    const node = this.closeGroup(this.nested(), start);
    this.lookbehindGroups = outer;
    let w = 0;
    if (behind) {
      const [lo, hi] = width(node, this.widths);
      if (lo !== hi) throw new PatternError("look-behind requires fixed-width pattern");
      w = lo;
    }
    return { t: "look", behind, neg, node, width: w };
  }

  private reference(index: number, at: number): Node {
    if (this.open.has(index)) this.err("cannot refer to an open group", at);
    if (this.lookbehindGroups?.has(index)) this.err("cannot refer to group defined in the same lookbehind subpattern", at);
    this.backtracking = true;
    return { t: "ref", index, i: this.flags.i };
  }

  /** The text after a backslash outside a set; `this.i` points past the backslash. */
  private escape(): Node {
    const at = this.i - 1;
    const c = this.p[this.i];
    if (c === undefined) this.err("bad escape (end of pattern)", at);
    const { a, m } = this.flags;
    if (/[0-9]/.test(c!)) return this.numericEscape(at);
    this.i++;
    const cls = classEscape(c!);
    if (cls) return { t: "set", neg: false, items: [{ t: "class", cls }], i: false, a };
    switch (c) {
      case "A":
        return { t: "at", kind: "start", multiline: m, a };
      case "Z":
        return { t: "at", kind: "end", multiline: m, a };
      case "b":
        return { t: "at", kind: "wb", multiline: m, a };
      case "B":
        return { t: "at", kind: "nwb", multiline: m, a };
    }
    return { t: "lit", cp: this.charEscape(c!, at, false), i: this.flags.i, a };
  }

  private numericEscape(at: number): Node {
    const digits = /^\d{1,3}/.exec(this.p.slice(this.i))![0];
    if (digits[0] === "0" || (digits.length === 3 && /^[0-7]{3}$/.test(digits))) {
      const oct = /^[0-7]{1,3}/.exec(this.p.slice(this.i))![0];
      this.i += oct.length;
      const cp = parseInt(oct, 8);
      if (cp > 0o377) this.err(`octal escape value \\${oct} outside of range 0-0o377`, at);
      return { t: "lit", cp, i: this.flags.i, a: this.flags.a };
    }
    const ref = digits.slice(0, 2);
    this.i += ref.length;
    const index = Number(ref);
    if (index > this.groupCount) this.err(`invalid group reference ${index}`, at + 1);
    return this.reference(index, at + 1);
  }

  /** Escapes that stand for one character, shared by sets and the outside. */
  private charEscape(c: string, at: number, inSet: boolean): number {
    switch (c) {
      case "a":
        return 7;
      case "f":
        return 12;
      case "n":
        return 10;
      case "r":
        return 13;
      case "t":
        return 9;
      case "v":
        return 11;
      case "x":
        return this.hex(2, "x", at);
      case "u":
        return this.hex(4, "u", at);
      case "U": {
        const cp = this.hex(8, "U", at);
        if (cp > 0x10ffff) this.err(`bad escape \\U${this.p.slice(at + 2, at + 10)}`, at);
        return cp;
      }
      case "N":
        this.err("\\N{...} named characters are not supported; write the character itself", at);
    }
    if (inSet && c === "b") return 8;
    if (/[a-zA-Z0-9]/.test(c)) this.err(`bad escape \\${c}`, at);
    return c.codePointAt(0)!; // Python allows escaping any other character.
  }

  private hex(len: number, letter: string, at: number): number {
    const digits = /^[0-9a-fA-F]*/.exec(this.p.slice(this.i, this.i + len))![0];
    if (digits.length < len) this.err(`incomplete escape \\${letter}${digits}`, at);
    this.i += len;
    return parseInt(digits, 16);
  }

  /** A `[...]` set; `start` is the position of `[`. */
  private set(start: number): Node {
    const items: SetItem[] = [];
    let neg = false;
    if (this.p[this.i] === "^") {
      neg = true;
      this.i++;
    }
    let first = true;
    for (;;) {
      const c = this.p[this.i];
      if (c === undefined) this.err("unterminated character set", start);
      if (c === "]" && !first) {
        this.i++;
        break;
      }
      first = false;
      const loAt = this.i;
      const lo = this.setMember();
      if (this.p[this.i] === "-" && this.p[this.i + 1] !== "]" && this.p[this.i + 1] !== undefined) {
        this.i++;
        const hi = this.setMember();
        if (typeof lo !== "number" || typeof hi !== "number") {
          this.err(`bad character range ${this.p.slice(loAt, this.i)}`, loAt);
        }
        if (hi < lo) this.err(`bad character range ${this.p.slice(loAt, this.i)}`, loAt);
        items.push({ t: "range", lo, hi });
      } else if (typeof lo === "number") items.push({ t: "range", lo, hi: lo });
      else items.push({ t: "class", cls: lo });
    }
    return { t: "set", neg, items, i: this.flags.i, a: this.flags.a };
  }

  /** One member of a set: a code point or a class escape. */
  private setMember(): number | ClassName {
    const c = this.p[this.i]!;
    if (c !== "\\") {
      const cp = this.p.codePointAt(this.i)!;
      this.i += cp > 0xffff ? 2 : 1;
      return cp;
    }
    const at = this.i;
    this.i++;
    const e = this.p[this.i];
    if (e === undefined) this.err("unterminated character set", at);
    if (/[0-7]/.test(e!)) {
      const oct = /^[0-7]{1,3}/.exec(this.p.slice(this.i))![0];
      this.i += oct.length;
      const cp = parseInt(oct, 8);
      if (cp > 0o377) this.err(`octal escape value \\${oct} outside of range 0-0o377`, at);
      return cp;
    }
    this.i++;
    const cls = classEscape(e!);
    if (cls) return cls;
    return this.charEscape(e!, at, true);
  }
}

function classEscape(c: string): ClassName | null {
  return "dDwWsS".includes(c) ? (c as ClassName) : null;
}

/** [min, max] width in code points (max may be Infinity); Python's getwidth. */
export function width(node: Node, groups: Map<number, [number, number]>): [number, number] {
  switch (node.t) {
    case "empty":
    case "at":
    case "look":
      return [0, 0];
    case "lit":
    case "any":
    case "set":
      return [1, 1];
    case "ref":
      return groups.get(node.index) ?? [0, MAX_WIDTH];
    case "group":
      return width(node.node, groups);
    case "cat":
      return node.items.reduce<[number, number]>(
        ([lo, hi], n) => {
          const [a, b] = width(n, groups);
          return [lo + a, hi + b];
        },
        [0, 0],
      );
    case "alt": {
      const ws = node.items.map((n) => width(n, groups));
      return [Math.min(...ws.map((w) => w[0])), Math.max(...ws.map((w) => w[1]))];
    }
    case "rep": {
      const [a, b] = width(node.node, groups);
      return [a * node.min, node.max === MAX_WIDTH ? (b === 0 ? 0 : MAX_WIDTH) : b * node.max];
    }
  }
}
