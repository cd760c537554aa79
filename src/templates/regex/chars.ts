/**
 * Character predicates with Python `re`'s meaning on str patterns (Unicode by default, ASCII
 * under `(?a)`): `\d` = Unicode decimal digits, `\w` = `str.isalnum()` or `_`, `\s` =
 * `str.isspace()`, IGNORECASE compares lower- and upper-case forms of single code points.
 * Results for code points above ASCII are memoised (a fixed-size table of the last seen).
 */

const WORD_RE = /^[\p{L}\p{N}_]$/u;
const DIGIT_RE = /^\p{Nd}$/u;
/** Python's `str.isspace()` set (see PY_WHITESPACE in ../python.ts). */
const SPACE_RE = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/u;

function memo(test: (ch: string) => boolean): (cp: number) => boolean {
  const ascii = new Uint8Array(128);
  for (let c = 0; c < 128; c++) ascii[c] = test(String.fromCharCode(c)) ? 1 : 0;
  const seen = new Map<number, boolean>();
  return (cp) => {
    if (cp < 128) return ascii[cp] === 1;
    let v = seen.get(cp);
    if (v === undefined) {
      if (seen.size > 4096) seen.clear();
      v = test(String.fromCodePoint(cp));
      seen.set(cp, v);
    }
    return v;
  };
}

export const isWordU = memo((c) => WORD_RE.test(c));
export const isDigitU = memo((c) => DIGIT_RE.test(c));
export const isSpaceU = memo((c) => SPACE_RE.test(c));

export const isWordA = (cp: number) => (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122) || cp === 95;
export const isDigitA = (cp: number) => cp >= 48 && cp <= 57;
export const isSpaceA = (cp: number) => cp === 32 || (cp >= 9 && cp <= 13);

function singleCp(s: string, fallback: number): number {
  const cp = s.codePointAt(0)!;
  return s.length === (cp > 0xffff ? 2 : 1) ? cp : fallback;
}

const lowerSeen = new Map<number, number>();
const upperSeen = new Map<number, number>();
/** Simple (one code point to one code point) lower case; code points without one map to themselves. */
export function lowerCp(cp: number): number {
  if (cp < 128) return cp >= 65 && cp <= 90 ? cp + 32 : cp;
  let v = lowerSeen.get(cp);
  if (v === undefined) {
    if (lowerSeen.size > 4096) lowerSeen.clear();
    v = singleCp(String.fromCodePoint(cp).toLowerCase(), cp);
    lowerSeen.set(cp, v);
  }
  return v;
}
export function upperCp(cp: number): number {
  if (cp < 128) return cp >= 97 && cp <= 122 ? cp - 32 : cp;
  let v = upperSeen.get(cp);
  if (v === undefined) {
    if (upperSeen.size > 4096) upperSeen.clear();
    v = singleCp(String.fromCodePoint(cp).toUpperCase(), cp);
    upperSeen.set(cp, v);
  }
  return v;
}

/** The case variants IGNORECASE treats as equal to `cp` (ASCII letters only under `(?a)`). */
export function caseVariants(cp: number, ascii: boolean): number[] {
  if (ascii) return cp < 128 ? [...new Set([cp, lowerCp(cp), upperCp(cp)])] : [cp];
  const lo = lowerCp(cp);
  return [...new Set([cp, lo, upperCp(cp), upperCp(lo), lowerCp(upperCp(cp))])];
}

/** Code points of `text`, and UTF-16 offsets of each (only when the text has astral characters). */
export interface CodePoints {
  cps: Uint32Array;
  /** offsets[i] = UTF-16 index of code point i; offsets[n] = text.length. null when they coincide. */
  offsets: Uint32Array | null;
}

export function toCodePoints(text: string): CodePoints {
  let astral = false;
  for (let i = 0; i < text.length; i++) {
    const u = text.charCodeAt(i);
    if (u >= 0xd800 && u <= 0xdbff) {
      astral = true;
      break;
    }
  }
  if (!astral) {
    const cps = new Uint32Array(text.length);
    for (let i = 0; i < text.length; i++) cps[i] = text.charCodeAt(i);
    return { cps, offsets: null };
  }
  const cps: number[] = [];
  const offsets: number[] = [];
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    cps.push(cp);
    offsets.push(i);
    i += cp > 0xffff ? 2 : 1;
  }
  offsets.push(text.length);
  return { cps: Uint32Array.from(cps), offsets: Uint32Array.from(offsets) };
}
