/**
 * Python `re` patterns → JS RegExp, preserving Python's meaning.
 *
 * Karenina runs `re.findall(pattern, trace)` on Python strings. JS differs in ways that change
 * verdicts silently, so the translation is explicit rather than "mostly compatible":
 * - `\w \d \b` are Unicode in Python (ASCII in JS) → Unicode property classes and lookarounds,
 *   unless the pattern sets `(?a)`.
 * - `.` excludes only `\n`; `^ $ \A \Z` follow Python's rules (non-multiline `$` also matches
 *   before a final newline) → emitted as explicit lookarounds, so JS's m/s flags are never used.
 * - `(?P<n>…)`, `(?P=n)`, `(?#…)`, `{,m}`, `(?x)` verbose mode, Python-only escapes (`\Z`, `\A`,
 *   `\a`, `\U…`, octal) and literal `{ } ]` are rewritten.
 * - What JS cannot express — atomic groups, possessive quantifiers, conditionals, scoped or
 *   mid-pattern flags, `\N{…}` — is refused with a message naming the construct, never
 *   approximated. `\W` inside a set is rewritten as an alternation (see `charClass`).
 *
 * One known difference remains, in `findall` rather than in the pattern: after an EMPTY match,
 * Python 3.7+ may return a non-empty match starting at the same position (`\w??` on "ab" gives
 * ['', 'a', '', 'b', '']), while JS moves one character on (['', '', '']). It takes a pattern that
 * can match the empty string AND prefers to (a lazy `*?`/`??` or an empty-first alternation);
 * patterns that cannot match empty are unaffected. Emulating it exactly costs O(text) per empty
 * match in JS, so it is documented instead.
 */

export type TranslatedRegex =
  | { ok: true; regex: RegExp; groupCount: number }
  | { ok: false; error: string };

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
  a: boolean;
}

class RegexTranslationError extends Error {}
const fail = (message: string): never => {
  throw new RegexTranslationError(message);
};

const WORD = String.raw`[\p{L}\p{N}_]`;
const UNICODE_ESCAPES: Record<string, string> = {
  d: String.raw`\p{Nd}`,
  D: String.raw`\P{Nd}`,
  w: WORD,
  W: String.raw`[^\p{L}\p{N}_]`,
  b: `(?:(?<=${WORD})(?!${WORD})|(?<!${WORD})(?=${WORD}))`,
  B: `(?:(?<=${WORD})(?=${WORD})|(?<!${WORD})(?!${WORD}))`,
};
const SAME_ESCAPES = new Set(["s", "S", "n", "r", "t", "f", "v"]);
const JS_SYNTAX = new Set([..."^$\\.*+?()[]{}|/"]);

/** Translate and compile (global flag set, for findall); never throws. */
export function translatePythonRegex(pattern: string): TranslatedRegex {
  try {
    const { flags, rest } = leadingFlags(pattern);
    const source = new Walker(rest, flags).run();
    const jsFlags = `gu${flags.i ? "i" : ""}`;
    let regex: RegExp;
    try {
      regex = new RegExp(source, jsFlags);
    } catch (e) {
      return { ok: false, error: `pattern does not compile: ${(e as Error).message}` };
    }
    const groupCount = new RegExp(`${source}|`, "u").exec("")!.length - 1;
    return { ok: true, regex, groupCount };
  } catch (e) {
    if (e instanceof RegexTranslationError) return { ok: false, error: e.message };
    throw e;
  }
}

/**
 * `translatePythonRegex`, memoised: templates repeat the same few patterns for every result, and
 * translation costs far more than matching. The RegExp is shared, so callers must use it through
 * stateless entry points (`matchAll`, `search`), never `exec`/`test` with its `lastIndex`.
 */
export function compilePythonRegex(pattern: string): TranslatedRegex {
  let t = COMPILED.get(pattern);
  if (t === undefined) {
    if (COMPILED.size >= MAX_COMPILED) COMPILED.clear();
    t = translatePythonRegex(pattern);
    COMPILED.set(pattern, t);
  }
  return t;
}
const COMPILED = new Map<string, TranslatedRegex>();
const MAX_COMPILED = 512;

/** `null` when the pattern can be honoured, else what is wrong with it (for submit-time checks). */
export function validateRegexPattern(pattern: string): string | null {
  const t = compilePythonRegex(pattern);
  return t.ok ? null : t.error;
}

/** Python accepts global inline flag groups only at the very start: `(?i)`, `(?im)(?s)…`. */
function leadingFlags(pattern: string): { flags: Flags; rest: string } {
  const flags: Flags = { i: false, m: false, s: false, x: false, a: false };
  let unicode = false;
  let rest = pattern;
  for (let m = /^\(\?([a-zA-Z]+)\)/.exec(rest); m; m = /^\(\?([a-zA-Z]+)\)/.exec(rest)) {
    for (const f of m[1]!) {
      if (f === "i" || f === "m" || f === "s" || f === "x" || f === "a") flags[f] = true;
      else if (f === "u") continue; // Unicode is already the default for str patterns
      else if (f === "L") fail("the (?L) locale flag is not supported (Python refuses it for str patterns too)");
      else fail(`unknown inline flag "${f}" in (?${m[1]})`);
    }
    rest = rest.slice(m[0].length);
    unicode ||= m[1]!.includes("u");
    if (unicode && flags.a) fail("flags 'a' (ASCII) and 'u' (UNICODE) are incompatible, as in Python");
  }
  return { flags, rest };
}

class Walker {
  private i = 0;
  private out = "";

  constructor(
    private readonly p: string,
    private readonly flags: Flags,
  ) {}

  run(): string {
    while (this.i < this.p.length) this.outside();
    return this.out;
  }

  private outside(): void {
    const c = this.p[this.i]!;
    if (this.flags.x && /\s/.test(c)) return void this.i++;
    if (this.flags.x && c === "#") {
      while (this.i < this.p.length && this.p[this.i] !== "\n") this.i++;
      return;
    }
    this.i++;
    switch (c) {
      case "\\":
        return void (this.out += this.escape(false));
      case "[":
        return this.charClass();
      case "(":
        return this.group();
      case ".":
        return void (this.out += this.flags.s ? String.raw`[\s\S]` : String.raw`[^\n]`);
      case "^":
        return void (this.out += this.flags.m ? String.raw`(?<![^\n])` : String.raw`(?<![\s\S])`);
      case "$":
        return void (this.out += this.flags.m ? String.raw`(?![^\n])` : String.raw`(?=\n?(?![\s\S]))`);
      case "*":
      case "+":
      case "?":
        this.out += c;
        return this.afterQuantifier();
      case "{":
        return this.brace();
      case "}":
      case "]":
        return void (this.out += `\\${c}`);
      default:
        this.out += c;
    }
  }

  /** `{n}`, `{n,}`, `{,m}`, `{n,m}` are quantifiers; any other `{` is a literal brace. */
  private brace(): void {
    const m = /^(\d*)(,(\d*))?\}/.exec(this.p.slice(this.i));
    if (!m || (m[1] === "" && m[2] === undefined)) return void (this.out += "\\{");
    this.i += m[0].length;
    const lo = m[1] === "" ? "0" : m[1];
    this.out += m[2] === undefined ? `{${lo}}` : `{${lo},${m[3] ?? ""}}`;
    this.afterQuantifier();
  }

  private afterQuantifier(): void {
    const next = this.p[this.i];
    if (next === "?") {
      this.out += "?";
      this.i++;
    } else if (next === "+") {
      fail(`possessive quantifier "${this.p[this.i - 1]}+" at position ${this.i - 1} has no JS equivalent`);
    }
  }

  private group(): void {
    if (this.p[this.i] !== "?") return void (this.out += "(");
    const rest = this.p.slice(this.i + 1);
    const named = /^P<([^>]*)>/.exec(rest);
    if (named) {
      this.i += 1 + named[0].length;
      return void (this.out += `(?<${named[1]}>`);
    }
    const backref = /^P=([^)]*)\)/.exec(rest);
    if (backref) {
      this.i += 1 + backref[0].length;
      return void (this.out += `\\k<${backref[1]}>`);
    }
    if (rest.startsWith("#")) {
      const end = this.p.indexOf(")", this.i);
      if (end < 0) fail("missing ) to close a (?#...) comment");
      return void (this.i = end + 1);
    }
    if (/^<[^=!]/.test(rest)) fail(`"(?<name>" is not Python syntax; write (?P<name>...) at position ${this.i - 1}`);
    for (const prefix of [":", "=", "!", "<=", "<!"]) {
      if (rest.startsWith(prefix)) {
        this.i += 1 + prefix.length;
        return void (this.out += `(?${prefix}`);
      }
    }
    if (rest.startsWith(">")) fail(`atomic group "(?>" at position ${this.i - 1} has no JS equivalent`);
    if (rest.startsWith("(")) fail(`conditional group "(?(" at position ${this.i - 1} has no JS equivalent`);
    if (/^[a-zA-Z-]+:/.test(rest)) {
      fail(`scoped inline flags "(?${/^[a-zA-Z-]+/.exec(rest)![0]}:" are not supported; put a global flag like (?i) at the start of the pattern`);
    }
    if (/^[a-zA-Z]+\)/.test(rest)) fail(`global flags not at the start of the expression at position ${this.i - 1}`);
    fail(`unknown extension "(?${rest.slice(0, 2)}" at position ${this.i - 1}`);
  }

  /**
   * A `[...]` set. `\W` has no in-set JS form with Unicode word rules, so a set holding it is
   * rewritten as an alternation: `[X\W]` → `(?:[X]|[^word])`, `[^X\W]` → `(?:(?![X])[word])`.
   */
  private charClass(): void {
    let negated = false;
    let body = "";
    let hasNonWord = false;
    if (this.p[this.i] === "^") {
      negated = true;
      this.i++;
    }
    // Python reads a `]` right after `[` or `[^` as a literal.
    if (this.p[this.i] === "]") {
      body += "\\]";
      this.i++;
    }
    while (this.i < this.p.length) {
      const c = this.p[this.i++]!;
      if (c === "]") return void (this.out += this.setSource(negated, body, hasNonWord));
      if (c === "\\" && this.p[this.i] === "W" && !this.flags.a) {
        hasNonWord = true;
        this.i++;
      } else if (c === "\\") body += this.escape(true);
      else if (c === "[") body += "\\[";
      else body += c;
    }
    fail("unterminated character set");
  }

  private setSource(negated: boolean, body: string, hasNonWord: boolean): string {
    if (!hasNonWord) return `[${negated ? "^" : ""}${body}]`;
    const word = String.raw`[\p{L}\p{N}_]`;
    const nonWord = String.raw`[^\p{L}\p{N}_]`;
    if (negated) return body ? `(?:(?![${body}])${word})` : word;
    return body ? `(?:[${body}]|${nonWord})` : nonWord;
  }

  /** The text after a backslash; `this.i` points past the backslash. */
  private escape(inClass: boolean): string {
    const c = this.p[this.i];
    if (c === undefined) fail("bad escape (end of pattern)");
    this.i++;
    if (/[0-9]/.test(c!)) return this.numericEscape(c!, inClass);
    if (/[a-zA-Z]/.test(c!)) return this.letterEscape(c!, inClass);
    if (JS_SYNTAX.has(c!) || (inClass && c === "-")) return `\\${c}`;
    return c!; // Python allows escaping any other punctuation; JS's u-mode does not.
  }

  private numericEscape(first: string, inClass: boolean): string {
    const octal = /^[0-7]{0,2}/.exec(this.p.slice(this.i))![0];
    if (first === "0" || (first <= "7" && octal.length === 2) || inClass) {
      if (!/[0-7]/.test(first)) fail(`bad escape \\${first}`);
      const digits = first === "0" ? octal : octal.slice(0, 2);
      this.i += digits.length;
      return `\\u{${parseInt(first + digits, 8).toString(16)}}`;
    }
    const more = /^[0-9]?/.exec(this.p.slice(this.i))![0];
    this.i += more.length;
    return `(?:\\${first}${more})`;
  }

  private letterEscape(c: string, inClass: boolean): string {
    if (SAME_ESCAPES.has(c)) return `\\${c}`;
    if (c === "a") return "\\x07";
    if (c === "x") return this.hexEscape(2, "x");
    if (c === "u") return this.hexEscape(4, "u");
    if (c === "U") return this.hexEscape(8, "U");
    if (c === "N") fail("\\N{...} named characters are not supported; write the character itself");
    if (inClass) return this.classLetterEscape(c);
    if (c === "A") return String.raw`(?<![\s\S])`;
    if (c === "Z") return String.raw`(?![\s\S])`;
    if (c === "B") {
      // Python's \B never matches in an empty string (JS's does, at position 0).
      return `(?:${this.flags.a ? "\\B" : UNICODE_ESCAPES.B}(?:(?<=[\\s\\S])|(?=[\\s\\S])))`;
    }
    if (c in UNICODE_ESCAPES) return this.flags.a ? `\\${c}` : UNICODE_ESCAPES[c]!;
    return fail(`bad escape \\${c} at position ${this.i - 2}`);
  }

  private classLetterEscape(c: string): string {
    if (c === "b") return "\\x08";
    if (this.flags.a && "dDwW".includes(c)) return `\\${c}`;
    if (c === "d") return String.raw`\p{Nd}`;
    if (c === "D") return String.raw`\P{Nd}`;
    if (c === "w") return String.raw`\p{L}\p{N}_`;
    return fail(`bad escape \\${c} in a character set at position ${this.i - 2}`);
  }

  private hexEscape(len: number, letter: string): string {
    const hex = this.p.slice(this.i, this.i + len);
    if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) fail(`incomplete escape \\${letter}${hex}`);
    this.i += len;
    return `\\u{${hex.replace(/^0+(?=.)/, "")}}`;
  }
}
