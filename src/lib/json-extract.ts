/**
 * Pull a JSON value out of model text that may be fenced (```json … ```), chatty
 * ("Here you go: {…} hope that helps") or wrapped in prose. Never throws.
 *
 * Candidates, first that parses wins:
 *   1. the whole (trimmed) text, if it is an object or array;
 *   2. each fenced block, in order (any info string: ```json, ```JSON, bare ```);
 *   3. the first balanced `{…}` in the text that parses (string- and escape-aware scan);
 *   4. the first balanced `[…]` that parses.
 * Only objects and arrays count: a bare string or number is not a structured answer.
 * No repair is attempted (trailing commas, single quotes): a caller gets `invalid_output`
 * rather than a value we guessed at.
 */

export type JsonExtractResult = { ok: true; value: unknown; json: string } | { ok: false; error: string };

/** Scanning is quadratic in the worst case; these bound it. */
const MAX_TEXT_CHARS = 1_000_000;
const MAX_SCAN_STARTS = 64;

const FENCE = /```[^\n`]*\n?([\s\S]*?)```/g;

export function extractJson(text: string): JsonExtractResult {
  if (typeof text !== "string") return { ok: false, error: "not a string" };
  const src = text.replace(/^\uFEFF/, "").trim();
  if (src.length === 0) return { ok: false, error: "empty text" };
  if (src.length > MAX_TEXT_CHARS) return { ok: false, error: `text longer than ${MAX_TEXT_CHARS} characters` };

  const whole = parseStructured(src);
  if (whole) return whole;

  for (const m of src.matchAll(FENCE)) {
    const inFence = parseStructured((m[1] ?? "").trim()) ?? scan(m[1] ?? "", "{") ?? scan(m[1] ?? "", "[");
    if (inFence) return inFence;
  }

  return scan(src, "{") ?? scan(src, "[") ?? { ok: false, error: "no JSON object found in text" };
}

function parseStructured(candidate: string): JsonExtractResult | null {
  const c = candidate[0];
  if (c !== "{" && c !== "[") return null;
  try {
    const value: unknown = JSON.parse(candidate);
    return value !== null && typeof value === "object" ? { ok: true, value, json: candidate } : null;
  } catch {
    return null;
  }
}

/** Tries balanced spans starting at each `open` in turn. */
function scan(src: string, open: "{" | "["): JsonExtractResult | null {
  let from = 0;
  for (let attempt = 0; attempt < MAX_SCAN_STARTS; attempt++) {
    const start = src.indexOf(open, from);
    if (start < 0) return null;
    const end = matchingClose(src, start);
    if (end > start) {
      const parsed = parseStructured(src.slice(start, end + 1));
      if (parsed) return parsed;
    }
    from = start + 1;
  }
  return null;
}

/**
 * The last `{…}` object in the text (trying each `{` from the end, string-aware) that parses and
 * that `accept` takes, or null: Karenina's local JSON recovery, which wants the answer a report
 * ends with, not the first object it mentions. Bounded like `extractJson`.
 */
export function lastJsonObject<T>(text: string, accept: (value: unknown) => T | null): T | null {
  if (text.length > MAX_TEXT_CHARS) return null;
  let start = text.lastIndexOf("{");
  for (let attempt = 0; start >= 0 && attempt < MAX_SCAN_STARTS; attempt++) {
    const end = matchingClose(text, start);
    if (end > start) {
      const parsed = parseStructured(text.slice(start, end + 1));
      const taken = parsed?.ok ? accept(parsed.value) : null;
      if (taken !== null) return taken;
    }
    start = start > 0 ? text.lastIndexOf("{", start - 1) : -1;
  }
  return null;
}

/** Index of the bracket closing the one at `start`, skipping string contents; -1 if unbalanced. */
function matchingClose(src: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < src.length; i++) {
    const ch = src[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      depth--;
      if (depth === 0) return i;
      if (depth < 0) return -1;
    }
  }
  return -1;
}
