/**
 * Reliability guards that the reliability suite (test/reliability) switches off one at a time, to
 * show that each is what keeps its invariant (test/reliability/guards.test.ts). Production code
 * only asks `guardOn`; the one setter, `switchGuardOffForTest`, is imported by tests alone
 * (test/unit/lib/test-switches.test.ts fails if anything under src/ names it), and no binding, var or
 * request reaches it, so in a deployed worker every guard is always on.
 */
export const GUARDS = {
  /** Coordinator claim: a finished job is not run again, and a redelivery gets the results and answer already saved. */
  claim_skips_finished: "a redelivered job skips what is finished",
  /** Coordinator claim: a job another delivery holds (a live lease) is handed back as busy. */
  claim_lease: "a job being run is not run twice at once",
  /** POST /v1/runs: one Idempotency-Key, one run. */
  idempotency_key: "a repeated Idempotency-Key answers the first run",
  /** Job runner: a redelivery records a result found in D1 or R2 instead of judging again. */
  saved_results: "a saved result is re-recorded, not re-judged",
  /** Job runner: a redelivery reuses the checkpointed answer instead of asking the answering model again. */
  answer_checkpoint: "a checkpointed answer is reused",
  /** Dead-letter consumer: a job that exhausted its deliveries is marked dead, so the run ends. */
  dead_letter_marks_dead: "a dead-lettered job ends its run",
  /** Provider limiter: at most rpm requests reach a key's provider in any 60 s (src/limiter/request-window.ts). */
  request_window: "a key's requests stay within its rpm in every minute",
} as const;
export type GuardName = keyof typeof GUARDS;

const off = new Set<GuardName>();

export function guardOn(name: GuardName): boolean {
  return !off.has(name);
}

/** Tests only: turns a guard off (or back on). */
export function switchGuardOffForTest(name: GuardName, isOff = true): void {
  if (isOff) off.add(name);
  else off.delete(name);
}
