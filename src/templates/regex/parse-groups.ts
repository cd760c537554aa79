/**
 * The parser's middle layer (see parse-escapes.ts for the layering): every `(...)` construct —
 * capturing, named and non-capturing groups, comments, lookaround, `(?P=name)` references — and
 * the bookkeeping they need: group numbers and names, groups still open, group widths for
 * look-behind, the nesting cap, and whether the tree needs the backtracking engine.
 */
import { EscapeParser } from "./parse-escapes";
import { type Node, PatternError, width } from "./syntax-tree";

export const MAX_NESTING = 100;

export abstract class GroupParser extends EscapeParser {
  protected groupCount = 0;
  protected readonly names = new Map<string, number>();
  private readonly open = new Set<number>();
  private readonly widths = new Map<number, [number, number]>();
  /** Groups opened inside the lookbehind being parsed (Python refuses references to them). */
  private lookbehindGroups: Set<number> | null = null;
  private depth = 0;
  protected backtracking = false;

  /** A group's contents: parse.ts's top level, entered again for each nested group. */
  protected abstract alternation(): Node;

  /** `start` is the position of `(`; `this.i` points past it. Null for a comment group. */
  protected group(start: number): Node | null {
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

  /** Python refuses a number above the groups opened so far (`invalid group reference 2 at position 1`). */
  protected numberedReference(index: number, at: number): Node {
    if (index > this.groupCount) this.err(`invalid group reference ${index}`, at);
    return this.reference(index, at);
  }

  private reference(index: number, at: number): Node {
    if (this.open.has(index)) this.err("cannot refer to an open group", at);
    if (this.lookbehindGroups?.has(index)) this.err("cannot refer to group defined in the same lookbehind subpattern", at);
    this.backtracking = true;
    return { t: "ref", index, i: this.flags.i };
  }
}
