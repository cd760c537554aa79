/**
 * RegexMatch: Python `re.search(pattern, str(x), flags)` on the extracted value; ground truth
 * ignored. `flags` are names of `re` flags ("IGNORECASE" or "I", "MULTILINE"/"M", "DOTALL"/"S",
 * "VERBOSE"/"X", "ASCII"/"A", "UNICODE"/"U"). Karenina warns and ignores an unknown name; here
 * it is refused when the template is submitted, since a silently dropped IGNORECASE changes
 * verdicts. The pattern is checked at submit time too (Python syntax edgeval can honour).
 */
import { z } from "zod";
import { whenMissing } from "../../lib/wire-issues";
import { pyStr } from "../python";
import { compilePythonRegex, Subject, validateRegexPattern } from "../python-regex";
import { definePrimitive } from "./types";

/** `re` flag names → the inline letter Python would set. LOCALE is absent: Python refuses it for str patterns. */
const FLAG_LETTERS: Record<string, string> = {
  I: "i",
  IGNORECASE: "i",
  M: "m",
  MULTILINE: "m",
  S: "s",
  DOTALL: "s",
  X: "x",
  VERBOSE: "x",
  A: "a",
  ASCII: "a",
  U: "u",
  UNICODE: "u",
};

const flagPrefix = (flags: readonly string[]) => (flags.length ? `(?${[...new Set(flags.map((f) => FLAG_LETTERS[f]))].join("")})` : "");

export const RegexMatch = definePrimitive({
  summary: "re.search(pattern, str(extracted)) with named re flags (ground truth ignored)",
  paramsSchema: z
    .strictObject({
      pattern: z.string({ error: whenMissing("pattern is required: a Python regular expression") }),
      flags: z
        .array(
          z.string().refine((f) => Object.hasOwn(FLAG_LETTERS, f), {
            error: `a flag is the name of a re flag: ${Object.keys(FLAG_LETTERS).join(", ")}`,
          }),
          { error: "flags must be a list of re flag names" },
        )
        .default([]),
    })
    .superRefine(({ pattern, flags }, ctx) => {
      if (!flags.every((f) => Object.hasOwn(FLAG_LETTERS, f))) return;
      const problem = validateRegexPattern(flagPrefix(flags) + pattern);
      if (problem) ctx.addIssue({ code: "custom", path: ["pattern"], message: problem });
    }),
  check(extracted, _groundTruth, { pattern, flags }) {
    const t = compilePythonRegex(flagPrefix(flags) + pattern);
    if (!t.ok) throw new Error(t.error);
    return t.regex.search(new Subject(pyStr(extracted))) !== null;
  },
});
