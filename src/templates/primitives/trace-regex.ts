/**
 * TraceRegex: `re.findall(pattern, raw_answer)` finds at least one match, or at least
 * `count_min` when set. The pattern is Python syntax, checked when the template is submitted.
 */
import { z } from "zod";
import { whenMissing } from "../../lib/wire-issues";
import { compilePythonRegex, Subject, validateRegexPattern } from "../python-regex";
import { defineTracePrimitive } from "./types";

export const TraceRegex = defineTracePrimitive({
  summary: "the raw answer has a match of `pattern` (at least count_min matches when set)",
  paramsSchema: z.strictObject({
    pattern: z.string({ error: whenMissing("pattern is required: a Python regular expression") }).superRefine((p, ctx) => {
      const problem = validateRegexPattern(p);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
    count_min: z
      .number()
      .int({ error: "count_min must be an integer ≥ 0 or null" })
      .min(0, { error: "count_min must be an integer ≥ 0 or null" })
      .nullable()
      .default(null),
  }),
  checkTrace(raw, { pattern, count_min }) {
    const t = compilePythonRegex(pattern);
    if (!t.ok) throw new Error(t.error);
    // findall's match count is the number of matches whatever the groups hold.
    return t.regex.countAtLeast(new Subject(raw), count_min ?? 1);
  },
});
