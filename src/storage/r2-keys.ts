/**
 * R2 layout. Every key is derived from ids only, so a redelivered job overwrites its own
 * objects instead of adding new ones. See storage/SCHEMA.md.
 */
export const r2Keys = {
  /** The submitted benchmark + config (no secrets: configs name secrets, never hold them). */
  spec: (runId: string) => `runs/${runId}/spec.json`,
  /** A job's generated answer when too long for the coordinator's row (job-runner answerFor). */
  answerCheckpoint: (runId: string, jobId: string) => `runs/${runId}/checkpoints/${jobId}/answer.json`,
  /** The full VerificationResult with its trace (raw answer, trace messages), one per results row. */
  result: (runId: string, resultId: string) => `runs/${runId}/results/${resultId}.json`,
} as const;
