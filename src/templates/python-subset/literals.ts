/** Python number and string literals, decoded as CPython reads them. */
import { UnsupportedConstruct } from "./ast";

export function parseNumber(text: string, line: number): number {
  const t = text.replace(/_/g, "");
  if (/[jJ]$/.test(t)) throw new UnsupportedConstruct(line, "complex number literal");
  if (/^0[xX]/.test(t)) return parseInt(t.slice(2), 16);
  if (/^0[oO]/.test(t)) return parseInt(t.slice(2), 8);
  if (/^0[bB]/.test(t)) return parseInt(t.slice(2), 2);
  const n = Number(t);
  if (Number.isNaN(n)) throw new UnsupportedConstruct(line, "number literal", text);
  return n;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  "\n": "",
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

/** A string literal with its prefix and quotes (`r"\d+"`, `'''doc'''`, `"a\x41"`). */
export function decodeStringLiteral(text: string, line: number): string {
  const prefix = /^[a-zA-Z]*/.exec(text)![0];
  if (/[bB]/.test(prefix)) throw new UnsupportedConstruct(line, "bytes literal");
  const rest = text.slice(prefix.length);
  const q = rest.startsWith('"""') || rest.startsWith("'''") ? 3 : 1;
  const body = rest.slice(q, rest.length - q);
  if (/[rR]/.test(prefix)) return body;
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== "\\" || i === body.length - 1) {
      out += ch;
      continue;
    }
    const e = body[++i]!;
    if (e in SIMPLE_ESCAPES) out += SIMPLE_ESCAPES[e];
    else if (e === "x" || e === "u" || e === "U") {
      const len = e === "x" ? 2 : e === "u" ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + len);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) throw new UnsupportedConstruct(line, `string escape \\${e}${hex}`);
      out += String.fromCodePoint(parseInt(hex, 16));
      i += len;
    } else if (/[0-7]/.test(e)) {
      const oct = /^[0-7]{1,3}/.exec(body.slice(i))![0];
      out += String.fromCharCode(parseInt(oct, 8));
      i += oct.length - 1;
    } else if (e === "N") {
      throw new UnsupportedConstruct(line, "named unicode escape \\N{...}");
    } else {
      // Python keeps an unknown escape as written (backslash included).
      out += "\\" + e;
    }
  }
  return out;
}
