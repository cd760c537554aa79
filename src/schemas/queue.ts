/**
 * Queue message: ids only (a message holds at most 128 KB; the spec lives in R2).
 * job_id = "<question index>.<answering model index>.<replicate>" into the stored run spec, or for
 * a scenario turn "s<scenario>.<answering>.<parsing>.<replicate>.<turn>" (src/submit/spec.ts).
 */
import { z } from "zod";

export const JobMessage = z.strictObject({
  run_id: z.string().min(1).max(64),
  /** Absent on messages of runs from before tenants (their spec and coordinator carry no tenant). */
  tenant_id: z.string().min(1).max(40).optional(),
  job_id: z.string().regex(/^(?:\d+\.\d+\.\d+|s\d+\.\d+\.\d+\.\d+\.\d+)$/),
  /**
   * How many times this job was put back on the queue to wait out a provider's retry-after (or its
   * key's shared limiter): such deliveries are not the job's to spend (src/jobs/consumer.ts).
   */
  deferrals: z.number().int().min(1).max(1000).optional(),
  /** The coordinator shard that owns the job (src/coordinator/shards.ts); absent when the run has none. */
  shard: z.number().int().min(0).max(100_000).optional(),
});
export type JobMessage = z.infer<typeof JobMessage>;
