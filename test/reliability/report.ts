/**
 * The `.reliability/<name>.json` report: one file per scenario (or per figure-writing test), read by
 * scripts/reliability.mjs into one table. Loaded by workerd (the tests) and by Node (the runner,
 * through type stripping), so it imports nothing but zod.
 */
import { z } from "zod";

/** The invariants run-shaped scenarios check (invariants.ts), in the table's column order. */
export const INVARIANTS = ["d1_one_row", "r2_objects", "totals_match", "usage_once", "terminal", "repaid"] as const;

const Outcome = z.strictObject({
  pass: z.boolean(),
  /** What was seen: the figure when it holds, the offending keys when it fails. */
  detail: z.string(),
});

export const ReliabilityReport = z.strictObject({
  /** The file name without `.json`. */
  name: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "lower-case words joined by '-'"),
  /** The scenario number and a few words ("1 duplicate delivery, concurrent"). */
  scenario: z.string().min(1),
  /** "fast": the subset inside npm test; "full": npm run reliability at the sizes. */
  size_mode: z.enum(["fast", "full"]),
  /** What was exercised: "200 jobs / 400 results", "57 URLs". */
  size: z.string().min(1),
  /** Faults injected (duplicate deliveries, crashes, provider faults, attacks), counted. */
  faults_injected: z.number().int().nonnegative(),
  /** Results (or items) that should exist and do not; null where it does not apply. */
  lost: z.number().int().nonnegative().nullable(),
  /** Results (or items) present or counted more than once; null where it does not apply. */
  duplicated: z.number().int().nonnegative().nullable(),
  /** Provider calls beyond the no-fault baseline plus the injected provider faults; null where it does not apply. */
  repaid_calls: z.number().int().nullable(),
  /** The run's final status (or the test's terminal outcome); null where it does not apply. */
  terminal_status: z.string().nullable(),
  /** At least one; the INVARIANTS by those names, anything else a scenario asserts by its own. */
  invariants: z.record(z.string().regex(/^[a-z0-9_]+$/), Outcome).refine((o) => Object.keys(o).length > 0, "at least one invariant"),
  /** Anything else the scenario measures (429 counts, the busiest window, memory samples). */
  figures: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null(), z.array(z.number())])),
});
export type ReliabilityReport = z.infer<typeof ReliabilityReport>;
export type InvariantOutcome = z.infer<typeof Outcome>;

/** A report passes when every invariant it states holds. */
export function reportPasses(r: Pick<ReliabilityReport, "invariants">): boolean {
  return Object.values(r.invariants).every((i) => i.pass);
}
