/**
 * The parser's bottom layer: the cursor over the pattern (position, flags, errors with Python's
 * position) and the character-level syntax read with it, backslash escapes and `[...]` sets.
 *
 * The parser is one class built in three layers, one file each: this one, parse-groups.ts
 * (`(...)` constructs and the group bookkeeping) and parse.ts (alternation, sequence,
 * quantifiers, atoms). The layers share one cursor and call each other recursively (a group
 * holds an alternation, an escape can be a backreference), so they are subclasses over shared
 * state rather than separate functions; what a lower layer needs from a higher one is an
 * abstract method.
 */
import { type ClassName, type Node, PatternError, type SetItem } from "./syntax-tree";

export interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
  a: boolean;
}

export abstract class EscapeParser {
  protected i = 0;
  protected flags: Flags = { i: false, m: false, s: false, x: false, a: false };

  constructor(protected readonly p: string) {}

  protected err(message: string, at = this.i): never {
    throw new PatternError(`${message} at position ${at}`);
  }

  /** `\1`…`\99` outside a set: a reference to that group (parse-groups.ts checks it exists). */
  protected abstract numberedReference(index: number, at: number): Node;

  /** The text after a backslash outside a set; `this.i` points past the backslash. */
  protected escape(): Node {
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
    return this.numberedReference(Number(ref), at + 1);
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
  protected set(start: number): Node {
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
