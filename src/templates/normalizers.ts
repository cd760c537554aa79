/**
 * Text normalizers (Karenina `normalizers.py`), applied in order to both sides of a comparison.
 *
 * A normalizer is a name or a synonym map (Karenina's `SynonymMap`: whole-string exact lookup,
 * so put "lowercase" before it when the keys are lower-case).
 */
import { z } from "zod";
import { PY_WHITESPACE, pyStrip } from "./python";

export const NORMALIZER_NAMES = ["lowercase", "strip", "remove_punctuation", "collapse_whitespace"] as const;
export type NormalizerName = (typeof NORMALIZER_NAMES)[number];

// The union's message is the one a caller sees (the API reports top-level issues only), so the
// options carry none of their own.
const NamedNormalizer = z.enum(NORMALIZER_NAMES);
const SynonymMap = z.strictObject({ mapping: z.record(z.string(), z.string()) });

export const Normalizer = z.union([NamedNormalizer, SynonymMap], {
  error: `a normalizer is one of ${NORMALIZER_NAMES.map((n) => JSON.stringify(n)).join(", ")} or {"mapping": {...}}`,
});
export type Normalizer = z.output<typeof Normalizer>;

/** Python's `string.punctuation` (ASCII only, as in Karenina). */
const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

/** Python's whitespace, not JS's: `str.strip()` and `re`'s `\s` keep U+FEFF and drop \x1c-\x1f, \x85. */
const WHITESPACE_RUN = new RegExp(`[${PY_WHITESPACE}]+`, "g");

const NAMED: Record<NormalizerName, (text: string) => string> = {
  lowercase: (t) => t.toLowerCase(),
  strip: pyStrip,
  remove_punctuation: (t) => t.replace(PUNCTUATION, ""),
  collapse_whitespace: (t) => pyStrip(t.replace(WHITESPACE_RUN, " ")),
};

export function applyNormalizer(normalizer: Normalizer, text: string): string {
  if (typeof normalizer === "string") return NAMED[normalizer](text);
  return Object.hasOwn(normalizer.mapping, text) ? normalizer.mapping[text]! : text;
}

export function applyNormalizers(normalizers: readonly Normalizer[], text: string): string {
  return normalizers.reduce((acc, n) => applyNormalizer(n, acc), text);
}
