/**
 * The worker's bindings. Secrets (EDGEVAL_API_TOKEN, OPENAI_API_KEY, ANTHROPIC_API_KEY and any
 * secret named by a model's `api_key_secret`) arrive here and are read only at the edge.
 */
export interface Env {
  DB: D1Database;
  BLOBS: R2Bucket;
  JOBS: Queue<unknown>;
  RUNS: DurableObjectNamespace<import("./run/coordinator").RunCoordinator>;
  EDGEVAL_API_TOKEN?: string;
  OPENAI_API_KEY?: string;
  ANTHROPIC_API_KEY?: string;
  JOB_MAX_ATTEMPTS?: string;
  /** Base of the exponential backoff between deliveries of a job (seconds). */
  JOB_RETRY_BASE_DELAY_SECONDS?: string;
  [secretOrVar: string]: unknown;
}
