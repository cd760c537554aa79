/** TraceContains: `substring in raw_answer` (case sensitive, no normalisation). */
import { z } from "zod";
import { whenMissing } from "../../lib/wire-issues";
import { defineTracePrimitive } from "./types";

export const TraceContains = defineTracePrimitive({
  summary: "the raw answer contains `substring` (case sensitive)",
  paramsSchema: z.strictObject({
    substring: z.string({ error: whenMissing("substring is required: the text to look for") }),
  }),
  checkTrace(raw, { substring }) {
    return raw.includes(substring);
  },
});
