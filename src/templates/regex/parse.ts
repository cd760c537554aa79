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
 *
 * This file is the entry point and the top layer of the parser: leading flags, alternation,
 * sequences, quantifiers and atoms. Groups are in parse-groups.ts, escapes and sets in
 * parse-escapes.ts (which explains the layering), the tree in syntax-tree.ts.
 */
import { GroupParser } from "./parse-groups";
import { MAX_WIDTH, type Node, type Parsed, PatternError } from "./syntax-tree";

export const MAX_PATTERN_LENGTH = 4096;
/** Python refuses repeats ≥ 4294967295; expansion caps (compile.ts) bound smaller ones further. */
const MAXREPEAT = 4294967295;

const SPECIAL = new Set([..."|)"]);
const REPEAT_CHARS = new Set([..."*+?{"]);

export function parsePattern(pattern: string): Parsed {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new PatternError(`pattern is ${pattern.length} characters long; the cap is ${MAX_PATTERN_LENGTH}`);
  }
  return new Parser(pattern).parse();
}

class Parser extends GroupParser {
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

  protected alternation(): Node {
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
}
