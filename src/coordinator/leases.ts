/**
 * A claimed job is leased: a duplicate delivery arriving while another consumer works on it waits
 * instead of paying for the same model calls. Each recorded result renews the lease; a consumer
 * that gives the job back (retry) releases it at once; a lease that ran out means the consumer is
 * presumed gone (the stall watch re-sends the job, a redelivery may claim it).
 */
import type { JobRow } from "./job-table";

export const LEASE_MS = 5 * 60_000;

/** Whole seconds until the running job's lease runs out; null when no lease holds it at `now`. */
export function leaseLeftSeconds(job: JobRow, now: number): number | null {
  if (job.state !== "running" || job.updated_at <= now - LEASE_MS) return null;
  return Math.ceil((job.updated_at + LEASE_MS - now) / 1000);
}
